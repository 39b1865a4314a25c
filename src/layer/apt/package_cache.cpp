#include "layer/apt/package_cache.hpp"

#include <cstring>

#include "util/binary.hpp"
#include "util/fs.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'P', 'K'};
constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 64 + 8 + 8;

// The layout of one package in the body, both directions (util/binary.hpp).
template <class Io, class Relations>
void relation_fields(Io& io, Relations& v) {
  io.list(v, 13, [&](auto& rel) {
    io.str(rel.name, rel.arch);
    io.enum8(rel.op, RelOp::kGreater);
    io.str(rel.version);
  });
}

template <class Io, class Groups>
void or_group_fields(Io& io, Groups& v) {
  io.list(v, 4, [&](auto& g) { relation_fields(io, g); });
}

template <class Io, class P>
void package_fields(Io& io, P& p) {
  io.str(p.name, p.version, p.architecture, p.source, p.source_version, p.filename, p.sha256);
  io.u64(p.size);
  io.enum8(p.multi_arch, MultiArch::kAllowed);
  io.bits(p.essential, p.important);
  io.u8(p.priority);
  or_group_fields(io, p.pre_depends);
  or_group_fields(io, p.depends);
  relation_fields(io, p.conflicts);
  relation_fields(io, p.breaks);
  relation_fields(io, p.provides);
}

}  // namespace

std::string encode_packages(const std::vector<Package>& packages, std::string_view sha256) {
  std::string body;
  bin::Writer w(body);
  for (const auto& p : packages) package_fields(w, p);
  std::string out;
  out.reserve(kHeaderSize + body.size());
  out.append(kMagic, sizeof kMagic);
  bin::Writer h(out);
  h.u32(kPackageCacheFormat);
  h.u32(0);
  std::string hash(sha256.substr(0, 64));
  hash.resize(64, ' ');
  out.append(hash);
  h.u64(packages.size());
  h.u64(body.size());
  out.append(body);
  return out;
}

Result<std::vector<Package>> decode_packages(std::string_view bytes, std::string_view sha256,
                                             std::string_view origin) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::kInvalidArgument, std::string(origin) + ": not a usable parsed-index cache: " +
                                                 std::string(why));
  };
  if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return bad("bad magic");
  bin::Reader h(bytes.substr(8, kHeaderSize - 8));
  if (h.u32() != kPackageCacheFormat) return bad("format version differs");
  h.u32();
  if (bytes.substr(16, 64) != sha256) return bad("made from another index");
  bin::Reader skip(bytes.substr(80, 16));
  std::uint64_t count = skip.u64();
  std::uint64_t body_size = skip.u64();
  if (body_size != bytes.size() - kHeaderSize) return bad("truncated or padded");
  std::string_view body = bytes.substr(kHeaderSize);
  if (count > body.size() / 40) return bad("package count exceeds the body");
  bin::Reader r(body);
  std::vector<Package> out(count);
  for (auto& p : out) {
    package_fields(r, p);
    if (r.bad) return bad("damaged body");
  }
  if (!r.at_end()) return bad("trailing bytes");
  return out;
}

stdfs::path package_cache_path(const stdfs::path& indexes_dir, std::string_view sha256) {
  return indexes_dir / "parsed" / std::string(sha256);
}

std::optional<std::vector<Package>> load_cached_packages(const stdfs::path& indexes_dir, std::string_view sha256) {
  stdfs::path p = package_cache_path(indexes_dir, sha256);
  std::error_code ec;
  auto size = stdfs::file_size(p, ec);
  if (ec) return std::nullopt;
  auto bytes = fs::read_file(p, size + 1);
  if (!bytes) return std::nullopt;
  auto decoded = decode_packages(*bytes, sha256, p.string());
  if (!decoded) return std::nullopt;
  return std::move(*decoded);
}

Result<void> store_cached_packages(const stdfs::path& indexes_dir, std::string_view sha256,
                                   const std::vector<Package>& packages) {
  stdfs::path p = package_cache_path(indexes_dir, sha256);
  STRATA_TRY_VOID(fs::make_dirs(p.parent_path()));
  return fs::write_file_atomic(p, encode_packages(packages, sha256));
}

}  // namespace strata::layer
