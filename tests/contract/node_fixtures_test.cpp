// Reviewed expectations for the Node fixture repositories. Each expectation
// was derived by reading the fixture and the reference (environment-
// detection.md), not by copying scanner output.
#include <algorithm>

#include "contract/model/serialize.hpp"
#include "fixture_support.hpp"

namespace strata::contract::testing {
namespace {

TEST(NodeFixtures, NvmrcLtsStarResolvesThroughDatedTable) {
  Contract c = scan_fixture("node-nvmrc-lts");
  // engines >=18 is the floor; .nvmrc lts/* = the newest LTS in runtime_aliases.yaml
  // (Krypton, 24) is the pin, and the version provisioned.
  EXPECT_EQ(floor_of(c, "node"), "18.0.0");
  const RuntimeFloor* f = floors(c, "node");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->pin, ">=24.0.0 <25.0.0");
  EXPECT_EQ(f->provision, ">=24.0.0 <25.0.0");
  ASSERT_EQ(f->constraints.size(), 2u);
  bool saw_alias = false;
  for (const auto& k : f->constraints)
    if (k.source.file == ".nvmrc") {
      saw_alias = true;
      EXPECT_EQ(k.source.value, "lts/*");
      EXPECT_NE(k.note.find("as of 2025-10-28"), std::string::npos) << k.note;
    }
  EXPECT_TRUE(saw_alias);
  EXPECT_TRUE(f->conflicts.empty());
  EXPECT_FALSE(c.native_build_required);
  EXPECT_EQ(origin_of(c, "registry.npmjs.org"), "default");
}

TEST(NodeFixtures, EnginesUnionIntersectsVersionFiles) {
  Contract c = scan_fixture("node-engines-or");
  // engines ^20 || ^22 is the support; .nvmrc "v20" (after a comment line) and
  // .node-version 20.11.1 agree on the pin 20.11.1.
  EXPECT_EQ(floor_of(c, "node"), "20.0.0");
  EXPECT_EQ(floors(c, "node")->satisfying, ">=20.0.0 <21.0.0 || >=22.0.0 <23.0.0");
  EXPECT_EQ(floors(c, "node")->pin, "=20.11.1");
  EXPECT_EQ(floors(c, "node")->provision, "=20.11.1");
  EXPECT_EQ(floors(c, "node")->constraints.size(), 3u);
  // npm: engines >=10 and packageManager npm@10.8.2 (exact, the pin).
  EXPECT_EQ(floor_of(c, "npm"), "10.0.0");
  EXPECT_EQ(floors(c, "npm")->provision, "=10.8.2");
}

TEST(NodeFixtures, ConflictingConstraintsAreReported) {
  Contract c = scan_fixture("node-conflict");
  const RuntimeFloor* f = floors(c, "node");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->conflicts.size(), 1u);
  EXPECT_NE(f->conflicts[0].find(".nvmrc"), std::string::npos);
  EXPECT_NE(f->conflicts[0].find("engines.node"), std::string::npos);
  EXPECT_EQ(f->floor, "20.0.0");  // the highest lower bound still stands
}

TEST(NodeFixtures, MalformedPackageJsonIsAWarningNotACrash) {
  Contract c = scan_fixture("node-malformed");
  EXPECT_TRUE(warned(c, "package.json", "malformed JSON"));
  // The rest of the repo is still read: .nvmrc lts/iron → 20.
  EXPECT_EQ(floor_of(c, "node"), "20.0.0");
}

TEST(NodeFixtures, SharpBefore033DownloadsFromGitHub) {
  Contract c = scan_fixture("node-sharp-old");
  const NativePackage* s = native(c, "npm", "sharp");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->version, "0.32.6");
  EXPECT_EQ(build_kind_name(s->build), std::string("download"));
  EXPECT_EQ(s->fallback, "compile");
  EXPECT_EQ(origin_of(c, "github.com"), "install-time");
  EXPECT_EQ(egress(c, "github.com")->mirror_env, "npm_config_sharp_libvips_binary_host");
  EXPECT_EQ(origin_of(c, "registry.npmjs.org"), "lockfile");
  EXPECT_FALSE(c.native_build_required);
  EXPECT_EQ(floor_of(c, "npm"), "7.0.0");  // lockfileVersion 3
  EXPECT_EQ(native(c, "npm", "color"), nullptr);  // plain JS dependencies are not listed
}

TEST(NodeFixtures, Sharp033IsPrebuiltDespiteInstallScript) {
  Contract c = scan_fixture("node-sharp-new");
  EXPECT_EQ(build_of(c, "npm", "sharp"), "prebuilt");
  EXPECT_EQ(egress(c, "github.com"), nullptr);
  EXPECT_FALSE(c.native_build_required);
  EXPECT_TRUE(c.build_libs.empty());
}

TEST(NodeFixtures, ImplicitBindingGypInADependencyCompiles) {
  Contract c = scan_fixture("node-implicit-gyp");
  const NativePackage* n = native(c, "npm", "fancy-native");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(build_kind_name(n->build), std::string("compile"));
  EXPECT_EQ(n->certainty, Certainty::kInferred);
  EXPECT_EQ(n->version, "1.4.0");
  EXPECT_EQ(native(c, "npm", "plain-js"), nullptr);
  EXPECT_TRUE(c.native_build_required);
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "npm:fancy-native"));
  EXPECT_TRUE(required_by(c.build_libs, "python3", "npm:fancy-native"));
  EXPECT_TRUE(has_command(c, "make"));
  EXPECT_EQ(origin_of(c, "nodejs.org"), "install-time");  // node-gyp headers
}

TEST(NodeFixtures, Pnpm9LockfileHasNoBuildSignalSoKnowledgeAndAllowlistDecide) {
  Contract c = scan_fixture("node-pnpm9-nobuild");
  EXPECT_EQ(build_of(c, "npm", "better-sqlite3"), "download");
  EXPECT_EQ(native(c, "npm", "better-sqlite3")->version, "11.3.0");
  EXPECT_EQ(build_of(c, "npm", "bcrypt"), "download");  // bcrypt 5: node-pre-gyp
  EXPECT_EQ(native(c, "npm", "bindings"), nullptr);
  // pnpm 10 will skip better-sqlite3's script: it is not in onlyBuiltDependencies.
  EXPECT_TRUE(warned(c, "package.json", "better-sqlite3"));
  EXPECT_FALSE(warned(c, "package.json", "skips the build script of bcrypt"));
  // The lockfile format implies pnpm >=9; packageManager pins pnpm 10.4.1.
  EXPECT_EQ(floor_of(c, "pnpm"), "9.0.0");
  EXPECT_EQ(floors(c, "pnpm")->provision, "=10.4.1");
  EXPECT_EQ(origin_of(c, "codeload.github.com"), "lockfile");
  // The default registry, and where corepack fetches pnpm 10.4.1 from.
  EXPECT_EQ(origin_of(c, "registry.npmjs.org"), "install-time");
  EXPECT_EQ(egress(c, "registry.npmjs.org")->reason, "corepack downloads pnpm from the npm registry");
}

TEST(NodeFixtures, WorkspacesWithScopedRegistries) {
  Contract c = scan_fixture("node-workspaces-scoped");
  EXPECT_TRUE(has_workspace(c, "."));
  EXPECT_TRUE(has_workspace(c, "packages/api"));
  EXPECT_TRUE(has_workspace(c, "packages/web"));
  EXPECT_TRUE(has_workspace(c, "packages/native-addon"));
  EXPECT_FALSE(has_workspace(c, "tools/scratch"));
  // The root's >=20.9 is the floor; packages/web's >=22 is its own scope, not a
  // rewrite of the root's (the plan warns when the version provided misses it).
  EXPECT_EQ(floor_of(c, "node"), "20.9.0");
  ASSERT_EQ(floors(c, "node")->scopes.size(), 1u);
  EXPECT_EQ(floors(c, "node")->scopes[0].scope, "packages/web");
  EXPECT_EQ(floors(c, "node")->scopes[0].floor, "22.0.0");
  EXPECT_TRUE(floors(c, "node")->conflicts.empty());
  // The .npmrc registry is a .internal name: a note, never a grant (host_name.hpp).
  EXPECT_EQ(egress(c, "npm.acme.internal"), nullptr);
  EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(), [](const Diagnostic& d) {
    return d.message.find("\"npm.acme.internal\" is not an egress host (is a special-use name") != std::string::npos;
  }));
  EXPECT_EQ(origin_of(c, "npm.pkg.github.com"), "config");
  EXPECT_EQ(egress(c, "registry.npmjs.org"), nullptr);  // a registry is configured
  // pg-native → libpq compile; the workspace's own binding.gyp compiles too.
  EXPECT_EQ(build_of(c, "npm", "pg-native"), "compile");
  EXPECT_EQ(build_of(c, "npm", "libpq"), "compile");
  EXPECT_EQ(build_of(c, "npm", "@acme/native-addon"), "compile");
  EXPECT_TRUE(required_by(c.build_libs, "libpq-dev", "npm:pg-native"));
  EXPECT_TRUE(required_by(c.run_libs, "libpq5", "npm:libpq"));
  // The auth token is never echoed.
  std::string yaml = to_yaml(c);
  EXPECT_EQ(yaml.find("GITHUB_TOKEN"), std::string::npos);
}

TEST(NodeFixtures, YarnBerryCanvas2DownloadsAndScopedRegistry) {
  Contract c = scan_fixture("node-yarn-berry");
  EXPECT_EQ(build_of(c, "npm", "canvas"), "download");
  EXPECT_EQ(native(c, "npm", "canvas")->version, "2.11.2");
  EXPECT_EQ(floor_of(c, "yarn"), "3.0.0");  // __metadata 8 → >=3
  EXPECT_EQ(floors(c, "yarn")->provision, "=4.5.0");  // packageManager pins it
  EXPECT_EQ(origin_of(c, "registry.yarnpkg.com"), "config");
  EXPECT_EQ(origin_of(c, "artifacts.corp.example.com"), "config");
  EXPECT_TRUE(c.build_libs.empty());  // a download does not compile
}

TEST(NodeFixtures, YarnClassicNodeSass) {
  Contract c = scan_fixture("node-yarn-classic");
  EXPECT_EQ(build_of(c, "npm", "node-sass"), "download");
  EXPECT_EQ(egress(c, "github.com")->mirror_env, "SASS_BINARY_SITE");
  EXPECT_EQ(origin_of(c, "registry.yarnpkg.com"), "lockfile");
  EXPECT_EQ(floor_of(c, "yarn"), "1.0.0");
  EXPECT_EQ(floors(c, "node")->satisfying, ">=18.0.0 <19.0.0");
}

TEST(NodeFixtures, BunTrustedDependenciesAndRegistry) {
  Contract c = scan_fixture("node-bun");
  EXPECT_EQ(build_of(c, "npm", "argon2"), "prebuilt");  // 0.41 ships prebuilds
  const NativePackage* t = native(c, "npm", "my-postinstall-tool");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->certainty, Certainty::kAssumed);
  EXPECT_EQ(origin_of(c, "npm.internal.example.com"), "lockfile");
}

}  // namespace
}  // namespace strata::contract::testing
