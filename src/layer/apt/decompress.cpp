#include "layer/apt/decompress.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

#include "oci/blob_io.hpp"
#include "oci/gunzip.hpp"

namespace strata::layer {

Result<std::string> decompress_index(std::string_view data, std::string_view what, std::uint64_t max_size) {
  if (oci::has_gzip_magic(oci::as_bytes(data))) {
    // Inflated with its trailers checked (libarchive's gzip filter checks none).
    auto out = oci::gunzip(data, what, max_size);
    if (!out && out.error().is(ErrorCode::kInvalidArgument)) {
      return fail(ErrorCode::kFailedPrecondition, out.error().message() + " (truncated or corrupt?)");
    }
    return out;
  }
  std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
  if (!a) return fail(ErrorCode::kIoError, "libarchive: out of memory");
  archive_read_support_filter_xz(a.get());
  archive_read_support_filter_bzip2(a.get());
  archive_read_support_format_raw(a.get());
  auto corrupt = [&](std::string_view stage) {
    const char* msg = archive_error_string(a.get());
    return fail(ErrorCode::kFailedPrecondition, std::string(what) + ": cannot " + std::string(stage) + ": " +
                                                    (msg ? msg : "unknown error") + " (truncated or corrupt?)");
  };
  if (archive_read_open_memory(a.get(), data.data(), data.size()) != ARCHIVE_OK) return corrupt("open");
  archive_entry* entry = nullptr;
  int rc = archive_read_next_header(a.get(), &entry);
  if (rc == ARCHIVE_EOF) return std::string();
  if (rc != ARCHIVE_OK) return corrupt("read header");
  std::string out;
  char buf[1 << 16];
  for (;;) {
    la_ssize_t n = archive_read_data(a.get(), buf, sizeof buf);
    if (n < 0) return corrupt("decompress");
    if (n == 0) break;
    if (out.size() + static_cast<std::uint64_t>(n) > max_size) {
      return fail(ErrorCode::kFailedPrecondition,
                  std::string(what) + ": decompresses to more than " + std::to_string(max_size) + " bytes; refused");
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace strata::layer
