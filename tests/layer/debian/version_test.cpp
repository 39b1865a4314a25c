#include "layer/debian/version.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <sstream>
#include <string>

#include "support/shell.hpp"

namespace strata::layer {
namespace {

TEST(Version, DpkgOrderingRules) {
  struct Case { const char* a; const char* b; int want; };
  for (auto c : std::vector<Case>{
           {"1.0", "1.0", 0},         {"1.0", "1.0-0", 0},     {"0:1.0", "1.0", 0},
           {"1.0~rc1", "1.0", -1},    {"1.0", "1.0+b1", -1},   {"1:0.1", "2.0", 1},
           {"1.0a", "1.0", 1},        {"1.0a", "1.0+", -1},    {"1.10", "1.9", 1},
           {"1.0-1", "1.0-1~bpo", 1}, {"2.36-9+deb12u4", "2.36-9+deb12u10", -1},
           {"1.001", "1.1", 0},       {"~~", "~", -1},         {"~", "", -1},
           {"1.0-a", "1.0-1", 1},     {"7.88.1-10+deb12u5", "7.88.1-10+deb12u12", -1},
       }) {
    int got = compare_versions(c.a, c.b);
    EXPECT_EQ(got, c.want) << c.a << " vs " << c.b;
    EXPECT_EQ(compare_versions(c.b, c.a), -c.want) << c.b << " vs " << c.a;
  }
}

TEST(Version, SatisfiesOperators) {
  EXPECT_TRUE(version_satisfies("2", RelOp::kGreaterEq, "2"));
  EXPECT_FALSE(version_satisfies("2", RelOp::kGreater, "2"));
  EXPECT_TRUE(version_satisfies("1:1", RelOp::kGreater, "9"));
  EXPECT_TRUE(version_satisfies("1~a", RelOp::kLess, "1"));
  EXPECT_TRUE(version_satisfies("x", RelOp::kAny, ""));
}

TEST(Version, ValidatesSyntax) {
  for (const char* ok : {"1", "1:2.3-4", "2.0~rc1+dfsg-1.1~bpo12+1", "0:0", "1.2-3-4"}) {
    EXPECT_TRUE(validate_version(ok, "t").has_value()) << ok;
  }
  for (const char* bad : {"", "a1", "1:", "x:1", "1-", "1 2", "1.0-a_b", ":1"}) {
    EXPECT_FALSE(validate_version(bad, "t").has_value()) << bad;
  }
}

// Cross-checks against two independent implementations: apt's own
// comparison (python3-apt's apt_pkg, the code apt resolves with) on random
// versions, and dpkg itself on a sample.
TEST(Version, AgreesWithAptOnRandomVersions) {
  std::mt19937 rng(42);
  const std::string alphabet = "0123456789.~+ab";
  auto gen = [&] {
    std::string s;
    if (rng() % 5 == 0) s += std::to_string(rng() % 3) + ":";
    s += std::to_string(rng() % 10);
    int n = static_cast<int>(rng() % 6);
    for (int i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
    if (rng() % 2) {
      s += "-" + std::to_string(rng() % 4);
      if (rng() % 3 == 0) s += "~b";
    }
    return s;
  };
  testing::TempDir dir;
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    pairs.emplace_back(gen(), gen());
    text += pairs.back().first + " " + pairs.back().second + "\n";
  }
  testing::write_file(dir / "pairs", text);
  // Debian's interpreter, where python3-apt is installed (not a pyenv one on PATH).
  auto apt = testing::shell(
      "/usr/bin/python3 -c 'import apt_pkg, sys\napt_pkg.init_system()\n"
      "for l in open(sys.argv[1]):\n a, b = l.split()\n c = apt_pkg.version_compare(a, b)\n"
      " print((c > 0) - (c < 0))' " + (dir / "pairs").string());
  ASSERT_EQ(apt.status, 0) << "python3-apt missing? (scripts/setup.sh test installs it)";
  std::istringstream answers(apt.out);
  for (const auto& [a, b] : pairs) {
    int want = 2;
    answers >> want;
    ASSERT_EQ(compare_versions(a, b), want) << a << " vs " << b;
  }
}

TEST(Version, AgreesWithDpkg) {
  const char* pairs[][2] = {{"1.0~rc1", "1.0"}, {"1:1.0", "2.0"}, {"1.0+b1", "1.0"}, {"1.2.3", "1.2.10"},
                            {"2.0-1", "2.0-1.1"}, {"1.0a", "1.0-1"}, {"0-0", "0"}, {"1.0", "1.0-0"}};
  for (auto& p : pairs) {
    for (const char* op : {"lt", "eq", "gt"}) {
      std::string cmd = std::string("dpkg --compare-versions '") + p[0] + "' " + op + " '" + p[1] + "'";
      int rc = std::system(cmd.c_str());
      int c = compare_versions(p[0], p[1]);
      bool mine = op[0] == 'l' ? c < 0 : (op[0] == 'e' ? c == 0 : c > 0);
      EXPECT_EQ(rc == 0, mine) << p[0] << " " << op << " " << p[1];
    }
  }
}

}  // namespace
}  // namespace strata::layer
