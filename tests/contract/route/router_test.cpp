// The router on the fixture repositories (testdata/repos), against bases
// described by their facts and an archive described by its candidates — the
// versions the toolchain fixture archive (testdata/toolchain) publishes. Each
// test states the plan's rows exactly: kind, name, need, layer, packages.
#include "contract/route/router.hpp"

#include <gtest/gtest.h>

#include "contract/route/plan_output.hpp"
#include "contract/scan.hpp"
#include "util/strings.hpp"

namespace strata::contract::route {
namespace {

Contract scan(const std::string& name) {
  auto c = scan_repository(std::string(STRATA_TESTDATA_DIR) + "/repos/" + name);
  EXPECT_TRUE(c) << (c ? "" : c.error().message());
  return c ? *c : Contract{};
}

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

image::ImageFacts bare_base() {
  image::ImageFacts f;
  f.manifest_digest = "sha256:" + std::string(64, 'b');
  f.platform = {"linux", "amd64", "", ""};
  f.path = {"/usr/local/bin", "/usr/bin", "/bin"};
  f.packages = {{"base-files", "12.4"}};
  return f;
}

std::vector<std::string> rows(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& r : p.rows) {
    std::string line = std::string(kind_name(r.kind)) + " | " + r.name + " | " + r.need + " | " + layer_name(r.layer);
    if (!r.packages.empty()) line += " | " + str::join(r.packages, " ");
    if (r.kind == Kind::kEgress && !r.needed) line += " | not needed";
    out.push_back(line);
  }
  return out;
}

Plan plan(const std::string& repo, const image::ImageFacts& base) {
  Contract c = scan(repo);
  Candidates archive = toolchain_archive();
  return route({c, base, archive, "oci:/images:base"});
}

TEST(Router, ANativeNodeMonorepoAboveTheArchivesNodeGetsATaskToolchain) {
  Plan p = plan("real-ts-monorepo-vscode-sqlite3", bare_base());
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | node | >=20.18.0 <21.0.0 | task-toolchain",
                         "runtime | npm | >=7.0.0 | project-bootstrap",
                         "toolchain | native build | cc make | overlay | build-essential",
                         "build-lib | python3 | installed | overlay | python3",
                         "command | g++ | on PATH | unrouted",
                         "command | python3 | on PATH | overlay | python3",
                         "egress | nodejs.org | read-only | egress",
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
                         "runtime | python | =3.12.4 | base",
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
            "the image has node 18.0.0 (ENV NODE_VERSION=18.0.0), below >=20.18.0 <21.0.0, on PATH at "
            "/usr/local/bin/node: it shadows what this row installs (a login shell that resets PATH runs it)");
}

}  // namespace
}  // namespace strata::contract::route
