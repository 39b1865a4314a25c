// The binary cache of parsed Packages indexes: exact round trip, and every
// damaged or stale entry is refused (then re-parsed), never trusted.
#include "layer/apt/package_cache.hpp"

#include <gtest/gtest.h>

#include <random>

#include "layer/apt/packages_index.hpp"
#include "support/temp_dir.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"

namespace strata::layer {
namespace {

const std::string kSha(64, 'a');

std::vector<Package> sample() {
  const char* text = R"(Package: libglib2.0-0
Source: glib2.0 (2.74.6-2)
Version: 2.74.6-2+b1
Architecture: amd64
Multi-Arch: same
Priority: optional
Pre-Depends: libc6 (>= 2.34)
Depends: libffi8 (>= 3.4), libpcre2-8-0 (>= 10.22) | libpcre3, python3:any (>= 3.9~)
Breaks: glib-networking (<< 2.70.0~), libgirepository-1.0-1 (<< 1.62.1-6~)
Conflicts: libglib2.0-0-dbg
Provides: libglib-2.0 (= 2.74.6), glib-any
Filename: pool/main/g/glib2.0/libglib2.0-0_2.74.6-2+b1_amd64.deb
Size: 1413212
SHA256: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

Package: dash
Version: 0.5.12-2
Architecture: amd64
Essential: yes
Important: yes
Priority: required
Multi-Arch: foreign
Filename: pool/main/d/dash/dash_0.5.12-2_amd64.deb
Size: 94000
SHA256: fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
)";
  auto p = parse_packages_index(text, "sample");
  EXPECT_TRUE(p.has_value()) << p.error().message();
  return *p;
}

void expect_same(const Package& a, const Package& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.architecture, b.architecture);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.source_version, b.source_version);
  EXPECT_EQ(a.multi_arch, b.multi_arch);
  EXPECT_EQ(a.essential, b.essential);
  EXPECT_EQ(a.important, b.important);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.pre_depends, b.pre_depends);
  EXPECT_EQ(a.depends, b.depends);
  EXPECT_EQ(a.conflicts, b.conflicts);
  EXPECT_EQ(a.breaks, b.breaks);
  EXPECT_EQ(a.provides, b.provides);
  EXPECT_EQ(a.filename, b.filename);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.sha256, b.sha256);
}

TEST(PackageCache, RoundTripsEveryField) {
  auto pkgs = sample();
  ASSERT_EQ(pkgs.size(), 2u);
  EXPECT_EQ(pkgs[0].source, "glib2.0");
  EXPECT_EQ(pkgs[0].source_version, "2.74.6-2");
  EXPECT_EQ(pkgs[1].source, "dash");
  EXPECT_EQ(pkgs[1].source_version, "0.5.12-2");
  auto bytes = encode_packages(pkgs, kSha);
  auto back = decode_packages(bytes, kSha, "cache");
  ASSERT_TRUE(back.has_value()) << back.error().message();
  ASSERT_EQ(back->size(), pkgs.size());
  for (std::size_t i = 0; i < pkgs.size(); ++i) expect_same((*back)[i], pkgs[i]);
}

TEST(PackageCache, RefusesStaleOrDamagedEntries) {
  auto bytes = encode_packages(sample(), kSha);
  auto expect_refused = [&](std::string_view b, std::string_view sha, std::string_view why) {
    auto r = decode_packages(b, sha, "cache-file");
    ASSERT_FALSE(r.has_value()) << why;
    EXPECT_NE(r.error().message().find("cache-file: not a usable parsed-index cache"), std::string::npos);
  };
  expect_refused(bytes, std::string(64, 'b'), "another index");
  expect_refused(bytes.substr(0, bytes.size() - 1), kSha, "truncated");
  expect_refused(bytes + "x", kSha, "padded");
  std::string version = bytes;
  version[8] = static_cast<char>(kPackageCacheFormat + 1);
  expect_refused(version, kSha, "format version");
  expect_refused("", kSha, "empty");
  // Random damage never crashes or over-allocates; it is refused or decodes
  // to something bounded by the input.
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string d = bytes;
    for (int k = 0; k < 3; ++k) d[96 + rng() % (d.size() - 96)] = static_cast<char>(rng());
    auto r = decode_packages(d, kSha, "fuzz");
    if (r) {
      EXPECT_LE(r->size(), 2u);
    }
  }
}

// Parsed indexes cached by an earlier strata stay readable: the bytes of
// this sample are fixed for kPackageCacheFormat 1.
TEST(PackageCache, TheBytesAreFixedForThisFormat) {
  EXPECT_EQ(kPackageCacheFormat, 1u);
  EXPECT_EQ(sha256_hex(encode_packages(sample(), kSha)), "c3dc020fc9d6d51fe28ddfe61c50e492a4eae36b60dd81798a22b7c6e6ac3641");
}

TEST(PackageCache, StoresAtomicallyAndIgnoresDamagedFiles) {
  testing::TempDir tmp;
  const std::filesystem::path& dir = tmp.path();
  EXPECT_FALSE(load_cached_packages(dir, kSha).has_value());
  ASSERT_TRUE(store_cached_packages(dir, kSha, sample()).has_value());
  auto got = load_cached_packages(dir, kSha);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->size(), 2u);
  auto path = package_cache_path(dir, kSha);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 5);
  EXPECT_FALSE(load_cached_packages(dir, kSha).has_value());
}

}  // namespace
}  // namespace strata::layer
