#include "layer/bundle/layout_tar.hpp"

#include <algorithm>
#include <vector>

#include "oci/tar_writer.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

namespace {

// The tar goes into the temporary file and the hasher at once.
class AtomicFileSink final : public oci::ByteSink {
 public:
  explicit AtomicFileSink(fs::AtomicFile& file) : file_(file) {}
  Result<void> write(std::span<const std::byte> data) override {
    hasher_.update(data);
    return file_.write(data);
  }
  std::string finish() { return hasher_.finish_hex(); }

 private:
  fs::AtomicFile& file_;
  Hasher hasher_;
};

struct Member {
  std::string path;  // within the tar
  stdfs::path file;  // empty for a directory
  std::uint64_t size = 0;
};

Result<std::vector<Member>> members(const stdfs::path& dir) {
  std::vector<Member> out;
  std::error_code ec;
  for (const char* name : {"oci-layout", "index.json"}) {
    auto size = stdfs::file_size(dir / name, ec);
    if (ec) return fail(fs::io_error("cannot read", dir / name, ec.value()));
    out.push_back({name, dir / name, size});
  }
  out.push_back({"blobs", {}, 0});
  for (const auto& alg : stdfs::directory_iterator(dir / "blobs", ec)) {
    if (!alg.is_directory(ec)) continue;
    std::string a = alg.path().filename().string();
    out.push_back({"blobs/" + a, {}, 0});
    for (const auto& blob : stdfs::directory_iterator(alg.path(), ec)) {
      if (!blob.is_regular_file(ec)) continue;
      auto size = stdfs::file_size(blob.path(), ec);
      if (ec) return fail(fs::io_error("cannot read", blob.path(), ec.value()));
      out.push_back({"blobs/" + a + "/" + blob.path().filename().string(), blob.path(), size});
    }
    if (ec) return fail(fs::io_error("cannot list", alg.path(), ec.value()));
  }
  if (ec) return fail(fs::io_error("cannot list", dir / "blobs", ec.value()));
  std::sort(out.begin(), out.end(), [](const Member& a, const Member& b) { return oci::tar_path_less(a.path, b.path); });
  return out;
}

}  // namespace

Result<std::string> write_layout_tar(const stdfs::path& dir, const stdfs::path& out) {
  STRATA_TRY(auto list, members(dir));
  STRATA_TRY(auto file, fs::AtomicFile::create(out));
  AtomicFileSink sink(file);
  oci::TarWriter tar(sink);
  for (const auto& m : list) {
    oci::TarEntry e;
    e.path = m.path;
    e.mtime = 0;
    if (m.file.empty()) {
      e.type = oci::TarEntryType::kDirectory;
      e.mode = 0755;
      STRATA_TRY_VOID(tar.add(e));
      continue;
    }
    e.type = oci::TarEntryType::kRegular;
    e.mode = 0644;
    e.size = m.size;
    STRATA_TRY_VOID(tar.add(e));
    std::uint64_t sent = 0;
    STRATA_TRY_VOID(fs::read_chunks(m.file, [&](std::string_view piece) -> Result<void> {
      sent += piece.size();
      if (sent > m.size) return fail(ErrorCode::kFailedPrecondition, m.file.string() + " grew while it was archived");
      return tar.write_data(oci::as_bytes(piece));
    }));
    if (sent != m.size) return fail(ErrorCode::kFailedPrecondition, m.file.string() + " shrank while it was archived");
  }
  STRATA_TRY_VOID(tar.finish());
  std::string sha = sink.finish();
  STRATA_TRY_VOID(file.commit());
  return sha;
}

}  // namespace strata::layer
