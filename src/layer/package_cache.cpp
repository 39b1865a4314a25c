#include "layer/package_cache.hpp"

#include <cstring>

#include "util/fs.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'P', 'K'};
constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 64 + 8 + 8;

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }
  void rel(const Relation& r) {
    str(r.name);
    str(r.arch);
    u8(static_cast<std::uint8_t>(r.op));
    str(r.version);
  }
  void rels(const std::vector<Relation>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& r : v) rel(r);
  }
  void groups(const std::vector<OrGroup>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& g : v) rels(g);
  }

 private:
  std::string& out_;
};

// Bounds-checked reader: any overrun sets `bad` and yields empty values.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool bad = false;
  std::uint8_t u8() {
    if (!need(1)) return 0;
    return static_cast<std::uint8_t>(in_[pos_++]);
  }
  std::uint32_t u32() {
    if (!need(4)) return 0;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
    pos_ += 4;
    return v;
  }
  std::uint64_t u64() {
    if (!need(8)) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return v;
  }
  void str(std::string& s) {
    std::uint32_t n = u32();
    if (!need(n)) return;
    s.assign(in_.data() + pos_, n);
    pos_ += n;
  }
  // A count of items each at least `min_bytes` long: refuses counts the
  // remaining bytes cannot hold, so a damaged file cannot make us allocate.
  std::uint32_t count(std::size_t min_bytes) {
    std::uint32_t n = u32();
    if (!bad && static_cast<std::uint64_t>(n) * min_bytes > in_.size() - pos_) bad = true;
    return bad ? 0 : n;
  }
  void rel(Relation& r) {
    str(r.name);
    str(r.arch);
    std::uint8_t op = u8();
    if (op > static_cast<std::uint8_t>(RelOp::kGreater)) bad = true;
    r.op = static_cast<RelOp>(op);
    str(r.version);
  }
  void rels(std::vector<Relation>& v) {
    v.resize(count(13));
    for (auto& r : v) rel(r);
  }
  void groups(std::vector<OrGroup>& v) {
    v.resize(count(4));
    for (auto& g : v) rels(g);
  }
  bool at_end() const { return pos_ == in_.size(); }

 private:
  bool need(std::size_t n) {
    if (bad || in_.size() - pos_ < n) {
      bad = true;
      return false;
    }
    return true;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string encode_packages(const std::vector<Package>& packages, std::string_view sha256) {
  std::string body;
  Writer w(body);
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
    w.groups(p.pre_depends);
    w.groups(p.depends);
    w.rels(p.conflicts);
    w.rels(p.breaks);
    w.rels(p.provides);
  }
  std::string out;
  out.reserve(kHeaderSize + body.size());
  out.append(kMagic, sizeof kMagic);
  Writer h(out);
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
  Reader h(bytes.substr(8, kHeaderSize - 8));
  if (h.u32() != kPackageCacheFormat) return bad("format version differs");
  h.u32();
  if (bytes.substr(16, 64) != sha256) return bad("made from another index");
  Reader skip(bytes.substr(80, 16));
  std::uint64_t count = skip.u64();
  std::uint64_t body_size = skip.u64();
  if (body_size != bytes.size() - kHeaderSize) return bad("truncated or padded");
  std::string_view body = bytes.substr(kHeaderSize);
  if (count > body.size() / 40) return bad("package count exceeds the body");
  Reader r(body);
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
    r.groups(p.pre_depends);
    r.groups(p.depends);
    r.rels(p.conflicts);
    r.rels(p.breaks);
    r.rels(p.provides);
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
