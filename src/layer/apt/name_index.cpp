#include "layer/apt/name_index.hpp"

#include <algorithm>
#include <map>

#include "layer/debian/package_encoding.hpp"
#include "util/binary.hpp"
#include "util/fs.hpp"
#include "util/mapped_file.hpp"

namespace strata::layer {

namespace {

constexpr std::string_view kMagic = "STRATANX";
constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 64 + 5 * 8;
constexpr std::size_t kKeyWords = 8;  // name offset, length; then (first, count) × named, providing, negating
// bookworm main is ~60 MB in this form; far more is not an entry strata wrote.
constexpr std::uint64_t kMaxIndexBytes = std::uint64_t{1} << 32;

std::uint32_t le32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint32_t>(u[0]) | static_cast<std::uint32_t>(u[1]) << 8 |
         static_cast<std::uint32_t>(u[2]) << 16 | static_cast<std::uint32_t>(u[3]) << 24;
}

std::uint64_t le64(const char* p) { return le32(p) | static_cast<std::uint64_t>(le32(p + 4)) << 32; }

std::string padded_sha(std::string_view sha256) {
  std::string s(sha256.substr(0, 64));
  s.resize(64, ' ');
  return s;
}

}  // namespace

std::uint32_t NameIndex::Postings::operator[](std::uint32_t i) const { return le32(p_ + 4 * std::size_t{i}); }

std::string encode_name_index(const std::vector<Package>& packages, std::string_view sha256) {
  struct Lists {
    std::vector<std::uint32_t> list[3];
  };
  std::map<std::string_view, Lists> keys;
  auto add = [](std::vector<std::uint32_t>& v, std::uint32_t i) {
    if (v.empty() || v.back() != i) v.push_back(i);
  };
  for (std::uint32_t i = 0; i < packages.size(); ++i) {
    const Package& p = packages[i];
    add(keys[p.name].list[0], i);
    for (const auto& r : p.provides) add(keys[r.name].list[1], i);
    for (const auto* rels : {&p.conflicts, &p.breaks})
      for (const auto& r : *rels) add(keys[r.name].list[2], i);
  }
  std::map<std::string_view, std::uint32_t> key_id;
  std::string strings, keytab, posts, body, offsets, names;
  bin::Writer kt(keytab), ps(posts), of(offsets), nm(names);
  std::uint32_t id = 0, posting = 0;
  for (const auto& [name, lists] : keys) {
    key_id[name] = id++;
    kt.u32(strings.size(), name.size());
    strings.append(name);
    for (const auto& l : lists.list) {
      kt.u32(posting, l.size());
      for (std::uint32_t r : l) ps.u32(r);
      posting += static_cast<std::uint32_t>(l.size());
    }
  }
  bin::Writer bw(body);
  for (const Package& p : packages) {
    of.u64(body.size());
    nm.u32(key_id[p.name]);
    package_fields(bw, p);
  }
  of.u64(body.size());
  std::string out(kMagic);
  bin::Writer h(out);
  h.u32(kNameIndexFormat, 0);
  out.append(padded_sha(sha256));
  h.u64(packages.size(), keys.size(), posting, strings.size(), body.size());
  out.reserve(out.size() + offsets.size() + names.size() + keytab.size() + posts.size() + strings.size() + body.size());
  for (const std::string* part : {&offsets, &names, &keytab, &posts, &strings, &body}) out.append(*part);
  return out;
}

Result<std::shared_ptr<const NameIndex>> NameIndex::open(std::shared_ptr<const void> owner, std::string_view bytes,
                                                         std::string_view sha256, std::string origin) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::kInvalidArgument, origin + ": not a usable package name index: " + std::string(why));
  };
  if (bytes.size() < kHeaderSize || !bytes.starts_with(kMagic)) return bad("bad magic");
  const char* h = bytes.data() + kMagic.size();
  if (le32(h) != kNameIndexFormat) return bad("format version differs");
  if (bytes.substr(16, 64) != padded_sha(sha256)) return bad("made from another index");
  h = bytes.data() + 80;
  std::uint64_t records = le64(h), keys = le64(h + 8), posts = le64(h + 16), strings = le64(h + 24),
                body = le64(h + 32);
  // Every count is bounded by the file before it is multiplied.
  std::uint64_t n = bytes.size();
  if (records >= n || keys >= n || posts >= n || strings > n || body > n) return bad("counts exceed the file");
  std::uint64_t want = kHeaderSize + 8 * (records + 1) + 4 * records + 4 * kKeyWords * keys + 4 * posts + strings + body;
  if (want != n) return bad("truncated or padded");
  std::shared_ptr<NameIndex> ix(new NameIndex());
  ix->owner_ = std::move(owner);
  ix->origin_ = origin;
  ix->bytes_ = bytes;
  ix->records_ = records;
  ix->keys_ = keys;
  ix->postings_count_ = posts;
  const char* p = bytes.data() + kHeaderSize;
  ix->offsets_ = p;
  p += 8 * (records + 1);
  ix->names_ = p;
  p += 4 * records;
  ix->keytab_ = p;
  p += 4 * kKeyWords * keys;
  ix->posts_ = p;
  p += 4 * posts;
  ix->strings_ = std::string_view(p, strings);
  p += strings;
  ix->body_ = std::string_view(p, body);
  // Structure: offsets rise to the body's end, names and postings point at
  // keys and records that exist, keys are sorted and unique.
  if (le64(ix->offsets_) != 0 || le64(ix->offsets_ + 8 * records) != body) return bad("record offsets");
  for (std::uint64_t i = 0, prev = 0; i <= records; ++i) {
    std::uint64_t o = le64(ix->offsets_ + 8 * i);
    if (o < prev) return bad("record offsets");
    prev = o;
  }
  for (std::uint64_t i = 0; i < records; ++i)
    if (le32(ix->names_ + 4 * i) >= keys) return bad("record names");
  for (std::uint64_t k = 0; k < keys; ++k) {
    const char* e = ix->keytab_ + 4 * kKeyWords * k;
    if (std::uint64_t{le32(e)} + le32(e + 4) > strings) return bad("key names");
    for (int l = 0; l < 3; ++l)
      if (std::uint64_t{le32(e + 8 + 8 * l)} + le32(e + 12 + 8 * l) > posts) return bad("postings");
    if (k > 0 && !(ix->key_name(static_cast<std::uint32_t>(k - 1)) < ix->key_name(static_cast<std::uint32_t>(k))))
      return bad("key order");
  }
  for (std::uint64_t i = 0; i < posts; ++i)
    if (le32(ix->posts_ + 4 * i) >= records) return bad("postings");
  return std::shared_ptr<const NameIndex>(std::move(ix));
}

std::shared_ptr<const NameIndex> NameIndex::of(const std::vector<Package>& packages, std::string origin,
                                               std::string_view sha256) {
  auto bytes = std::make_shared<const std::string>(encode_name_index(packages, sha256));
  auto ix = open(bytes, *bytes, sha256, std::move(origin));
  return ix ? *ix : nullptr;  // REQUIRES-level: the encoder's own output always checks
}

std::string_view NameIndex::key_name(std::uint32_t key) const {
  const char* e = keytab_ + 4 * kKeyWords * key;
  return strings_.substr(le32(e), le32(e + 4));
}

std::uint32_t NameIndex::first_key_from(std::string_view name) const {
  std::size_t lo = 0, hi = keys_;
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (key_name(static_cast<std::uint32_t>(mid)) < name) lo = mid + 1;
    else hi = mid;
  }
  return static_cast<std::uint32_t>(lo);
}

NameIndex::Postings NameIndex::postings(std::string_view name, int list) const {
  std::uint32_t lo = first_key_from(name);
  if (lo == keys_ || key_name(lo) != name) return {};
  const char* e = keytab_ + 4 * kKeyWords * lo + 8 + 8 * list;
  return Postings(posts_ + 4 * std::size_t{le32(e)}, le32(e + 4));
}

std::vector<std::string_view> NameIndex::names_with_prefix(std::string_view prefix) const {
  std::vector<std::string_view> out;
  for (auto k = first_key_from(prefix); k < keys_ && key_name(k).starts_with(prefix); ++k) {
    if (named(key_name(k)).size() > 0) out.push_back(key_name(k));
  }
  return out;
}

NameIndex::Postings NameIndex::named(std::string_view name) const { return postings(name, 0); }
NameIndex::Postings NameIndex::providing(std::string_view name) const { return postings(name, 1); }
NameIndex::Postings NameIndex::negating(std::string_view name) const { return postings(name, 2); }

std::string_view NameIndex::record_name(std::uint32_t record) const { return key_name(le32(names_ + 4 * std::size_t{record})); }

Result<Package> NameIndex::package(std::uint32_t record) const {
  std::uint64_t from = le64(offsets_ + 8 * std::size_t{record}), to = le64(offsets_ + 8 * (std::size_t{record} + 1));
  bin::Reader r(body_.substr(from, to - from));
  Package p;
  package_fields(r, p);
  if (r.bad || !r.at_end() || p.name != record_name(record)) {
    return fail(ErrorCode::kCorruption, origin_ + ": package record " + std::to_string(record) +
                                            " is damaged; remove the file and run again");
  }
  return p;
}

Result<std::vector<Package>> NameIndex::packages() const {
  std::vector<Package> out;
  out.reserve(records_);
  for (std::uint32_t i = 0; i < records_; ++i) {
    STRATA_TRY(Package p, package(i));
    out.push_back(std::move(p));
  }
  return out;
}

std::filesystem::path name_index_path(const std::filesystem::path& indexes_dir, std::string_view sha256) {
  return indexes_dir / "byname" / std::string(sha256);
}

std::shared_ptr<const NameIndex> open_name_index(const std::filesystem::path& indexes_dir, std::string_view sha256) {
  auto path = name_index_path(indexes_dir, sha256);
  auto mapped = fs::MappedFile::open(path, kMaxIndexBytes);
  if (!mapped) return nullptr;
  auto owner = std::make_shared<const fs::MappedFile>(std::move(*mapped));
  auto ix = NameIndex::open(owner, owner->bytes(), sha256, path.string());
  if (!ix) return nullptr;
  fs::mark_used(path);  // `cache gc` evicts the least recently used
  return *ix;
}

Result<void> store_name_index(const std::filesystem::path& indexes_dir, std::string_view sha256,
                              const NameIndex& index) {
  auto path = name_index_path(indexes_dir, sha256);
  STRATA_TRY_VOID(fs::make_dirs(path.parent_path()));
  return fs::write_file_atomic(path, index.bytes());
}

}  // namespace strata::layer
