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
  f.semver = "1.2 - 1.3";  // a hyphen range: >=1.2.0 <1.4.0
  EXPECT_EQ(pick(f), (std::vector<std::string>{"1.3.0", "v1.2.5", "1.2.0"}));
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
  EXPECT_LT(v("1.2.0-rc.2"), v("1.2.0-rc.10"));
  EXPECT_LT(v("1.2.0-rc.10"), v("1.2.0"));
  EXPECT_LT(v("1.9"), v("1.10"));
  EXPECT_EQ(v("v1.2"), v("1.2.0"));
  EXPECT_FALSE(parse_tag_version("latest"));
  EXPECT_FALSE(parse_tag_version("1.2.3.4"));
}

TEST(TagFilterTest, MistakesNameTheFilter) {
  for (auto [semver, include] : std::vector<std::pair<std::string, std::string>>{
           {">=banana", ""}, {"^", ""}, {">=1 ||", ""}, {" ", ""}, {"latest", ""}, {">=1.2.3.4", ""}, {"", "(unclosed"}}) {
    TagFilter f;
    f.semver = semver;
    if (!include.empty()) f.include = {include};
    auto r = check_tag_filter(f, "m.yaml: repositories[0]: tags");
    ASSERT_FALSE(r) << semver << include;
    EXPECT_NE(r.error().message().find("m.yaml: repositories[0]: tags"), std::string::npos) << r.error().message();
  }
}

// A registry's tag list is its bytes. std::regex recursed once per
// character and overflowed the stack on this tag, whatever the pattern.
TEST(TagFilterTest, AFiftyThousandCharacterTagNeverReachesAPattern) {
  const std::string huge(50000, 'a');
  TagFilter f;
  f.include = {".*"};
  auto r = select_tags({"v1", huge, "v2"}, f, "m.yaml: repositories[0]: tags");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, (std::vector<std::string>{"v1", "v2"}));
}

// A backtracking engine takes 2^n steps for `^(a+)+$` on n a's and a
// mismatch at the end; RE2 is linear. The test has no clock: it returns.
TEST(TagFilterTest, ACatastrophicPatternFinishes) {
  const std::string tag = std::string(40, 'a') + "-";  // a valid tag: it reaches the pattern
  TagFilter f;
  f.include = {"^(a+)+$"};
  auto r = select_tags({tag, "aaaa"}, f, "m.yaml: repositories[0]: tags");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, (std::vector<std::string>{"aaaa"}));
  // The review's input: not a valid tag ('!'), so it never reaches the pattern.
  r = select_tags({std::string(30, 'a') + "!"}, f, "m.yaml: repositories[0]: tags");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->empty());
  f.include = {};
  f.exclude = {"^(a|aa)+$"};
  r = select_tags({tag, "aaaa"}, f, "m.yaml: repositories[0]: tags");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, (std::vector<std::string>{tag}));
}

TEST(TagFilterTest, TagsBreakingTheGrammarAreSetAsideNotMatched) {
  const std::string longest(128, 'x'), too_long(129, 'x');
  const std::vector<std::string> listed = {"v1", std::string(30, 'a') + "!", "", ".hidden", "-rc", "has space",
                                           "caf\xc3\xa9", longest, too_long, "ok_1.2-3"};
  TagFilter f;
  f.include = {"^(a+)+$", "."};
  std::vector<std::string> invalid;
  auto r = select_tags(listed, f, "m.yaml: repositories[0]: tags", &invalid);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, (std::vector<std::string>{"ok_1.2-3", "v1", longest}));
  EXPECT_EQ(invalid, (std::vector<std::string>{std::string(30, 'a') + "!", "", ".hidden", "-rc", "has space",
                                               "caf\xc3\xa9", too_long}));
}

// RE2 syntax is the contract: what RE2 refuses (backreferences, lookaround)
// is a config error with RE2's own reason, naming the filter.
TEST(TagFilterTest, PatternsRE2RefusesAreErrorsWithItsReason) {
  for (auto [pattern, reason] : std::vector<std::pair<std::string, std::string>>{
           {"^(a)\\1$", "invalid escape sequence"},
           {"^v(?=1)", "invalid perl operator"},
           {"(?<!rc)$", "invalid perl operator"},
           {"(unclosed", "missing )"}}) {
    TagFilter f;
    f.exclude = {pattern};
    auto r = check_tag_filter(f, "m.yaml: repositories[2]: tags");
    ASSERT_FALSE(r) << pattern;
    const std::string& m = r.error().message();
    EXPECT_NE(m.find("m.yaml: repositories[2]: tags: `exclude`"), std::string::npos) << m;
    EXPECT_NE(m.find(reason), std::string::npos) << m;
    EXPECT_NE(m.find("RE2"), std::string::npos) << m;
  }
  TagFilter ok;
  ok.include = {"^v\\d+\\.\\d+(?:\\.\\d+)?$", "(?i)^LATEST$"};
  EXPECT_TRUE(check_tag_filter(ok, "m.yaml"));
}

}  // namespace
}  // namespace strata::oci
