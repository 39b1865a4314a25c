#include "oci/yaml_load.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/yaml_bombs.hpp"

namespace strata::oci {
namespace {

using testing::billion_laughs;

std::string error_of(std::string_view text, std::string_view what = "f.yaml", const YamlLimits& limits = {}) {
  auto r = load_yaml(text, what, limits);
  return r ? std::string("(loaded)") : r.error().message();
}

TEST(YamlLoad, ReadsADocumentWithAnchorsAsYamlCppDoes) {
  auto r = load_yaml("base: &b {image: debian, tags: [a, b]}\njobs:\n  - *b\n  - *b\n", "f.yaml");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ((*r)["jobs"][1]["tags"][1].Scalar(), "b");
  EXPECT_EQ((*r)["base"]["image"].Scalar(), "debian");
  auto empty = load_yaml("", "f.yaml");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->IsNull());
  // The first document only, as YAML::Load.
  auto two = load_yaml("a: 1\n---\nb: 2\n", "f.yaml");
  ASSERT_TRUE(two);
  EXPECT_EQ((*two)["a"].Scalar(), "1");
}

TEST(YamlLoad, RefusesABillionLaughsNamingTheFile) {
  EXPECT_EQ(error_of(billion_laughs(9), "cfg.yaml"),
            "cfg.yaml: line 7: YAML aliases expand to more than 100000 nodes (a 'billion laughs' document); refusing it");
  // Five levels add 123 450 nodes, past the limit; four add 12 340.
  EXPECT_NE(error_of(billion_laughs(5)).find("aliases expand to more than 100000 nodes"), std::string::npos);
  EXPECT_EQ(error_of(billion_laughs(4)), "(loaded)");
}

TEST(YamlLoad, RefusesAnAliasedLongStringRepeated) {
  // One 64 KiB string, aliased 200 times: 12.5 MiB from a 65 KiB file.
  std::string y = testing::long_anchor("s", 64 << 10) + "l:\n";
  for (int i = 0; i < 200; ++i) y += "  - *s\n";
  EXPECT_NE(error_of(y).find("f.yaml: line "), std::string::npos);
  EXPECT_NE(error_of(y).find("YAML aliases expand to more than 8.0 MiB of text"), std::string::npos) << error_of(y);
}

TEST(YamlLoad, RefusesAnAliasInsideItsOwnAnchor) {
  // yaml-cpp makes a cycle of it, which every walk of the tree follows forever.
  EXPECT_EQ(error_of("a: &a [1, *a]\n"),
            "f.yaml: line 1: a YAML alias refers to a node that contains it (a recursive alias, which no reader can "
            "expand); refusing it");
  EXPECT_NE(error_of("a: &a {b: {c: *a}}\n").find("recursive alias"), std::string::npos);
}

TEST(YamlLoad, RefusesDeepNestingWithAliasesExpanded) {
  std::string deep(70, '[');
  deep += std::string(70, ']');
  EXPECT_NE(error_of(deep).find("YAML nested more than 64 levels deep"), std::string::npos);
  std::string ok(64, '[');
  ok += std::string(64, ']');
  EXPECT_EQ(error_of(ok), "(loaded)");
  // 40 levels anchored, aliased 40 levels down: 80 once expanded.
  std::string forty = std::string(40, '[') + std::string(40, ']');
  std::string y = "a: &a " + forty + "\nb: " + std::string(40, '[') + "*a" + std::string(40, ']') + "\n";
  EXPECT_NE(error_of(y).find("levels deep (aliases expanded)"), std::string::npos);
}

TEST(YamlLoad, SyntaxErrorsNameTheFileOrNot) {
  EXPECT_NE(error_of("a: [b\n", "p.yaml").find("p.yaml: not valid YAML: "), std::string::npos);
  EXPECT_EQ(error_of("a: [b\n", "").find("not valid YAML: "), 0u);
  EXPECT_EQ(error_of(billion_laughs(9), "").find("line 7: YAML aliases expand"), 0u);
}

TEST(YamlLoad, LimitsAreTheCallers) {
  YamlLimits tight;
  tight.max_alias_nodes = 10;
  EXPECT_NE(error_of("a: &a [1, 2, 3, 4, 5]\nb: [*a, *a]\n", "f.yaml", tight).find("more than 10 nodes"),
            std::string::npos);
  EXPECT_EQ(error_of("a: &a [1, 2, 3, 4]\nb: [*a, *a]\n", "f.yaml", tight), "(loaded)");
}

}  // namespace
}  // namespace strata::oci
