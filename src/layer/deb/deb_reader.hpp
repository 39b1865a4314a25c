// DebReader: reads a binary package (.deb) with libarchive, as dpkg-deb
// does: an ar archive whose first member is `debian-binary` ("2.x"), then
// `control.tar[.gz|.xz|.zst]`, then `data.tar[.gz|.xz|.zst|.bz2]`; members
// whose names start with '_' are ignored. The control member is read whole
// (it is small); the data member is streamed through an oci::TarReader, so
// hostile data archives (path traversal, links out of the root, truncated or
// oversized members) are refused with an error naming the .deb and entry.
//
// Usage: open(), control(), then data() once, read it, then finish(). Not thread-safe; one reader per
// .deb. The TarReader returned by data() must not outlive the DebReader.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "oci/tar_reader.hpp"

namespace strata::layer {

struct DebControl {
  std::string control;                        // the `control` file
  std::map<std::string, std::string> files;   // other control members: conffiles, md5sums, postinst, …
  std::string data_member;                    // "data.tar.xz" etc.
};

class DebReader {
 public:
  static Result<std::unique_ptr<DebReader>> open(const std::filesystem::path& path, std::string what);
  ~DebReader();
  DebReader(const DebReader&) = delete;
  DebReader& operator=(const DebReader&) = delete;

  // Reads up to the control member. REQUIRES: called once, before data().
  Result<DebControl> control();
  // Positions on the data member and returns a reader over its entries.
  Result<std::unique_ptr<oci::TarReader>> data(oci::ReadLimits limits = {});

  // After the data member: refuses any further member (bar '_' ones) and
  // bytes beyond the last member, as dpkg-deb does.
  Result<void> finish();

  const std::string& what() const { return what_; }

 private:
  struct Impl;
  DebReader(std::unique_ptr<Impl> impl, std::string what);
  Result<bool> next_member(std::string& name);  // false at the end

  std::unique_ptr<Impl> impl_;
  std::string what_;
  DebControl control_;
  bool have_control_ = false;
};

// The control member names dpkg copies into /var/lib/dpkg/info/.
bool is_info_control_file(std::string_view name);

}  // namespace strata::layer
