#include "layer/apt/lock_file.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.hpp"
#include "support/yaml_bombs.hpp"

namespace strata::layer {
namespace {

Lock sample_lock() {
  Lock l;
  l.platform = "linux/amd64";
  l.request = {"zlib1g-dev", "app"};
  l.sources.push_back(
      {"http://deb.example/debian", "bookworm", {"main"}, std::string(64, 'a'), 1700000000, "ABCD", std::nullopt});
  l.packages.push_back({"zlib1g", "1:1.2.13.dfsg-1", "amd64", "pool/main/z/zlib1g.deb", 10, std::string(64, 'b'), 0});
  l.packages.push_back({"app", "1.0", "all", "pool/main/a/app.deb", 5, std::string(64, 'c'), 0});
  return l;
}

TEST(LockFile, RoundTripsWithDeterministicBytes) {
  Lock l = sample_lock();
  std::string a = write_lock(l);
  std::swap(l.packages[0], l.packages[1]);
  EXPECT_EQ(write_lock(l), a);  // package order does not matter
  auto parsed = parse_lock(a, "lock.yaml");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message();
  EXPECT_EQ(parsed->packages[0].name, "app");
  EXPECT_EQ(parsed->packages[0].version, "1.0");  // a string, not the float 1
  EXPECT_EQ(parsed->packages[1].version, "1:1.2.13.dfsg-1");
  EXPECT_EQ(parsed->sources[0].date, 1700000000);
  EXPECT_EQ(write_lock(*parsed), a);
}

TEST(LockFile, TrustedKeysAreRecordedAndOptional) {
  Lock l = sample_lock();
  std::string legacy = write_lock(l);  // a lock from before keys were recorded
  EXPECT_EQ(legacy.find("keys:"), std::string::npos);
  auto old = parse_lock(legacy, "old.yaml");
  ASSERT_TRUE(old) << old.error().message();
  EXPECT_FALSE(old->sources[0].keys);
  l.sources[0].keys = std::vector<std::string>{};  // signed by the default keyrings: recorded as none
  auto none = parse_lock(write_lock(l), "none.yaml");
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_EQ(none->sources[0].keys, std::vector<std::string>{});
  l.sources[0].keys = std::vector<std::string>{"sha256:" + std::string(64, 'd'), "trusted=yes"};
  std::string text = write_lock(l);
  auto parsed = parse_lock(text, "lock.yaml");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->sources[0].keys, l.sources[0].keys);
  EXPECT_EQ(write_lock(*parsed), text);
  std::string bad = text;
  std::size_t from = bad.find("keys: [");
  bad.replace(from, bad.find(']', from) + 1 - from, "keys: {a: 1}");
  auto refused = parse_lock(bad, "bad.yaml");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("sources[0].keys"), std::string::npos) << refused.error().message();
}

TEST(LockFile, ValidationNamesTheProblem) {
  std::string good = write_lock(sample_lock());
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    auto pos = s.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    return s.replace(pos, from.size(), to);
  };
  struct Case { std::string text; std::string message; };
  for (const auto& c : std::vector<Case>{
           {"format: 2\n", "format: unsupported lock format"},
           {"[1, 2", "not valid YAML"},
           {replace(std::string(64, 'b'), "xyz"), "packages[1] (zlib1g).sha256: not a lowercase SHA-256"},
           {replace("pool/main/a/app.deb", "../../etc/passwd"), "packages[0] (app).filename: unsafe path"},
           {replace("size: 5", "size: -5"), "packages[0] (app).size"},
           {replace("source: 0", "source: 3"), "packages[0] (app).source: not an index into sources"},
           {replace("\"1.0\"", "\"x1\""), "invalid version"},
           {replace("2023-11-14T22:13:20Z", "yesterday"), "sources[0].date"},
       }) {
    auto r = parse_lock(c.text, "lock.yaml");
    ASSERT_FALSE(r.has_value()) << c.text;
    EXPECT_NE(r.error().message().find(c.message), std::string::npos) << r.error().message();
    EXPECT_EQ(r.error().message().rfind("lock.yaml: ", 0), 0u);
  }
}

// A lock travels in bundles: one whose aliases expand without end is
// refused before any tree is walked (a key the reader does not know was
// parsed, and kept, all the same).
TEST(LockFile, RefusesABillionLaughsNamingTheFile) {
  auto r = parse_lock(write_lock(sample_lock()) + testing::billion_laughs(9), "lock.yaml");
  ASSERT_FALSE(r.has_value()) << "a billion-laughs lock was read";
  EXPECT_EQ(r.error().message().rfind("lock.yaml: line ", 0), 0u) << r.error().message();
  EXPECT_NE(r.error().message().find(": YAML aliases expand to more than 100000 nodes (a 'billion laughs' document); "
                                     "refusing it"),
            std::string::npos)
      << r.error().message();
}

TEST(LockFile, ReadFromAFileUpToOneBound) {
  testing::TempDir t;
  std::ofstream(t / "ok.lock") << write_lock(sample_lock());
  auto read = read_lock_file(t / "ok.lock");
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(write_lock(*read), write_lock(sample_lock()));
  std::ofstream(t / "big.lock") << write_lock(sample_lock());
  std::filesystem::resize_file(t / "big.lock", kMaxLockBytes + 1);  // sparse: cheap
  auto big = read_lock_file(t / "big.lock");
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message().find("more than the limit of " + std::to_string(kMaxLockBytes)), std::string::npos)
      << big.error().message();
}

}  // namespace
}  // namespace strata::layer
