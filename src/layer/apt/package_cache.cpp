#include "layer/apt/package_cache.hpp"

#include <cstring>

#include "util/binary.hpp"
#include "util/fs.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'P', 'K'};
constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 64 + 8 + 8;

void put(bin::Writer& w, const std::vector<Relation>& v) {
  w.u32(static_cast<std::uint32_t>(v.size()));
  for (const auto& r : v) {
    w.str(r.name);
    w.str(r.arch);
    w.u8(static_cast<std::uint8_t>(r.op));
    w.str(r.version);
  }
}

void put(bin::Writer& w, const std::vector<OrGroup>& v) {
  w.u32(static_cast<std::uint32_t>(v.size()));
  for (const auto& g : v) put(w, g);
}

void get(bin::Reader& r, std::vector<Relation>& v) {
  v.resize(r.count(13));
  for (auto& rel : v) {
    r.str(rel.name);
    r.str(rel.arch);
    std::uint8_t op = r.u8();
    if (op > static_cast<std::uint8_t>(RelOp::kGreater)) r.bad = true;
    rel.op = static_cast<RelOp>(op);
    r.str(rel.version);
  }
}

void get(bin::Reader& r, std::vector<OrGroup>& v) {
  v.resize(r.count(4));
  for (auto& g : v) get(r, g);
}

}  // namespace

std::string encode_packages(const std::vector<Package>& packages, std::string_view sha256) {
  std::string body;
  bin::Writer w(body);
  for (const auto& p : packages) {
    w.str(p.name);
    w.str(p.version);
    w.str(p.architecture);
    w.str(p.source);
    w.str(p.source_version);
    w.str(p.filename);
    w.str(p.sha256);
    w.u64(p.size);
    w.u8(static_cast<std::uint8_t>(p.multi_arch));
    w.u8(static_cast<std::uint8_t>((p.essential ? 1 : 0) | (p.important ? 2 : 0)));
    w.u8(static_cast<std::uint8_t>(p.priority));
    put(w, p.pre_depends);
    put(w, p.depends);
    put(w, p.conflicts);
    put(w, p.breaks);
    put(w, p.provides);
  }
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
    r.str(p.name);
    r.str(p.version);
    r.str(p.architecture);
    r.str(p.source);
    r.str(p.source_version);
    r.str(p.filename);
    r.str(p.sha256);
    p.size = r.u64();
    std::uint8_t ma = r.u8();
    if (ma > static_cast<std::uint8_t>(MultiArch::kAllowed)) r.bad = true;
    p.multi_arch = static_cast<MultiArch>(ma);
    std::uint8_t flags = r.u8();
    p.essential = (flags & 1) != 0;
    p.important = (flags & 2) != 0;
    p.priority = r.u8();
    get(r, p.pre_depends);
    get(r, p.depends);
    get(r, p.conflicts);
    get(r, p.breaks);
    get(r, p.provides);
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
