// The by-name form of a Packages index: lookups by name, provided name and
// Conflicts/Breaks target give exactly the records that carry them, records
// decode to the packages encoded, and a damaged or stale file is refused
// (then rebuilt), never trusted.
#include "layer/apt/name_index.hpp"

#include <gtest/gtest.h>

#include <random>

#include "layer/apt/packages_index.hpp"
#include "layer/apt/resolver.hpp"
#include "support/temp_dir.hpp"
#include "util/fs.hpp"

namespace strata::layer {
namespace {

const std::string kSha(64, 'c');

std::vector<Package> sample_packages() {
  const char* text = R"(Package: mawk
Version: 1.3.4-1
Architecture: amd64
Priority: required
Provides: awk
Filename: pool/m/mawk.deb
Size: 10
SHA256: 0000000000000000000000000000000000000000000000000000000000000001

Package: gawk
Version: 5.2.1-2
Architecture: amd64
Provides: awk
Breaks: mawk (<< 1.3)
Filename: pool/g/gawk.deb
Size: 11
SHA256: 0000000000000000000000000000000000000000000000000000000000000002

Package: mawk
Version: 1.3.4-2
Architecture: i386
Conflicts: gawk, mawk:amd64
Filename: pool/m/mawk-i386.deb
Size: 12
SHA256: 0000000000000000000000000000000000000000000000000000000000000003
)";
  auto p = parse_packages_index(text, "sample");
  EXPECT_TRUE(p.has_value()) << p.error().message();
  return *p;
}

std::vector<std::uint32_t> records(NameIndex::Postings p) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < p.size(); ++i) out.push_back(p[i]);
  return out;
}

TEST(NameIndex, LooksUpNamesProvidesAndNegativeRelations) {
  auto ix = NameIndex::of(sample_packages());
  ASSERT_NE(ix, nullptr);
  EXPECT_EQ(ix->size(), 3u);
  EXPECT_EQ(records(ix->named("mawk")), (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(records(ix->named("gawk")), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(records(ix->named("awk")), (std::vector<std::uint32_t>{}));  // only provided
  EXPECT_EQ(records(ix->providing("awk")), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(records(ix->negating("mawk")), (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(records(ix->negating("gawk")), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(records(ix->named("nothing")).size(), 0u);
  EXPECT_EQ(records(ix->named("")).size(), 0u);
  EXPECT_EQ(ix->record_name(1), "gawk");
  // Real packages by prefix, sorted, once each; a name only provided is not one.
  using Names = std::vector<std::string_view>;
  EXPECT_EQ(ix->names_with_prefix(""), (Names{"gawk", "mawk"}));
  EXPECT_EQ(ix->names_with_prefix("ma"), (Names{"mawk"}));
  EXPECT_EQ(ix->names_with_prefix("aw"), Names{});
  EXPECT_EQ(ix->names_with_prefix("zz"), Names{});
  auto all = ix->packages();
  ASSERT_TRUE(all) << all.error().message();
  auto want = sample_packages();
  ASSERT_EQ(all->size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ((*all)[i].id(), want[i].id());
    EXPECT_EQ((*all)[i].provides, want[i].provides);
    EXPECT_EQ((*all)[i].conflicts, want[i].conflicts);
    EXPECT_EQ((*all)[i].breaks, want[i].breaks);
    EXPECT_EQ((*all)[i].sha256, want[i].sha256);
  }
}

TEST(NameIndex, RefusesStaleOrDamagedFiles) {
  std::string bytes = encode_name_index(sample_packages(), kSha);
  auto open = [&](const std::string& b, const std::string& sha = kSha) {
    auto owner = std::make_shared<const std::string>(b);
    return NameIndex::open(owner, *owner, sha, "ix-file");
  };
  ASSERT_TRUE(open(bytes));
  auto refused = [&](const std::string& b, const std::string& sha, const char* why) {
    auto r = open(b, sha);
    ASSERT_FALSE(r) << why;
    EXPECT_NE(r.error().message().find("ix-file: not a usable package name index"), std::string::npos) << why;
  };
  refused(bytes, std::string(64, 'd'), "another index");
  refused(bytes.substr(0, bytes.size() - 1), kSha, "truncated");
  refused(bytes + "x", kSha, "padded");
  refused("", kSha, "empty");
  std::string version = bytes;
  version[8] = static_cast<char>(kNameIndexFormat + 1);
  refused(version, kSha, "format version");
  // Random damage never crashes or reads out of bounds: the structure is
  // refused, or a record that does not decode is an error naming the file.
  std::mt19937 rng(11);
  for (int i = 0; i < 3000; ++i) {
    std::string d = bytes;
    for (int k = 0; k < 3; ++k) d[80 + rng() % (d.size() - 80)] = static_cast<char>(rng());
    auto r = open(d);
    if (!r) continue;
    for (const char* n : {"mawk", "gawk", "awk"}) {
      for (auto p : {(*r)->named(n), (*r)->providing(n), (*r)->negating(n)})
        for (std::uint32_t k = 0; k < p.size(); ++k) {
          ASSERT_LT(p[k], (*r)->size());
          auto pkg = (*r)->package(p[k]);
          if (!pkg) {
            EXPECT_NE(pkg.error().message().find("ix-file"), std::string::npos);
          }
        }
    }
  }
}

TEST(NameIndex, CachedFilesAreMappedAndDamagedOnesIgnored) {
  testing::TempDir tmp;
  EXPECT_EQ(open_name_index(tmp.path(), kSha), nullptr);
  auto ix = NameIndex::of(sample_packages(), "mem", kSha);
  ASSERT_TRUE(store_name_index(tmp.path(), kSha, *ix));
  auto mapped = open_name_index(tmp.path(), kSha);
  ASSERT_NE(mapped, nullptr);
  EXPECT_EQ(records(mapped->named("mawk")), (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(open_name_index(tmp.path(), std::string(64, 'e')), nullptr);
  auto path = name_index_path(tmp.path(), kSha);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 2);
  EXPECT_EQ(open_name_index(tmp.path(), kSha), nullptr);
  // A mapping stays whole when the file is replaced under it.
  ASSERT_TRUE(store_name_index(tmp.path(), kSha, *ix));
  auto held = open_name_index(tmp.path(), kSha);
  ASSERT_NE(held, nullptr);
  ASSERT_TRUE(fs::write_file_atomic(path, "replaced"));
  EXPECT_EQ(held->record_name(1), "gawk");
  EXPECT_TRUE(held->package(2));
}

// The structure checks when opened; a record is checked when a resolution
// reaches it, and a damaged one fails the resolution naming the file.
TEST(NameIndex, AResolutionReachingADamagedRecordFailsNamingTheFile) {
  std::string bytes = encode_name_index(sample_packages(), kSha);
  auto le = [&](std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
    return v;
  };
  const std::size_t header = 8 + 4 + 4 + 64 + 5 * 8;
  std::uint64_t body = le(80 + 32, 8);
  std::size_t gawk = bytes.size() - body + le(header + 8, 8);  // record 1's first field
  for (int i = 0; i < 4; ++i) bytes[gawk + i] = '\xff';
  auto owner = std::make_shared<const std::string>(bytes);
  auto ix = NameIndex::open(owner, *owner, kSha, "ix-file");
  ASSERT_TRUE(ix) << ix.error().message();
  Resolver r({});
  r.add_index(*ix, 500);
  auto res = r.resolve({"gawk"});
  ASSERT_FALSE(res);
  EXPECT_NE(res.error().message().find("ix-file: package record 1 is damaged"), std::string::npos)
      << res.error().message();
}

}  // namespace
}  // namespace strata::layer
