// A contract read back is the contract written: YAML and JSON, every fixture
// repository; bad documents are errors naming the file and the field.
#include "contract/model/contract_reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "contract/egress/render.hpp"
#include "contract/scan/scan.hpp"
#include "contract/model/serialize.hpp"
#include "support/temp_dir.hpp"
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
            "c.yaml: native_build.packages[0].build: unknown value \"maybe\" (docs/contract.md lists the values)");
  auto t = parse_contract("schema_version: 1\necosystems: node\n", "c.yaml");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message(), "c.yaml: ecosystems must be a list");
  EXPECT_FALSE(parse_contract("[1, 2", "c.yaml"));
  auto p = parse_contract("schema_version: 1\nsystem_libs:\n  run:\n    - {package: ffmpeg, purpose: deploy}\n", "c.yaml");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message(),
            "c.yaml: system_libs.run[0].purpose: unknown value \"deploy\" (docs/contract.md lists the values)");
  auto i = parse_contract("schema_version: 1\ninclude: [build, run]\n", "c.yaml");
  ASSERT_FALSE(i);
  EXPECT_EQ(i.error().message(), "c.yaml: include: unknown value \"build\" (docs/contract.md lists the values)");
}

TEST(ContractReader, RefusesAliasesThatExpandWithoutEnd) {
  // Five levels of ten aliases: a tree of 111 111 nodes from 400 bytes
  // (nine levels: a billion).
  auto laughs = parse_contract("schema_version: 1\n" + strata::testing::billion_laughs(5, "notes"), "c.yaml");
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

// A contract with every field of the schema set, values YAML would type
// otherwise among them ("1.10", "2024-06-01", "null", "~", "true").
Contract every_field() {
  Contract c;
  c.root = "testdata/repos/every-field";
  c.ecosystems = {"node", "python"};
  RuntimeFloor f;
  f.floor = "20.0.0";
  f.satisfying = ">=20.0.0 <23.0.0";
  f.pin = ">=22.0.0 <23.0.0";
  f.tested = {">=20.0.0 <21.0.0", ">=22.0.0 <23.0.0"};
  f.provision = ">=22.0.0 <23.0.0";
  f.provision_reason = "the pin lies in the support";
  f.scopes = {{"packages/api", ">=18.0.0", "18.0.0", ">=18.0.0 <19.0.0"}};
  Constraint k;
  k.source = {"packages/api/package.json", "engines.node", ">=18"};
  k.range = ">=18.0.0";
  k.floor = "18.0.0";
  k.note = "true";
  k.kind = ConstraintKind::kPin;
  k.scope = "packages/api";
  f.constraints = {k};
  f.conflicts = {".nvmrc pins 16, outside packages/api's support >=18"};
  c.runtime_floors["node"] = f;
  c.native_build_required = true;
  NativePackage n;
  n.ecosystem = "npm";
  n.name = "sharp";
  n.version = "1.10";
  n.build = BuildKind::kDownload;
  n.fallback = "compile";
  n.optional = true;
  n.certainty = Certainty::kInferred;
  n.reason = "install script downloads libvips";
  n.evidence = {{"package-lock.json", "packages.node_modules/sharp", "0.33.2"}};
  n.download_hosts = {"github.com"};
  n.fallback_needs = CompileNeeds{{"libvips-dev"}, {"libvips42"}, {"make"}, {"nodejs.org"}};
  c.native_packages = {n};
  c.system_libs_source = "fallback";
  c.build_libs = {{"libvips-dev", {"npm:sharp"}, {{"src/img.js", "line 3", "spawn('vips')"}}}};
  c.run_libs = {{"libvips42", {"npm:sharp"}, {{"src/img.js", "line 3", "spawn('vips')"}}, Purpose::kRun}};
  EgressHost h;
  h.host = "registry.npmjs.org";
  h.port = 8443;
  h.origin = EgressOrigin::kLockfile;
  h.access = "read-only";
  h.reason = "npm install";
  h.mirror_env = "NPM_CONFIG_REGISTRY";
  h.evidence = {{"package-lock.json", "packages.node_modules/sharp.resolved", "https://registry.npmjs.org/sharp"}};
  h.purpose = Purpose::kRun;
  c.egress_hosts = {h};
  c.include = {"run"};
  c.egress_rejected = {{".mac/project.yaml", "egress[1]", "port 70000 is not a TCP port"}};
  c.required_commands = {{"node", {"package.json scripts.build"}}};
  c.workspaces = {{"packages/api", "api", "npm"}};
  c.knowledge = {{"toolchains.yaml", "2024-06-01"}};
  c.warnings = {{"setup.cfg", "null"}};
  c.notes = {{"~", "a note"}};
  return c;
}

// Every value in the tree is set: no null, no empty string, list or map, no false.
void expect_all_set(const nlohmann::ordered_json& j, const std::string& at) {
  EXPECT_FALSE(j.is_null()) << at;
  EXPECT_FALSE(j.is_boolean() && !j.get<bool>()) << at;
  EXPECT_FALSE(j.is_string() && j.get<std::string>().empty()) << at;
  EXPECT_FALSE((j.is_array() || j.is_object()) && j.empty()) << at;
  if (j.is_object())
    for (const auto& [k, v] : j.items()) expect_all_set(v, at + "/" + k);
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) expect_all_set(j[i], at + "/" + std::to_string(i));
}

// One reader of a contract file: what plan, preflight and provision read
// (read_contract_file) and what egress render reads (read_render_input) are
// the same Contract with the same digest, and a bad field is the same error,
// naming the file and the field, through both.
TEST(ContractReader, PlanAndEgressRenderReadAContractFileAlike) {
  const Contract c = every_field();
  const auto tree = contract_to_tree(c);
  expect_all_set(tree, "");
  for (const char* written_only_when_set :
       {"/runtime_floors/node/constraints/0/note", "/native_build/packages/0/fallback",
        "/native_build/packages/0/optional", "/native_build/packages/0/download_hosts",
        "/native_build/packages/0/fallback_needs", "/egress_hosts/0/mirror_env"})
    EXPECT_TRUE(tree.contains(nlohmann::ordered_json::json_pointer(written_only_when_set))) << written_only_when_set;

  strata::testing::TempDir dir;
  auto through_both = [&](const std::filesystem::path& file) {
    egress::RenderRequest render;
    render.contract_file = file;
    render.format = "json";
    return std::pair{read_contract_file(file), egress::read_render_input(render)};
  };
  for (const auto& [name, text] : {std::pair{"contract.yaml", to_yaml(c)}, std::pair{"contract.json", to_json(c)}}) {
    std::ofstream(dir / name) << text;
    auto [plan, render] = through_both(dir / name);
    ASSERT_TRUE(plan) << plan.error().message();
    ASSERT_TRUE(render) << render.error().message();
    EXPECT_EQ(to_json(*plan), to_json(c)) << name;
    EXPECT_EQ(to_json(render->contract), to_json(*plan)) << name;
    EXPECT_EQ(render->digest, contract_digest(*plan)) << name;
    EXPECT_EQ(render->digest, contract_digest(c)) << name;
  }

  const std::string host = "schema_version: 1\negress_hosts:\n  - host: \"a.example.com\"\n    origin: \"declared\"\n";
  for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
           {host + "    port: 70000\n", "egress_hosts[0].port must be a port (1-65535)"},
           {host + "    port: [443]\n", "egress_hosts[0].port must be a port (1-65535)"},
           {host + "    evidence: \"package.json\"\n", "egress_hosts[0].evidence must be a list"},
           {"schema_version: 1\negress_hosts: {host: \"a.example.com\"}\n", "egress_hosts must be a list"},
           {"schema_version: 1\nnative_build: {required: maybe}\n", "native_build.required must be true or false"}}) {
    const auto file = dir / "bad.yaml";
    std::ofstream(file, std::ios::trunc) << text;
    auto [plan, render] = through_both(file);
    ASSERT_FALSE(plan) << text;
    ASSERT_FALSE(render) << text;
    EXPECT_EQ(plan.error().message(), file.string() + ": " + field);
    EXPECT_EQ(render.error().message(), plan.error().message());
  }
}

}  // namespace
}  // namespace strata::contract
