#include "contract/model/version_range.hpp"

#include <gtest/gtest.h>

namespace strata::contract {
namespace {

Version v(const char* s) { return *parse_version(s); }

std::string npm(const char* s) {
  auto r = parse_npm_range(s);
  return r ? r->str() : "ERR";
}
std::string pep(const char* s) {
  auto r = parse_pep440(s);
  return r ? r->str() : "ERR";
}
std::string floor_of(const Result<Range>& r) {
  if (!r) return "ERR";
  auto f = r->floor();
  return f ? f->str() : "none";
}

TEST(Version, ParsesPartialAndPrefixedForms) {
  EXPECT_EQ(v("20").str(), "20.0.0");
  EXPECT_EQ(v("v20.11").str(), "20.11.0");
  EXPECT_EQ(v("1.22.0").str(), "1.22.0");
  EXPECT_EQ(v("1.21rc1").str(), "1.21.0-rc1");
  EXPECT_EQ(v("3.13.0b2").str(), "3.13.0-b2");
  EXPECT_FALSE(parse_version("x").has_value());
  EXPECT_FALSE(parse_version("twenty").has_value());
  EXPECT_FALSE(parse_version("").has_value());
  EXPECT_FALSE(parse_version("1.x.3").has_value());
}

TEST(Version, OrdersPreReleaseBeforeRelease) {
  EXPECT_LT(v("1.21rc1"), v("1.21.0"));
  EXPECT_LT(v("1.9.9"), v("1.10.0"));
  EXPECT_LT(v("9.99.99"), v("10.0.0"));
}

TEST(NpmRange, CaretTildeAndXRanges) {
  EXPECT_EQ(npm("^20"), ">=20.0.0 <21.0.0");
  EXPECT_EQ(npm("^1.2.3"), ">=1.2.3 <2.0.0");
  EXPECT_EQ(npm("^0.2.3"), ">=0.2.3 <0.3.0");
  EXPECT_EQ(npm("^0.0.3"), ">=0.0.3 <0.0.4");
  EXPECT_EQ(npm("~1.2.3"), ">=1.2.3 <1.3.0");
  EXPECT_EQ(npm("~1"), ">=1.0.0 <2.0.0");
  EXPECT_EQ(npm("20.x"), ">=20.0.0 <21.0.0");
  EXPECT_EQ(npm("1.2.x"), ">=1.2.0 <1.3.0");
  EXPECT_EQ(npm("*"), "*");
  EXPECT_EQ(npm(""), "*");
  EXPECT_EQ(npm("1.2.3"), "=1.2.3");
}

TEST(NpmRange, ComparatorsUnionsAndHyphens) {
  EXPECT_EQ(npm("^20 || ^22"), ">=20.0.0 <21.0.0 || >=22.0.0 <23.0.0");
  EXPECT_EQ(npm(">=18 <19 || >=20"), ">=18.0.0 <19.0.0 || >=20.0.0");
  EXPECT_EQ(npm(">= 18.17"), ">=18.17.0");
  EXPECT_EQ(npm(">18"), ">=19.0.0");
  EXPECT_EQ(npm(">18.2.0"), ">18.2.0");
  EXPECT_EQ(npm("<=20"), "<21.0.0");
  EXPECT_EQ(npm("1.2 - 2.3.4"), ">=1.2.0 <=2.3.4");
  EXPECT_EQ(npm("1.2.3 - 2"), ">=1.2.3 <3.0.0");
  EXPECT_EQ(floor_of(parse_npm_range(">18.2.0")), "18.2.1");
  EXPECT_EQ(floor_of(parse_npm_range("<20")), "none");
}

TEST(NpmRange, RejectsGarbage) {
  EXPECT_FALSE(parse_npm_range("banana").has_value());
  EXPECT_FALSE(parse_npm_range(">=").has_value());
  EXPECT_FALSE(parse_npm_range("^1.x.3").has_value());
  EXPECT_FALSE(parse_npm_range("1.2.3 - ").has_value());
  EXPECT_FALSE(parse_npm_range(std::string(10000, '^')).has_value());
}

TEST(Pep440, Specifiers) {
  EXPECT_EQ(pep(">=3.10"), ">=3.10.0");
  EXPECT_EQ(pep(">=3.9,<3.13"), ">=3.9.0 <3.13.0");
  EXPECT_EQ(pep("~=3.10"), ">=3.10.0 <4.0.0");
  EXPECT_EQ(pep("~=3.10.2"), ">=3.10.2 <3.11.0");
  EXPECT_EQ(pep("==3.12.*"), ">=3.12.0 <3.13.0");
  EXPECT_EQ(pep(">=3.8, !=3.9.0"), ">=3.8.0");
  EXPECT_EQ(pep("^3.11"), ">=3.11.0 <4.0.0");  // Poetry caret
  EXPECT_EQ(floor_of(parse_pep440(">3.10")), "3.10.1");
  EXPECT_FALSE(parse_pep440("3.10").has_value());      // no operator
  EXPECT_FALSE(parse_pep440(">=3.x.1").has_value());
  EXPECT_FALSE(parse_pep440(">=3.*").has_value());     // wildcard needs ==
  EXPECT_FALSE(parse_pep440("~=3").has_value());
}

TEST(Range, IntersectionAndConflicts) {
  auto a = *parse_npm_range("^20 || ^22");
  auto b = *parse_version_line("22");
  auto both = intersect(a, b);
  EXPECT_EQ(both.str(), ">=22.0.0 <23.0.0");
  EXPECT_EQ(both.floor()->str(), "22.0.0");
  auto c = *parse_npm_range("<18");
  EXPECT_TRUE(intersect(a, c).is_empty());
  EXPECT_TRUE(intersect(Range::exactly(v("20.11.0")), Range::exactly(v("20.11.1"))).is_empty());
  EXPECT_TRUE(Range::at_least(v("1.22.0")).contains(v("1.23.4")));
  EXPECT_FALSE(Range::at_least(v("1.22.0")).contains(v("1.21.9")));
}

TEST(VersionLine, ReleaseLines) {
  EXPECT_EQ(parse_version_line("20")->str(), ">=20.0.0 <21.0.0");
  EXPECT_EQ(parse_version_line("v20")->str(), ">=20.0.0 <21.0.0");
  EXPECT_EQ(parse_version_line("3.12")->str(), ">=3.12.0 <3.13.0");
  EXPECT_EQ(parse_version_line("20.11.1")->str(), "=20.11.1");
  EXPECT_FALSE(parse_version_line("lts/*").has_value());
}

}  // namespace
}  // namespace strata::contract
