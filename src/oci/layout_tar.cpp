#include "oci/layout_tar.hpp"

#include <algorithm>
#include <set>

#include "oci/digest.hpp"
#include "oci/tar_writer.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::oci {

namespace stdfs = std::filesystem;

namespace {

// The tar goes into the temporary file and the hasher at once.
class HashingFileSink final : public ByteSink {
 public:
  explicit HashingFileSink(fs::AtomicFile& file) : file_(file) {}
  Result<void> write(std::span<const std::byte> data) override {
    hasher_.update(data);
    return file_.write(data);
  }
  std::string finish() { return hasher_.finish_hex(); }

 private:
  fs::AtomicFile& file_;
  Hasher hasher_;
};

// One member's content into the tar, held to the size its header declared.
class MemberSink final : public ByteSink {
 public:
  MemberSink(TarWriter& tar, std::string what, std::uint64_t size) : tar_(tar), what_(std::move(what)), size_(size) {}
  Result<void> write(std::span<const std::byte> data) override {
    sent_ += data.size();
    if (sent_ > size_) return fail(ErrorCode::kFailedPrecondition, what_ + " grew while it was archived");
    return tar_.write_data(data);
  }
  Result<void> done() const {
    if (sent_ != size_) return fail(ErrorCode::kFailedPrecondition, what_ + " shrank while it was archived");
    return {};
  }

 private:
  TarWriter& tar_;
  std::string what_;
  std::uint64_t size_;
  std::uint64_t sent_ = 0;
};

struct Member {
  std::string path;  // within the tar (a directory without its trailing '/')
  bool directory = false;
  stdfs::path file;                      // a file of the directory, or empty
  const LayoutTarBlob* extra = nullptr;  // else a blob from elsewhere
  std::uint64_t size = 0;
};

// A regular file of the directory as a member; `required`: its absence is an error.
Result<std::optional<Member>> top_file(const stdfs::path& dir, const std::string& name, bool required) {
  const stdfs::path p = dir / name;
  std::error_code ec;
  auto status = stdfs::status(p, ec);
  if (!required && status.type() == stdfs::file_type::not_found) return std::nullopt;
  if (ec) return fail(fs::io_error("cannot read", p, ec.value()));
  if (!stdfs::is_regular_file(status)) return fail(ErrorCode::kInvalidArgument, p.string() + " is not a file");
  auto size = stdfs::file_size(p, ec);
  if (ec) return fail(fs::io_error("cannot read", p, ec.value()));
  return Member{name, false, p, nullptr, size};
}

Result<std::vector<Member>> layout_members(const stdfs::path& dir, const LayoutTarOptions& options) {
  std::vector<Member> out;
  for (const char* name : {"oci-layout", "index.json"}) {
    STRATA_TRY(auto m, top_file(dir, name, true));
    out.push_back(std::move(*m));
  }
  for (const auto& name : options.optional_files) {
    if (name.empty() || name.find('/') != std::string::npos || name == "blobs" || name == "oci-layout" ||
        name == "index.json") {
      return fail(ErrorCode::kInvalidArgument, "layout tar: " + str::quote(name) + " is not an optional top-level file");
    }
    STRATA_TRY(auto m, top_file(dir, name, false));
    if (m) out.push_back(std::move(*m));
  }
  out.push_back({"blobs", true, {}, nullptr, 0});
  std::set<std::string> algorithms;
  std::set<std::string> blobs;
  const stdfs::path blob_dir = dir / "blobs";
  std::error_code ec;
  stdfs::directory_iterator algs(blob_dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) return fail(fs::io_error("cannot list", blob_dir, ec.value()));
  ec.clear();
  for (; algs != stdfs::directory_iterator(); algs.increment(ec)) {
    if (ec) break;
    if (!algs->is_directory(ec)) continue;
    const std::string a = algs->path().filename().string();
    algorithms.insert(a);
    std::error_code list_ec;
    stdfs::directory_iterator files(algs->path(), list_ec);
    for (; !list_ec && files != stdfs::directory_iterator(); files.increment(list_ec)) {
      if (!files->is_regular_file(list_ec)) continue;
      const std::string name = files->path().filename().string();
      // Only blobs: not a killed writer's temporary file beside them.
      if (!Digest::parse(a + ":" + name)) continue;
      auto size = stdfs::file_size(files->path(), list_ec);
      if (list_ec) return fail(fs::io_error("cannot read", files->path(), list_ec.value()));
      std::string path = "blobs/" + a + "/" + name;
      blobs.insert(path);
      out.push_back({std::move(path), false, files->path(), nullptr, size});
    }
    if (list_ec) return fail(fs::io_error("cannot list", algs->path(), list_ec.value()));
  }
  if (ec) return fail(fs::io_error("cannot list", blob_dir, ec.value()));
  for (const auto& [path, blob] : options.extra_blobs) {
    const auto slash = path.rfind('/');
    const bool shaped = path.starts_with("blobs/") && slash > 6 && slash != std::string::npos &&
                        path.find('/', 6) == slash &&
                        Digest::parse(path.substr(6, slash - 6) + ":" + path.substr(slash + 1)).has_value();
    if (!shaped || blobs.contains(path)) continue;  // not a blob; or the directory's own file
    algorithms.insert(path.substr(6, slash - 6));
    out.push_back({path, false, {}, &blob, blob.size});
  }
  for (const auto& a : algorithms) out.push_back({"blobs/" + a, true, {}, nullptr, 0});
  std::sort(out.begin(), out.end(), [](const Member& a, const Member& b) { return tar_path_less(a.path, b.path); });
  return out;
}

}  // namespace

Result<void> write_layout_tar_to(const stdfs::path& dir, ByteSink& sink, const std::string& what,
                                 const LayoutTarOptions& options) {
  STRATA_TRY(auto list, layout_members(dir, options));
  TarWriter tar(sink);
  for (const auto& m : list) {
    TarEntry e;
    e.path = m.path;
    e.mtime = 0;
    if (m.directory) {
      e.type = TarEntryType::kDirectory;
      e.mode = 0755;
      STRATA_TRY_VOID(tar.add(e));
      continue;
    }
    e.type = TarEntryType::kRegular;
    e.mode = 0644;
    e.size = m.size;
    STRATA_TRY_VOID(tar.add(e));
    MemberSink content(tar, m.extra ? what + ": " + m.path : m.file.string(), m.size);
    if (m.extra) {
      STRATA_TRY_VOID(m.extra->read(content));
    } else {
      STRATA_TRY_VOID(fs::read_chunks(m.file, [&](std::string_view piece) { return content.write(as_bytes(piece)); }));
    }
    STRATA_TRY_VOID(content.done());
  }
  return tar.finish();
}

Result<std::string> write_layout_tar(const stdfs::path& dir, const stdfs::path& out, const LayoutTarOptions& options) {
  STRATA_TRY(auto file, fs::AtomicFile::create(out));
  HashingFileSink sink(file);
  STRATA_TRY_VOID(write_layout_tar_to(dir, sink, out.string(), options));
  std::string sha = sink.finish();
  STRATA_TRY_VOID(file.commit());
  return sha;
}

}  // namespace strata::oci
