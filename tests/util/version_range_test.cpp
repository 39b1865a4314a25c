#include "util/version_range.hpp"

#include <gtest/gtest.h>

#include <iterator>

namespace strata {
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

// Semver precedence (semver.org, item 11), which a mirror's tag order relies on.
TEST(Version, OrdersPreReleasesAsSemverDoes) {
  const char* ordered[] = {"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
                           "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0-rc.2", "1.0.0-rc.10", "1.0.0"};
  for (std::size_t i = 0; i + 1 < std::size(ordered); ++i) {
    EXPECT_LT(v(ordered[i]), v(ordered[i + 1])) << ordered[i] << " < " << ordered[i + 1];
    EXPECT_GT(v(ordered[i + 1]), v(ordered[i])) << ordered[i + 1] << " > " << ordered[i];
  }
  EXPECT_LT(v("3.13.0a1"), v("3.13.0b1"));
  EXPECT_LT(v("3.13.0b1"), v("3.13.0rc1"));
  EXPECT_EQ(v("v1.2"), v("1.2.0"));
}

// Strictly is semver's grammar: what a config strata reads may say.
TEST(Version, StrictlyIsSemver) {
  auto strict = [](const char* s) { return parse_version(s, VersionSyntax::kStrict); };
  EXPECT_EQ(strict("v1.2.3-rc.1")->str(), "1.2.3-rc.1");
  EXPECT_EQ(strict("12-slim")->str(), "12.0.0-slim");
  EXPECT_EQ(strict("1.2.3+build.5")->str(), "1.2.3");
  for (const char* s : {"1.2.3.4", "1.21rc1", "3.13.0b2", "1!2.0", "1.2.3-rc..1", "1.2.3-rc_1", "1.2.3-", "x", ""})
    EXPECT_FALSE(strict(s)) << s;
}

// Leniently, a fourth number is a release's own (Erlang/OTP 27.3.4.6 is a
// patch of 27.3.4, not 27.3.4 itself); PEP 440's suffixes and a fifth part
// are not kept.
TEST(Version, AFourthNumberIsKept) {
  EXPECT_EQ(v("27.3.4.6").str(), "27.3.4.6");
  EXPECT_EQ(v("27.3.4.0").str(), "27.3.4");
  EXPECT_LT(v("27.3.4"), v("27.3.4.6"));
  EXPECT_LT(v("27.3.4.6"), v("27.3.4.11"));
  EXPECT_LT(v("27.3.4.11"), v("27.3.5"));
  EXPECT_EQ(npm("=27.3.4.6"), "=27.3.4.6");
  EXPECT_FALSE(parse_npm_range("=27.3.4")->contains(v("27.3.4.6")));
  EXPECT_TRUE(parse_npm_range(">=27.3.4 <27.4.0")->contains(v("27.3.4.6")));
  EXPECT_TRUE(parse_npm_range("27.3")->contains(v("27.3.4.6")));
  EXPECT_EQ(v("1.2.3.post1").str(), "1.2.3");
  EXPECT_EQ(v("1.2.3.4.5").str(), "1.2.3.4");
  EXPECT_EQ(v("1.2.3.4-rc1").str(), "1.2.3.4-rc1");
  EXPECT_LT(v("1.2.3.3"), v("1.2.3.4-rc1"));
  EXPECT_FALSE(parse_version("1.2.3.1234567890123456789"));  // as for the first three
  EXPECT_EQ(parse_npm_range(">27.3.4.6")->floor()->str(), "27.3.4.7");
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

// Strictly, what npm would read as "*" or a lenient spelling is a mistake.
TEST(NpmRange, StrictlyAMistakeIsAnError) {
  auto strict = [](const char* s) {
    auto r = parse_npm_range(s, VersionSyntax::kStrict);
    return r ? r->str() : "ERR";
  };
  EXPECT_EQ(npm(">=1 ||"), ">=1.0.0 || *");  // leniently, as npm: any version
  EXPECT_EQ(strict(">=1 ||"), "ERR");
  EXPECT_EQ(strict(""), "ERR");
  EXPECT_EQ(strict("latest"), "ERR");
  EXPECT_EQ(strict(">=1.2.3.4"), "ERR");
  EXPECT_EQ(strict(">=1.21rc1"), "ERR");
  EXPECT_EQ(strict(">=1.2-rc1"), "ERR");  // a pre-release follows three numbers
  EXPECT_EQ(strict("^"), "ERR");
  EXPECT_EQ(strict(">=1.2 <2 || ^3.1"), ">=1.2.0 <2.0.0 || >=3.1.0 <4.0.0");
  EXPECT_EQ(strict("1.2 - 1.4"), ">=1.2.0 <1.5.0");
  EXPECT_EQ(strict(">= 1.2"), ">=1.2.0");
  EXPECT_EQ(strict("*"), "*");
}

// `selects` picks a pre-release only through an alternative that names one;
// `contains` (floors) does not ask.
TEST(Range, SelectsPreReleasesOnlyWhenNamed) {
  auto range = [](const char* s) { return *parse_npm_range(s, VersionSyntax::kStrict); };
  EXPECT_FALSE(range(">=1.2 <2").selects(v("1.3.0-rc1")));
  EXPECT_TRUE(range(">=1.2 <2").contains(v("1.3.0-rc1")));
  EXPECT_TRUE(range(">=1.2 <2").selects(v("1.3.0")));
  EXPECT_TRUE(range(">=1.3.0-rc0 <1.3.1").selects(v("1.3.0-rc1")));
  EXPECT_TRUE(range(">=1.0.0-rc0 >=1.2 <2").selects(v("1.3.0-rc1")));  // named, though not the tightest bound
  EXPECT_FALSE(range(">=1.3.0-rc0 <1.3.1 || >=2").selects(v("2.1.0-rc1")));
  EXPECT_FALSE(range("*").selects(v("12.0.0-slim")));
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
}  // namespace strata

namespace strata {
namespace {
// Thousands of || alternatives are hostile input (each later intersection pays
// for every one): an error naming the range, not a slow scan.
TEST(NpmRange, TooManyAlternativesIsAnError) {
  std::string many;
  for (int i = 0; i < 300; ++i) many += (i ? " || =1.0." : "=1.0.") + std::to_string(i);
  auto r = parse_npm_range(many);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("more than 256 alternatives"), std::string::npos) << r.error().message();
  std::string few = "=1.0.0 || =1.0.0 || >=1.0.0 <2.0.0";
  auto f = parse_npm_range(few);
  ASSERT_TRUE(f.has_value());
  // Intersecting keeps each alternative once.
  EXPECT_EQ(intersect(Range::all(), *f).str(), "=1.0.0 || >=1.0.0 <2.0.0");
  // Two ranges of 200 overlapping alternatives meet in up to 40000: past the
  // cap, the one interval that spans them (the same floor).
  std::string a, b;
  for (int i = 0; i < 200; ++i) {
    a += (i ? " || >=1." : ">=1.") + std::to_string(i) + ".0 <3." + std::to_string(i) + ".0";
    b += (i ? " || >=2." : ">=2.") + std::to_string(i) + ".0 <4.0.0";
  }
  Range met = intersect(*parse_npm_range(a), *parse_npm_range(b));
  ASSERT_EQ(met.any_of.size(), 1u);
  EXPECT_EQ(met.str(), ">=2.0.0 <3.199.0");
}
}  // namespace
}  // namespace strata
