// Which tags a mirror's repository entry keeps: regexes, semver ranges,
// newest N, pre-releases, and errors that name the filter.
#include "oci/tag_filter.hpp"

#include <gtest/gtest.h>

namespace strata::oci {
namespace {

const std::vector<std::string> kTags = {"1.0.0", "1.2.0", "v1.2.5", "1.3.0-rc1", "1.3.0", "1.10.1", "2.0.0",
                                        "12",    "12-slim", "latest", "nightly", "0.3.1", "0.4.0"};

std::vector<std::string> pick(const TagFilter& f) {
  auto r = select_tags(kTags, f, "m.yaml: repositories[0]: tags");
  EXPECT_TRUE(r) << r.error().message();
  return r ? *r : std::vector<std::string>{};
}

TEST(TagFilterTest, RegexesIncludeThenExclude) {
  TagFilter f;
  EXPECT_EQ(pick(f).size(), kTags.size());
  f.include = {"^1\\.", "^latest$"};
  f.exclude = {"-rc", "^1\\.0\\."};
  EXPECT_EQ(pick(f), (std::vector<std::string>{"1.10.1", "1.2.0", "1.3.0", "latest"}));  // by name
}

TEST(TagFilterTest, SemverRangesOrderHighToLow) {
  TagFilter f;
  f.semver = ">=1.2 <2";
  EXPECT_EQ(pick(f), (std::vector<std::string>{"1.10.1", "1.3.0", "v1.2.5", "1.2.0"}));
  f.semver = "^0.3";
  EXPECT_EQ(pick(f), (std::vector<std::string>{"0.3.1"}));
  f.semver = "~1.2.1";
  EXPECT_EQ(pick(f), (std::vector<std::string>{"v1.2.5"}));
  f.semver = "1.3.x || >=12";
  EXPECT_EQ(pick(f), (std::vector<std::string>{"12", "1.3.0"}));
  f.semver = "=2.0.0";
  EXPECT_EQ(pick(f), (std::vector<std::string>{"2.0.0"}));
  // A pre-release only when the range names one.
  f.semver = ">=1.3.0-rc0 <1.3.1";
  EXPECT_EQ(pick(f), (std::vector<std::string>{"1.3.0", "1.3.0-rc1"}));
  f.semver = "*";
  auto all = pick(f);
  EXPECT_EQ(std::count(all.begin(), all.end(), "latest"), 0);  // not a version
  EXPECT_EQ(std::count(all.begin(), all.end(), "12-slim"), 0);  // a pre-release
}

TEST(TagFilterTest, NewestKeepsTheHighestVersions) {
  TagFilter f;
  f.newest = 3;
  EXPECT_EQ(pick(f), (std::vector<std::string>{"12", "12-slim", "2.0.0"}));
  f.exclude = {"-"};
  f.semver = "<2";
  f.newest = 2;
  EXPECT_EQ(pick(f), (std::vector<std::string>{"1.10.1", "1.3.0"}));
}

TEST(TagFilterTest, VersionsCompareAsSemverDoes) {
  auto v = [](std::string_view s) { return *parse_tag_version(s); };
  EXPECT_LT(compare_versions(v("1.2.0-rc.2"), v("1.2.0-rc.10")), 0);
  EXPECT_LT(compare_versions(v("1.2.0-rc.10"), v("1.2.0")), 0);
  EXPECT_LT(compare_versions(v("1.9"), v("1.10")), 0);
  EXPECT_EQ(compare_versions(v("v1.2"), v("1.2.0")), 0);
  EXPECT_FALSE(parse_tag_version("latest"));
  EXPECT_FALSE(parse_tag_version("1.2.3.4"));
}

TEST(TagFilterTest, MistakesNameTheFilter) {
  for (auto [semver, include] : std::vector<std::pair<std::string, std::string>>{
           {">=banana", ""}, {"^", ""}, {">=1 ||", ""}, {"", "(unclosed"}}) {
    TagFilter f;
    f.semver = semver;
    if (!include.empty()) f.include = {include};
    auto r = check_tag_filter(f, "m.yaml: repositories[0]: tags");
    ASSERT_FALSE(r) << semver << include;
    EXPECT_NE(r.error().message().find("m.yaml: repositories[0]: tags"), std::string::npos) << r.error().message();
  }
}

}  // namespace
}  // namespace strata::oci
