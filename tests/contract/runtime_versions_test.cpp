// Runtime versions mean what the repository means (docs/contract.md,
// "Runtime versions"): the root's support is the floor, a pin is the version
// chosen, CI's versions are tested, sub-projects keep their own scope and
// example trees are set aside. One fixture per rule, each read by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "contract/knowledge/knowledge.hpp"
#include "util/version_range.hpp"
#include "contract/fixture_support.hpp"

namespace strata::contract::testing {
namespace {

// The fixture's contract and one tool's entry (an empty entry, and a
// failure, when the tool is absent).
struct Scanned {
  Contract c;
  RuntimeFloor f;
};
Scanned scanned(const std::string& fixture_name, const std::string& tool) {
  Scanned s{scan_fixture(fixture_name), {}};
  const RuntimeFloor* f = floors(s.c, tool);
  EXPECT_NE(f, nullptr) << fixture_name << " has no " << tool;
  if (f) s.f = *f;
  return s;
}

const ScopedRequirement* scope(const RuntimeFloor& f, const std::string& dir) {
  for (const auto& s : f.scopes)
    if (s.scope == dir) return &s;
  return nullptr;
}

bool noted(const Contract& c, const std::string& needle) {
  return std::any_of(c.notes.begin(), c.notes.end(),
                     [&](const Diagnostic& d) { return (d.file + ": " + d.message).find(needle) != std::string::npos; });
}

// uptime-kuma's shape: engines ">= 20.4.0", a test matrix of 20 and 22 and one
// job that builds images on 26. The floor is the engines'; 26 is neither a
// requirement nor a version the tests run on (the job builds an image).
TEST(RuntimeVersions, ANewerCiJobIsTestedNotTheFloor) {
  const auto [c, f] = scanned("versions-engines-newer-ci", "node");
  EXPECT_EQ(f.floor, "20.4.0");
  EXPECT_EQ(f.satisfying, ">=20.4.0");
  EXPECT_EQ(f.tested, (std::vector<std::string>{">=20.0.0 <21.0.0", ">=22.0.0 <23.0.0"}));
  EXPECT_TRUE(f.pin.empty());
  EXPECT_EQ(f.provision, ">=22.0.0 <23.0.0") << "the newest version the test jobs run within the support";
  EXPECT_TRUE(f.conflicts.empty());
  for (const auto& k : f.constraints)
    EXPECT_EQ(constraint_kind_name(k.kind), std::string(k.source.file == "package.json" ? "support" : "tested"))
        << k.source.file << " " << k.source.field;
}

// excalidraw's shape (a held-out repository): engines >=18, CI tests on 20,
// a CodeSandbox environment and the image's builder stage on 24. A hidden
// tool directory's Dockerfile is a development environment (tested, not a
// pin), and where the test suite runs comes before where people work and
// where the image is built.
TEST(RuntimeVersions, CiComesBeforeADevelopmentEnvironmentAndABuilderStage) {
  const auto [c, f] = scanned("versions-ci-before-builder", "node");
  EXPECT_EQ(f.floor, "18.0.0");
  EXPECT_TRUE(f.pin.empty()) << f.pin;
  EXPECT_EQ(f.tested, (std::vector<std::string>{">=20.0.0 <21.0.0", ">=24.0.0 <25.0.0"}));
  EXPECT_EQ(f.provision, ">=20.0.0 <21.0.0");
  EXPECT_EQ(f.provision_reason, "the newest version CI tests within the supported range");
  EXPECT_TRUE(f.conflicts.empty());
}

// paperless-ngx's shape: requires-python ">=3.11", a matrix 3.11–3.14 and a
// lint job on 3.14.
TEST(RuntimeVersions, RequiresPythonIsTheFloorAndTheMatrixIsTested) {
  const auto [c, f] = scanned("versions-python-matrix-lint", "python");
  EXPECT_EQ(f.floor, "3.11.0");
  EXPECT_EQ(f.satisfying, ">=3.11.0");
  ASSERT_EQ(f.tested.size(), 4u);
  EXPECT_EQ(f.tested.front(), ">=3.11.0 <3.12.0");
  EXPECT_EQ(f.tested.back(), ">=3.14.0 <3.15.0");
  EXPECT_EQ(f.provision, ">=3.14.0 <3.15.0");
  EXPECT_TRUE(f.conflicts.empty());
}

// A TypeScript monorepo: the root declares >=18.18.0, two apps' Dockerfiles
// use node:lts, packages/cli needs >=22 and an example wants >=24. The root
// floor stands; the apps and the CLI are scoped; the example is set aside;
// nothing conflicts.
TEST(RuntimeVersions, SubProjectsAreScopedAndExamplesSetAside) {
  const auto [c, f] = scanned("versions-monorepo-scopes", "node");
  EXPECT_EQ(f.floor, "18.18.0");
  EXPECT_EQ(f.satisfying, ">=18.18.0");
  EXPECT_TRUE(f.conflicts.empty()) << f.conflicts.front();
  EXPECT_TRUE(f.tested.empty()) << "a sub-project's builder stage is that sub-project's";
  EXPECT_TRUE(f.provision.empty());
  const ScopedRequirement* cli = scope(f, "packages/cli");
  ASSERT_NE(cli, nullptr);
  EXPECT_EQ(cli->floor, "22.0.0");
  const ScopedRequirement* api = scope(f, "apps/api");
  ASSERT_NE(api, nullptr);
  EXPECT_FALSE(api->pin.empty()) << "node:lts pins the api's image";
  ASSERT_NE(scope(f, "apps/web"), nullptr);
  EXPECT_EQ(scope(f, "examples/plugin"), nullptr);
  for (const auto& k : f.constraints) EXPECT_EQ(k.source.file.find("examples/"), std::string::npos);
  EXPECT_TRUE(noted(c, "examples/plugin/package.json"));
  // A release tree's installer image (navidrome's release/wix) installs jq for
  // itself, not for the repository.
  EXPECT_EQ(lib(c.run_libs, "jq"), nullptr);
  EXPECT_TRUE(noted(c, "release/wix/msitools.dockerfile: a Dockerfile in an example"));
}

TEST(RuntimeVersions, TheImageStagesFromPinsInsideTheSupport) {
  const auto [c, f] = scanned("versions-dockerfile-pin-inside", "node");
  EXPECT_EQ(f.floor, "20.0.0");
  EXPECT_EQ(f.pin, ">=22.0.0 <23.0.0") << "the final stage's FROM";
  EXPECT_EQ(f.provision, ">=22.0.0 <23.0.0");
  EXPECT_NE(f.provision_reason.find("Dockerfile"), std::string::npos) << f.provision_reason;
  EXPECT_EQ(f.tested, (std::vector<std::string>{"=20.11.1"})) << "the builder stage";
  EXPECT_TRUE(f.conflicts.empty());
}

TEST(RuntimeVersions, APinOutsideTheSupportIsOneConflictLine) {
  const auto [c, f] = scanned("versions-dockerfile-pin-outside", "node");
  EXPECT_EQ(f.floor, "20.0.0");
  EXPECT_EQ(f.pin, ">=18.0.0 <19.0.0");
  ASSERT_EQ(f.conflicts.size(), 1u);
  EXPECT_NE(f.conflicts[0].find("Dockerfile FROM"), std::string::npos) << f.conflicts[0];
  EXPECT_NE(f.conflicts[0].find("engines.node"), std::string::npos) << f.conflicts[0];
  EXPECT_TRUE(f.provision.empty()) << "a pin outside the support is not provisioned";
}

TEST(RuntimeVersions, NvmrcLtsIsAPinThroughTheAliasTable) {
  const auto [c, f] = scanned("versions-nvmrc-lts", "node");
  auto kb = KnowledgeBase::embedded();
  ASSERT_TRUE(kb);
  const int newest_lts = kb->node_lts_majors().back();
  const std::string line = ">=" + std::to_string(newest_lts) + ".0.0 <" + std::to_string(newest_lts + 1) + ".0.0";
  EXPECT_EQ(f.pin, line);
  EXPECT_EQ(f.satisfying, line) << "without a support range the pin is the support";
  EXPECT_EQ(f.floor, std::to_string(newest_lts) + ".0.0");
  EXPECT_EQ(f.provision, line);
  ASSERT_EQ(f.constraints.size(), 1u);
  EXPECT_NE(f.constraints[0].note.find("lts/*"), std::string::npos);
}

TEST(RuntimeVersions, ARustToolchainPinAboveRustVersionIsProvisioned) {
  const auto [c, f] = scanned("versions-rust-toolchain-pin", "rust");
  EXPECT_EQ(f.floor, "1.74.0");
  auto pin = parse_npm_range(f.pin);
  ASSERT_TRUE(pin);
  EXPECT_TRUE(pin->contains(*parse_version("1.82.0")));
  EXPECT_FALSE(pin->contains(*parse_version("1.82.1")));
  EXPECT_EQ(f.provision, f.pin);
  EXPECT_TRUE(f.conflicts.empty());
}

// CKAN's shape: setup.cfg's python_requires is the support; CI's container
// is a version tested.
TEST(RuntimeVersions, SetupCfgIsReadLikeSetupPy) {
  const auto [c, f] = scanned("versions-setup-cfg", "python");
  EXPECT_EQ(f.floor, "3.10.0");
  EXPECT_EQ(f.satisfying, ">=3.10.0");
  EXPECT_EQ(f.tested, (std::vector<std::string>{">=3.10.0 <3.11.0"}));
  EXPECT_NE(native(c, "pypi", "psycopg2"), nullptr) << "install_requires is read";
}


// Two sub-projects pinned apart and nothing at the root: the repository needs
// one of their versions, which is no conflict.
TEST(RuntimeVersions, SubProjectsPinnedApartAreAnyOfTheirVersions) {
  const auto [c, f] = scanned("versions-subprojects-pinned-apart", "node");
  EXPECT_EQ(f.floor, "20.0.0");
  EXPECT_EQ(f.satisfying, ">=20.0.0 <21.0.0 || >=22.0.0 <23.0.0");
  EXPECT_TRUE(f.conflicts.empty()) << f.conflicts.front();
  EXPECT_EQ(f.scopes.size(), 2u);
}

// The policy a team overrides: `.mac/project.yaml` `runtimes: {node: "22"}` is
// the version to provision, before .nvmrc's 20, still inside engines >=20.
TEST(RuntimeVersions, ADeclaredRuntimeIsThePinBeforeVersionFiles) {
  const auto [c, f] = scanned("versions-declared-runtime", "node");
  EXPECT_EQ(f.floor, "20.0.0");
  EXPECT_EQ(f.pin, ">=22.0.0 <23.0.0");
  EXPECT_EQ(f.provision, ">=22.0.0 <23.0.0");
  EXPECT_NE(f.provision_reason.find(".mac/project.yaml runtimes.node"), std::string::npos) << f.provision_reason;
  // Each reading keeps its note (the range is read before the note is passed on).
  for (const auto& k : f.constraints) {
    if (k.source.file == ".tool-versions") {
      EXPECT_NE(k.note.find("lts/iron"), std::string::npos) << k.note;
    }
    if (k.source.file == ".mac/project.yaml") {
      EXPECT_EQ(k.note, "declared: the version to provision");
    }
  }
  EXPECT_TRUE(f.conflicts.empty());
}

}  // namespace
}  // namespace strata::contract::testing
