// A contract read back is the contract written: YAML and JSON, every fixture
// repository; bad documents are errors naming the file and the field.
#include "contract/model/contract_reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "contract/scan/scan.hpp"
#include "contract/model/serialize.hpp"
#include "support/yaml_bombs.hpp"

namespace strata::contract {
namespace {

TEST(ContractReader, EveryFixtureRoundTripsThroughYamlAndJson) {
  int n = 0;
  for (const auto& d : std::filesystem::directory_iterator(std::string(STRATA_TESTDATA_DIR) + "/repos")) {
    auto c = scan_repository(d.path());
    ASSERT_TRUE(c) << d.path();
    for (const std::string& text : {to_yaml(*c), to_json(*c)}) {
      auto back = parse_contract(text, d.path().string());
      ASSERT_TRUE(back) << back.error().message();
      EXPECT_EQ(to_json(*back), to_json(*c)) << d.path();
      EXPECT_EQ(contract_digest(*back), contract_digest(*c));
    }
    ++n;
  }
  EXPECT_GT(n, 20);
}

TEST(ContractReader, BadDocumentsNameTheFileAndField) {
  auto v = parse_contract("schema_version: 2\n", "c.yaml");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message(), "c.yaml: schema_version 2 (this strata reads 1)");
  auto k = parse_contract("schema_version: 1\nnative_build:\n  packages:\n    - {ecosystem: npm, name: x, build: maybe, "
                          "certainty: known}\n",
                          "c.yaml");
  ASSERT_FALSE(k);
  EXPECT_EQ(k.error().message(),
            "c.yaml: native_build.packages.build: unknown value \"maybe\" (docs/contract.md lists the values)");
  auto t = parse_contract("schema_version: 1\necosystems: node\n", "c.yaml");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message(), "c.yaml: .ecosystems must be a list");
  EXPECT_FALSE(parse_contract("[1, 2", "c.yaml"));
}

TEST(ContractReader, RefusesAliasesThatExpandWithoutEnd) {
  // Five levels of ten aliases: a tree of 111 111 nodes from 400 bytes
  // (nine levels: a billion).
  auto laughs = parse_contract("schema_version: 1\n" + testing::billion_laughs(5, "notes"), "c.yaml");
  ASSERT_FALSE(laughs) << "a billion-laughs contract was read";
  EXPECT_EQ(laughs.error().message(),
            "c.yaml: line 8: YAML aliases expand to more than 100000 nodes (a 'billion laughs' document); refusing it");
}

TEST(ContractReader, RefusesARecursiveAlias) {
  // yaml-cpp makes `&n [*n]` a cycle, which reading the tree followed until
  // the stack ran out.
  auto cycle = parse_contract("schema_version: 1\nnotes: &n [*n]\n", "c.yaml");
  ASSERT_FALSE(cycle);
  EXPECT_EQ(cycle.error().message(),
            "c.yaml: line 2: a YAML alias refers to a node that contains it (a recursive alias, which no reader can "
            "expand); refusing it");
}

}  // namespace
}  // namespace strata::contract
