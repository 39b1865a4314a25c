// TarWriter: writes a deterministic tar stream (docs/format/layer.md) into an
// oci::ByteSink. The same entries always give the same bytes, whatever the
// host, umask, timezone or locale: ustar headers, a PAX 'x' header only when a
// field does not fit, numeric owners with empty user/group names, whole-second
// mtimes, no atime/ctime.
//
// Usage: add() each entry in tar_path_less order (enforced), sending exactly
// entry.size content bytes with write_data() after a regular file's add(); then
// finish(). Fragments meant to be concatenated later finish(Trailer::kOmit).
// Not thread-safe; one writer per stream. After an error the writer is
// unusable (every later call repeats the error).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "oci/blob_io.hpp"
#include "oci/tar_entry.hpp"

namespace strata::oci {

inline constexpr std::size_t kTarBlock = 512;
// The fixed name of every PAX extended header strata writes.
inline constexpr std::string_view kPaxHeaderName = "././@PaxHeader";

class TarWriter {
 public:
  enum class Trailer { kWrite, kOmit };

  explicit TarWriter(oci::ByteSink& out) : out_(out) {}
  TarWriter(const TarWriter&) = delete;
  TarWriter& operator=(const TarWriter&) = delete;

  // Writes the header(s) of `entry`. REQUIRES: entry.path canonical and after
  // the previous entry in tar_path_less order; the previous regular file's
  // content complete. Refuses invalid entries with kInvalidArgument.
  Result<void> add(const oci::TarEntry& entry);
  // Content of the current regular file; may be called several times.
  Result<void> write_data(std::span<const std::byte> data);
  // add() then write_data(content); entry.size must equal content.size().
  Result<void> add_file(const oci::TarEntry& entry, std::string_view content);
  // Pads the last entry and, with Trailer::kWrite, appends the two zero blocks
  // that end an archive (no record padding).
  Result<void> finish(Trailer trailer = Trailer::kWrite);

  std::uint64_t bytes_written() const { return written_; }
  std::uint64_t entries() const { return entries_; }

 private:
  Result<void> emit(std::span<const std::byte> data);
  Result<void> close_entry();
  Result<void> check_entry(const oci::TarEntry& entry) const;

  oci::ByteSink& out_;
  std::optional<Error> error_;
  std::optional<std::string> last_path_;
  std::uint64_t remaining_ = 0;  // content bytes the current entry still expects
  std::uint64_t entry_size_ = 0;
  std::uint64_t written_ = 0;
  std::uint64_t entries_ = 0;
  bool finished_ = false;
};

// The header block(s) for one entry (PAX header + its records + ustar header),
// exactly as TarWriter writes them. Exposed for tests and the format doc.
Result<std::string> encode_tar_header(const oci::TarEntry& entry);

}  // namespace strata::oci
