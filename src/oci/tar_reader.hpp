// TarReader: reads a layer tar (plain, gzip, zstd; also xz and bzip2 for
// imported root filesystems) entry by entry with libarchive, and refuses
// hostile archives with an error naming the archive and the entry:
//   - gzip members whose trailer (CRC-32, length) does not match their
//     content (gunzip.hpp; read to the end of the input, so the last
//     member's trailer is checked too);
//   - absolute names and ".." components (path traversal);
//   - hardlinks whose target is not an earlier non-directory entry of the
//     same archive (links out of the layer);
//   - entries below a symlink created earlier in the same archive (writing
//     through a symlink), and relative symlink targets that climb above the
//     root ("a/l -> ../../x");
//   - more than ReadLimits::max_entries entries, names longer than
//     max_path_bytes, sockets;
//   - decompression bombs: more than max_uncompressed_bytes in total, or an
//     uncompressed/compressed ratio above max_ratio once past ratio_grace_bytes.
//     "Uncompressed" counts the bytes the reader produces, the zeros of a
//     sparse file's holes included (a 10 KiB sparse tar can declare 10 GiB).
// Sparse files (GNU, PAX) read as GNU tar extracts them: holes as zeros,
// an all-hole file as all zeros.
// Absolute symlink targets are allowed: they resolve inside the image root.
//
// Memory stays bounded whatever the archive size: content is streamed to a
// ByteSink. Not thread-safe; one reader per archive.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "oci/blob_io.hpp"
#include "oci/descriptor.hpp"
#include "oci/tar_entry.hpp"

namespace strata::oci {

class Store;

enum class DuplicatePaths {
  kReport,  // counted (duplicate_paths()); the archive reads on
  kRefuse,  // the second entry of a path is an error
};

struct ReadLimits {
  std::uint64_t max_uncompressed_bytes = std::uint64_t{64} << 30;  // 64 GiB
  // Why max_uncompressed_bytes is what it is, when a caller lowered it to
  // something the user can change ("the free space of TMPDIR …"): said in
  // the refusal.
  std::string max_uncompressed_why;
  std::uint64_t max_ratio = 1000;                                   // uncompressed per compressed byte
  std::uint64_t ratio_grace_bytes = std::uint64_t{256} << 20;       // ratio checked past 256 MiB
  std::uint64_t max_entries = 4'000'000;
  std::size_t max_path_bytes = 4096;
  DuplicatePaths duplicates = DuplicatePaths::kReport;
};

class TarReader {
 public:
  // Fills `buf` and returns the byte count; 0 means end of input.
  using Pull = std::function<Result<std::size_t>(std::span<std::byte> buf)>;

  // `what` names the archive in every error ("layer sha256:…", a file path).
  static Result<std::unique_ptr<TarReader>> open(Pull pull, ReadLimits limits, std::string what);
  static Result<std::unique_ptr<TarReader>> open_file(const std::filesystem::path& path, ReadLimits limits);
  // Streams a blob from a store (fetched on a helper thread through a small
  // bounded queue, verified against the descriptor's digest and size).
  static Result<std::unique_ptr<TarReader>> open_blob(Store& store, const Descriptor& desc, ReadLimits limits);
  ~TarReader();
  TarReader(const TarReader&) = delete;
  TarReader& operator=(const TarReader&) = delete;

  // The next entry, std::nullopt at the end of the archive. Skips any unread
  // content of the previous entry. The root ("./") comes back with path "".
  Result<std::optional<TarEntry>> next();
  // Streams the rest of the current entry's content into `sink`.
  Result<void> read_data(ByteSink& sink);
  // The current entry's content, refusing entries larger than `limit`.
  Result<std::string> read_data_string(std::size_t limit);

  const std::string& what() const { return what_; }
  std::uint64_t entries() const { return entries_; }
  // Paths seen more than once so far (each once, the first kMaxNamedDuplicates
  // in archive order) and how many entries repeated a path.
  static constexpr std::size_t kMaxNamedDuplicates = 20;
  const std::vector<std::string>& duplicate_paths() const { return duplicate_paths_; }
  std::uint64_t duplicate_entries() const { return duplicate_entries_; }

 private:
  struct Impl;
  explicit TarReader(std::unique_ptr<Impl> impl, std::string what, ReadLimits limits);
  Result<void> check_budget();
  Result<void> archive_error(std::string_view doing);
  Result<void> drain();
  Result<void> write_hole(ByteSink& sink, std::uint64_t bytes);

  std::unique_ptr<Impl> impl_;
  std::string what_;
  ReadLimits limits_;
  std::uint64_t entries_ = 0;
  std::uint64_t trailing_ = 0;         // bytes after the tar's end marker
  std::uint64_t holes_ = 0;            // zeros produced for holes of sparse files
  std::uint64_t content_size_ = 0;     // the current entry's size
  std::uint64_t content_at_ = 0;       // how much of its content was produced
  bool sparse_ = false;                // the current entry is a sparse file
  bool data_pending_ = false;
  std::string current_;                // path of the current entry
  std::map<std::string, bool> seen_;   // every path seen → its last entry is a non-directory (hardlink targets)
  std::set<std::string> symlinks_;     // symlinks seen in this archive
  std::vector<std::string> duplicate_paths_;
  std::uint64_t duplicate_entries_ = 0;
};

// One line for a reader that saw duplicate paths ("" when it saw none):
// how many, the first few, and who refuses such a layer.
std::string describe_duplicate_paths(const TarReader& reader);

}  // namespace strata::oci
