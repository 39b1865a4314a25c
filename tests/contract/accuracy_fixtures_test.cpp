// Reviewed expectations for the fixtures written for the accuracy classes of
// issue 15: false compiles (prebuilt platform packages, known and visible
// install scripts, allowlist-only names, pure-Python sdists, -sys crates and
// platform-gated dependencies), missed native builds (Python extras, cgo
// modules, Cargo workspace inheritance and features, forks, GUI stacks),
// runtime libraries and programs, floors and hosts from CI/devcontainer/
// Dockerfile/corepack/legacy rust-toolchain/uv.lock wheels, and scoping.
// Each expectation comes from reading the fixture and the packages' own
// install documentation, not from scanner output.
#include "fixture_support.hpp"

namespace strata::contract::testing {
namespace {

bool has_constraint(const Contract& c, const std::string& tool, const std::string& file, const std::string& field_prefix) {
  const RuntimeFloor* f = floors(c, tool);
  if (!f) return false;
  return std::any_of(f->constraints.begin(), f->constraints.end(), [&](const Constraint& k) {
    return k.source.file == file && k.source.field.starts_with(field_prefix);
  });
}

bool any_warning_mentions(const Contract& c, const std::string& needle) {
  return std::any_of(c.warnings.begin(), c.warnings.end(),
                     [&](const Diagnostic& d) { return d.message.find(needle) != std::string::npos; });
}

// ---- false compile --------------------------------------------------------

TEST(FalseCompile, PrebuiltPlatformPackagesAndKnownScriptsBuildNothing) {
  Contract c = scan_fixture("node-prebuilt-platform");
  EXPECT_EQ(build_of(c, "npm", "@swc/core"), "prebuilt");
  EXPECT_EQ(build_of(c, "npm", "esbuild"), "prebuilt");
  EXPECT_EQ(build_of(c, "npm", "lmdb"), "prebuilt");
  EXPECT_EQ(build_of(c, "npm", "msgpackr-extract"), "prebuilt");
  EXPECT_EQ(build_of(c, "npm", "sharp"), "prebuilt");
  EXPECT_EQ(build_of(c, "npm", "vue-demi"), "none");
  EXPECT_EQ(build_of(c, "npm", "@prisma/engines"), "download");
  EXPECT_EQ(build_of(c, "npm", "@prisma/client"), "none");  // postinstall generates JavaScript
  EXPECT_EQ(origin_of(c, "binaries.prisma.sh"), "install-time");
  // Unknown to the knowledge base, but its platform package is in the lock.
  const NativePackage* fast = native(c, "npm", "@acme/fastparse");
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(build_kind_name(fast->build), std::string("prebuilt"));
  EXPECT_EQ(fast->certainty, Certainty::kInferred);
  EXPECT_EQ(fast->evidence.back().field, "package @acme/fastparse-linux-x64-gnu");
  // An install script nothing is known about: listed, but decides nothing.
  const NativePackage* icons = native(c, "npm", "brand-icons");
  ASSERT_NE(icons, nullptr);
  EXPECT_EQ(icons->certainty, Certainty::kAssumed);
  EXPECT_TRUE(noted(c, "package-lock.json", "not counted in native_build.required"));
  // The project's own postinstall scripts (root and workspace) are shell, not builds.
  EXPECT_EQ(native(c, "npm", "storefront"), nullptr);
  EXPECT_EQ(native(c, "npm", "@storefront/admin"), nullptr);
  EXPECT_FALSE(c.native_build_required);
  EXPECT_EQ(egress(c, "nodejs.org"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "build-essential"), nullptr);
  EXPECT_FALSE(has_command(c, "g++"));
}

TEST(FalseCompile, AllowlistOnlyNamesAreNotReported) {
  Contract c = scan_fixture("node-pnpm-allowlist-phantom");
  EXPECT_EQ(native(c, "npm", "canvas"), nullptr);          // onlyBuiltDependencies, not in the lock
  EXPECT_EQ(native(c, "npm", "better-sqlite3"), nullptr);  // allowBuilds, not in the lock
  EXPECT_EQ(build_of(c, "npm", "esbuild"), "prebuilt");
  EXPECT_EQ(build_of(c, "npm", "@swc/core"), "prebuilt");
  EXPECT_EQ(build_of(c, "npm", "sharp"), "prebuilt");
  EXPECT_FALSE(c.native_build_required);
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.front().message;
}

TEST(FalseCompile, PureSdistIsAssumedAndWheelsDecide) {
  Contract c = scan_fixture("python-uv-wheels");
  const NativePackage* docopt = native(c, "pypi", "docopt");
  ASSERT_NE(docopt, nullptr);
  EXPECT_EQ(docopt->certainty, Certainty::kAssumed);
  EXPECT_EQ(build_of(c, "pypi", "lxml"), "prebuilt");  // a manylinux x86_64 wheel is locked
  // Only a macOS wheel and the sdist: uv builds Pillow from source here.
  const NativePackage* pillow = native(c, "pypi", "pillow");
  ASSERT_NE(pillow, nullptr);
  EXPECT_EQ(build_kind_name(pillow->build), std::string("compile"));
  EXPECT_TRUE(required_by(c.build_libs, "libjpeg-dev", "pypi:pillow"));
  EXPECT_TRUE(required_by(c.run_libs, "libjpeg62-turbo", "pypi:pillow"));
  // A Windows wheel does not help a Linux image either.
  EXPECT_EQ(build_of(c, "pypi", "mysqlclient"), "compile");
  EXPECT_TRUE(c.native_build_required);
  // CI's setup-python 3.12 is a version tested, next to requires-python (the floor).
  EXPECT_TRUE(has_constraint(c, "python", ".github/workflows/test.yml", "jobs.test.steps[1].with.python-version"));
  EXPECT_EQ(floor_of(c, "python"), "3.11.0");
  EXPECT_EQ(floors(c, "python")->provision, ">=3.12.0 <3.13.0");
  // [tool.uv.sources] pins a package to a git repository.
  EXPECT_EQ(origin_of(c, "git.example.org"), "config");
}

TEST(FalseCompile, SysCratesThatBuildNothingAndPlatformGatedDependencies) {
  Contract c = scan_fixture("rust-sys-linux");
  // Transitive -sys crates that build nothing on Linux.
  for (const char* none : {"js-sys", "web-sys", "linux-raw-sys"})
    EXPECT_EQ(build_of(c, "crates", none), "none") << none;
  // Declared only for cfg(windows) / macOS: noted, not classified.
  for (const char* gated : {"winfsp-sys", "windows-sys", "core-foundation-sys"}) {
    EXPECT_EQ(native(c, "crates", gated), nullptr) << gated;
    EXPECT_TRUE(noted(c, "Cargo.lock", std::string("crates:") + gated + " is a dependency only under [target.cfg(")) << gated;
  }
  EXPECT_TRUE(c.native_build_required);  // the database -sys crates do compile
  // ---- runtime libraries for every -dev build library
  EXPECT_TRUE(required_by(c.build_libs, "libsqlite3-dev", "crates:libsqlite3-sys"));
  EXPECT_TRUE(required_by(c.run_libs, "libsqlite3-0", "crates:libsqlite3-sys"));
  EXPECT_TRUE(required_by(c.run_libs, "libmariadb3", "crates:mysqlclient-sys"));
  EXPECT_TRUE(required_by(c.run_libs, "libpq5", "crates:pq-sys"));
  EXPECT_EQ(lib(c.run_libs, "pkg-config"), nullptr);
}

// ---- missed native builds ---------------------------------------------------

TEST(MissedBuilds, PythonExtrasInstallTheirPackages) {
  Contract c = scan_fixture("python-extras-psycopg");
  const NativePackage* pc = native(c, "pypi", "psycopg-c");
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(build_kind_name(pc->build), std::string("compile"));
  EXPECT_EQ(pc->version, "3.2.3");  // requirements pin psycopg[c]==3.2.3; pyproject >=3.2 has no version for the extra
  EXPECT_TRUE(required_by(c.build_libs, "libpq-dev", "pypi:psycopg-c"));
  EXPECT_TRUE(required_by(c.build_libs, "python3-dev", "pypi:psycopg-c"));
  EXPECT_TRUE(required_by(c.run_libs, "libpq5", "pypi:psycopg-c"));
  // Poetry extras = ["binary"] in worker/.
  EXPECT_EQ(build_of(c, "pypi", "psycopg-binary"), "prebuilt");
  // An optional-dependencies group is a declared need too.
  EXPECT_EQ(build_of(c, "pypi", "python-ldap"), "compile");
  EXPECT_TRUE(required_by(c.build_libs, "libldap2-dev", "pypi:python-ldap"));
  EXPECT_TRUE(required_by(c.build_libs, "libsasl2-dev", "pypi:python-ldap"));
  EXPECT_TRUE(required_by(c.run_libs, "libldap-2.5-0", "pypi:python-ldap"));
  EXPECT_TRUE(required_by(c.run_libs, "libsasl2-2", "pypi:python-ldap"));
  // Poetry group dependencies: programs and dlopen'd libraries.
  EXPECT_TRUE(required_by(c.run_libs, "tesseract-ocr", "pypi:pytesseract"));
  EXPECT_TRUE(required_by(c.run_libs, "libmagic1", "pypi:python-magic"));
}

TEST(MissedBuilds, GoCgoModuleFromGoMod) {
  Contract c = scan_fixture("go-cgo-module");
  const NativePackage* n = native(c, "go", "github.com/mattn/go-sqlite3");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(build_kind_name(n->build), std::string("compile"));
  EXPECT_EQ(n->version, "1.14.22");
  EXPECT_EQ(n->certainty, Certainty::kKnown);
  EXPECT_EQ(n->evidence.back().file, "Dockerfile");  // ENV CGO_ENABLED=1
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "go:github.com/mattn/go-sqlite3"));
  EXPECT_EQ(lib(c.build_libs, "libsqlite3-dev"), nullptr);  // the amalgamation is bundled
  EXPECT_TRUE(has_command(c, "gcc"));
  EXPECT_TRUE(c.native_build_required);
  // FROM golang:${GO_VERSION}-bookworm with ARG GO_VERSION=1.22.5: a builder
  // stage, so a version the build runs; go.mod's go 1.22 is the floor.
  EXPECT_TRUE(has_constraint(c, "go", "Dockerfile", "FROM"));
  EXPECT_EQ(floor_of(c, "go"), "1.22.0");
  EXPECT_EQ(floors(c, "go")->provision, "=1.22.5");
  EXPECT_EQ(floors(c, "go")->constraints.size(), 2u);  // go.mod and the golang image; debian:bookworm-slim is no tool
}

TEST(MissedBuilds, CgoDisabledBuildsNoC) {
  Contract c = scan_fixture("go-cgo-disabled");
  EXPECT_EQ(build_of(c, "go", "github.com/mattn/go-sqlite3"), "none");
  EXPECT_EQ(build_of(c, "go", "modernc.org/sqlite"), "none");
  EXPECT_TRUE(warned(c, "Makefile", "github.com/mattn/go-sqlite3 needs cgo"));
  EXPECT_FALSE(c.native_build_required);
  EXPECT_EQ(lib(c.build_libs, "build-essential"), nullptr);
}

TEST(MissedBuilds, CargoWorkspaceInheritanceAndFeatures) {
  Contract c = scan_fixture("rust-workspace-vendored");
  const NativePackage* ossl = native(c, "crates", "openssl-sys");
  ASSERT_NE(ossl, nullptr);
  EXPECT_EQ(ossl->version, "0.9.102");  // from [workspace.dependencies]
  EXPECT_EQ(ossl->reason.find("version unknown"), std::string::npos) << ossl->reason;
  EXPECT_NE(ossl->reason.find("vendored"), std::string::npos) << ossl->reason;
  EXPECT_EQ(lib(c.build_libs, "libssl-dev"), nullptr);
  EXPECT_EQ(lib(c.run_libs, "libssl3"), nullptr);  // linked statically
  EXPECT_TRUE(required_by(c.build_libs, "perl", "crates:openssl-sys"));
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "crates:openssl-sys"));
  EXPECT_EQ(native(c, "crates", "libsqlite3-sys")->version, "0.28.0");
  EXPECT_EQ(lib(c.build_libs, "libsqlite3-dev"), nullptr);  // bundled
  EXPECT_TRUE(required_by(c.build_libs, "libpq-dev", "crates:pq-sys"));
  EXPECT_TRUE(required_by(c.run_libs, "libpq5", "crates:pq-sys"));
  EXPECT_EQ(floor_of(c, "rust"), "1.75.0");
}

// No Cargo.lock: diesel's postgres feature (set in a member, inherited from
// [workspace.dependencies]) pulls pq-sys, mimalloc pulls libmimalloc-sys;
// diesel's sqlite feature is off, so no libsqlite3-sys.
TEST(MissedBuilds, CratesPulledByDirectDependenciesWithoutALock) {
  Contract c = scan_fixture("rust-pulled-crates");
  EXPECT_TRUE(c.native_build_required);
  const NativePackage* pq = native(c, "crates", "pq-sys");
  ASSERT_NE(pq, nullptr);
  EXPECT_EQ(build_kind_name(pq->build), std::string("compile"));
  ASSERT_FALSE(pq->evidence.empty());
  EXPECT_EQ(pq->evidence.front().file, "crates/store/Cargo.toml");
  EXPECT_EQ(pq->evidence.front().value, "postgres");
  EXPECT_TRUE(required_by(c.build_libs, "libpq-dev", "crates:pq-sys"));
  EXPECT_TRUE(required_by(c.run_libs, "libpq5", "crates:pq-sys"));
  EXPECT_EQ(build_of(c, "crates", "libmimalloc-sys"), "compile");
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "crates:libmimalloc-sys"));
  EXPECT_EQ(build_of(c, "crates", "diesel"), "none");
  EXPECT_EQ(native(c, "crates", "libsqlite3-sys"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "libsqlite3-dev"), nullptr);
}

// With a Cargo.lock the lock says what is built: pq-sys at its locked
// version, with the lock as its evidence, not the manifest's feature.
TEST(MissedBuilds, ALockDecidesWhatDependenciesPull) {
  Contract c = scan_fixture("rust-pulled-crates-locked");
  const NativePackage* pq = native(c, "crates", "pq-sys");
  ASSERT_NE(pq, nullptr);
  EXPECT_EQ(pq->version, "0.6.3");
  for (const auto& e : pq->evidence) EXPECT_EQ(e.value.find("no Cargo.lock"), std::string::npos) << e.value;
  EXPECT_TRUE(required_by(c.run_libs, "libpq5", "crates:pq-sys"));
}

TEST(MissedBuilds, ForkOfAKnownNativePackage) {
  Contract c = scan_fixture("node-fork-sqlite3");
  const NativePackage* n = native(c, "npm", "@acme/sqlite3");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(build_kind_name(n->build), std::string("download"));
  EXPECT_EQ(n->fallback, "compile");
  EXPECT_EQ(n->certainty, Certainty::kInferred);
  EXPECT_NE(n->reason.find("fork of sqlite3"), std::string::npos) << n->reason;
  EXPECT_EQ(origin_of(c, "github.com"), "install-time");
  EXPECT_EQ(native(c, "npm", "@types/sqlite3"), nullptr);  // no build signal
  // ssh2's install script tolerates failure; cpu-features only ever comes as
  // ssh2's optional dependency, so its compile is skipped when it fails.
  EXPECT_EQ(build_of(c, "npm", "ssh2"), "none");
  const NativePackage* cpu = native(c, "npm", "cpu-features");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(build_kind_name(cpu->build), std::string("compile"));
  EXPECT_TRUE(cpu->optional);
  EXPECT_FALSE(c.native_build_required);
  EXPECT_EQ(lib(c.build_libs, "build-essential"), nullptr);
  EXPECT_EQ(egress(c, "nodejs.org"), nullptr);
  EXPECT_TRUE(noted(c, ".", "npm:cpu-features compiles only as an optional dependency"));
}

TEST(MissedBuilds, TauriGtkWebkitStack) {
  Contract c = scan_fixture("rust-tauri-gui");
  EXPECT_TRUE(required_by(c.build_libs, "libwebkit2gtk-4.1-dev", "crates:webkit2gtk-sys"));
  EXPECT_TRUE(required_by(c.build_libs, "libjavascriptcoregtk-4.1-dev", "crates:javascriptcore-rs-sys"));
  EXPECT_TRUE(required_by(c.build_libs, "libsoup-3.0-dev", "crates:soup3-sys"));
  EXPECT_TRUE(required_by(c.build_libs, "libgtk-3-dev", "crates:gtk-sys"));
  EXPECT_TRUE(required_by(c.build_libs, "libayatana-appindicator3-dev", "crates:tauri"));
  EXPECT_TRUE(required_by(c.build_libs, "librsvg2-dev", "crates:tauri"));
  EXPECT_TRUE(required_by(c.run_libs, "libwebkit2gtk-4.1-0", "crates:webkit2gtk-sys"));
  EXPECT_TRUE(required_by(c.run_libs, "libayatana-appindicator3-1", "crates:libappindicator-sys"));
  EXPECT_TRUE(required_by(c.run_libs, "librsvg2-2", "crates:tauri"));
  // Tauri's Linux prerequisites (tauri-action's README) include patchelf for the AppImage bundler.
  EXPECT_TRUE(required_by(c.build_libs, "patchelf", "crates:tauri"));
  EXPECT_EQ(lib(c.run_libs, "patchelf"), nullptr);
  EXPECT_EQ(build_of(c, "crates", "windows-sys"), "none");
  EXPECT_EQ(native(c, "npm", "@tauri-apps/cli"), nullptr);  // no install script: nothing to say
}

// ---- runtime libraries and programs ------------------------------------------

TEST(RuntimeLibs, DlopenAndExecTable) {
  Contract c = scan_fixture("python-dlopen-tools");
  for (const char* prog : {"tesseract-ocr", "ghostscript", "unpaper", "pngquant", "qpdf"})
    EXPECT_TRUE(required_by(c.run_libs, prog, "pypi:ocrmypdf")) << prog;
  EXPECT_TRUE(required_by(c.run_libs, "libmagic1", "pypi:python-magic"));
  EXPECT_TRUE(required_by(c.run_libs, "poppler-utils", "pypi:pdf2image"));
  EXPECT_TRUE(required_by(c.build_libs, "default-libmysqlclient-dev", "pypi:mysqlclient"));
  EXPECT_TRUE(required_by(c.run_libs, "libmariadb3", "pypi:mysqlclient"));
  EXPECT_EQ(build_of(c, "pypi", "ocrmypdf"), "none");
}

TEST(RuntimeLibs, ProgramsAnEntryScriptRuns) {
  Contract c = scan_fixture("shell-entrypoint");
  EXPECT_TRUE(required_by(c.run_libs, "gettext-base", "exec:envsubst"));
  EXPECT_TRUE(required_by(c.run_libs, "postgresql-client", "exec:pg_isready"));  // after `until`
  EXPECT_TRUE(required_by(c.run_libs, "iproute2", "exec:ip"));                    // after `if`
  const SystemLib* gosu = lib(c.run_libs, "gosu");
  ASSERT_NE(gosu, nullptr);  // after `exec`
  EXPECT_EQ(gosu->evidence.front().file, "docker/entrypoint.sh");
  EXPECT_EQ(gosu->evidence.front().field, "line 8");
  // The release script runs on a maintainer's machine.
  EXPECT_EQ(lib(c.run_libs, "git"), nullptr);
  EXPECT_EQ(lib(c.run_libs, "curl"), nullptr);
  // A shell script's builtins and coreutils are not listed as unknown programs.
  EXPECT_FALSE(noted(c, ".", "programs executed that the `programs` table"));
}

TEST(RuntimeLibs, FilesTheGoRuntimeReadsFromTheImage) {
  Contract c = scan_fixture("go-system-files");
  const SystemLib* ca = lib(c.run_libs, "ca-certificates");
  ASSERT_NE(ca, nullptr);  // an HTTPS client verifies against /etc/ssl/certs
  EXPECT_TRUE(required_by(c.run_libs, "ca-certificates", "go:crypto/x509 system roots"));
  EXPECT_EQ(ca->evidence.front().file, "internal/server/fetch.go");
  EXPECT_EQ(ca->evidence.front().field, "line 9");
  const SystemLib* tz = lib(c.run_libs, "tzdata");
  ASSERT_NE(tz, nullptr);
  EXPECT_EQ(tz->evidence.front().field, "line 23");
  // Embedded roots and zone data need neither.
  Contract e = scan_fixture("go-system-files-embedded");
  EXPECT_EQ(lib(e.run_libs, "ca-certificates"), nullptr);
  EXPECT_EQ(lib(e.run_libs, "tzdata"), nullptr);
  EXPECT_TRUE(noted(e, "main.go", "tzdata is not needed at run time: time/tzdata embeds it"));
  EXPECT_TRUE(noted(e, "main.go", "ca-certificates is not needed at run time"));
}

// ---- floors and hosts ------------------------------------------------------------

TEST(FloorsAndHosts, CiMatrixDevcontainerDockerfileAndCorepack) {
  Contract c = scan_fixture("node-ci-devcontainer");
  const RuntimeFloor* f = floors(c, "node");
  ASSERT_NE(f, nullptr);
  // engines >=18, CI matrix 20|22, devcontainer typescript-node 1-20 (Node 20),
  // Dockerfile node:20.15.1-alpine (ARG default) and node:20-alpine.
  EXPECT_EQ(f->constraints.size(), 5u);
  EXPECT_TRUE(has_constraint(c, "node", ".github/workflows/ci.yml", "jobs.test.steps[1].with.node-version"));
  EXPECT_TRUE(has_constraint(c, "node", ".devcontainer/devcontainer.json", "image"));
  EXPECT_TRUE(has_constraint(c, "node", "Dockerfile", "FROM"));
  // engines >=18 is the floor; the image's stage (node:20-alpine) pins the 20
  // line, the version provisioned; CI, the devcontainer and the builder stage are tested.
  EXPECT_EQ(f->floor, "18.0.0");
  EXPECT_EQ(f->pin, ">=20.0.0 <21.0.0");
  EXPECT_EQ(f->provision, ">=20.0.0 <21.0.0");
  EXPECT_EQ(f->tested, (std::vector<std::string>{">=20.0.0 <21.0.0", "=20.15.1", ">=22.0.0 <23.0.0"}));
  EXPECT_TRUE(f->conflicts.empty());
  EXPECT_TRUE(has_constraint(c, "python", ".devcontainer/devcontainer.json", "features."));
  EXPECT_EQ(floor_of(c, "python"), "3.12.0");
  // corepack fetches yarn 4 itself.
  EXPECT_EQ(origin_of(c, "repo.yarnpkg.com"), "install-time");
  EXPECT_EQ(egress(c, "repo.yarnpkg.com")->mirror_env, "COREPACK_NPM_REGISTRY");
}

TEST(FloorsAndHosts, LegacyRustToolchainFile) {
  Contract c = scan_fixture("rust-legacy-toolchain");
  EXPECT_EQ(floor_of(c, "rust"), "1.56.0");  // edition 2021
  EXPECT_EQ(floors(c, "rust")->provision, "=1.76.0");  // the legacy rust-toolchain file pins it
  const EgressHost* h = egress(c, "static.rust-lang.org");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->evidence.front().file, "rust-toolchain");
}

// ---- packages a Dockerfile installs ------------------------------------------------

TEST(DeclaredPackages, DockerfileInstallLinesByStage) {
  Contract c = scan_fixture("docker-declared-packages");
  // The builder stage: build needs, a comment line inside the continuation skipped.
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "dockerfile:Dockerfile"));
  EXPECT_TRUE(required_by(c.build_libs, "libpq-dev", "dockerfile:Dockerfile"));
  EXPECT_TRUE(required_by(c.build_libs, "curl", "dockerfile:Dockerfile"));
  EXPECT_EQ(lib(c.build_libs, "libpq-dev")->evidence.front().field, "line 3");
  // The final stage: run needs; a version pin and quotes are not part of the name.
  EXPECT_TRUE(required_by(c.run_libs, "libpq5", "dockerfile:Dockerfile"));
  EXPECT_TRUE(required_by(c.run_libs, "ffmpeg", "dockerfile:Dockerfile"));
  EXPECT_TRUE(required_by(c.run_libs, "gettext-base", "dockerfile:Dockerfile"));
  EXPECT_EQ(lib(c.run_libs, "curl"), nullptr);
  // `echo "apt-get install is …"` installs nothing.
  EXPECT_EQ(lib(c.run_libs, "is"), nullptr);
  EXPECT_EQ(lib(c.run_libs, "how"), nullptr);
  // Alpine names become Debian names; an unknown one is a note, libc6-compat is nothing on Debian.
  EXPECT_TRUE(required_by(c.run_libs, "git", "dockerfile:docker/alpine.Dockerfile"));
  EXPECT_TRUE(required_by(c.run_libs, "openssh-client", "dockerfile:docker/alpine.Dockerfile"));
  EXPECT_TRUE(required_by(c.run_libs, "openssh-server", "dockerfile:docker/alpine.Dockerfile"));
  EXPECT_EQ(lib(c.run_libs, "libc6-compat"), nullptr);
  EXPECT_EQ(lib(c.run_libs, "requirements.txt"), nullptr);  // after the `;`
  EXPECT_TRUE(noted(c, "docker/alpine.Dockerfile", "Alpine package su-exec is not in alpine_packages"));
  EXPECT_EQ(floor_of(c, "python"), "3.12.0");
}

// The final stage starts FROM a named stage (chosen by BuildKit's TARGETOS/
// TARGETARCH, linux/amd64 here): that stage's packages are in the image too.
TEST(DeclaredPackages, StagesTheFinalStageIsBuiltFrom) {
  Contract c = scan_fixture("docker-stage-inheritance");
  EXPECT_TRUE(required_by(c.run_libs, "ca-certificates", "dockerfile:Dockerfile"));
  EXPECT_TRUE(required_by(c.run_libs, "curl", "dockerfile:Dockerfile"));
  EXPECT_TRUE(required_by(c.run_libs, "tzdata", "dockerfile:Dockerfile"));
  EXPECT_EQ(lib(c.run_libs, "wget"), nullptr);  // the arm64 runner is not this image
  EXPECT_EQ(lib(c.run_libs, "libsqlite3-dev"), nullptr);
  EXPECT_TRUE(required_by(c.build_libs, "libsqlite3-dev", "dockerfile:Dockerfile"));
  EXPECT_EQ(lib(c.build_libs, "curl"), nullptr);
  EXPECT_EQ(floor_of(c, "go"), "1.22.0");
}

// ---- programs the build runs ------------------------------------------------------

// A Makefile with a build target is the build: make, and git for the version
// its variables stamp, are build packages. A Makefile of developer tasks only
// (no build/all target) adds neither.
TEST(BuildPrograms, MakefileBuildTargetAndVersionStamping) {
  Contract c = scan_fixture("go-makefile-build");
  EXPECT_TRUE(required_by(c.build_libs, "make", "make:Makefile"));
  EXPECT_TRUE(required_by(c.build_libs, "git", "make:Makefile"));
  EXPECT_EQ(lib(c.build_libs, "git")->evidence.front().field, "line 1");
  EXPECT_TRUE(has_command(c, "git"));
  EXPECT_EQ(lib(c.run_libs, "git"), nullptr);
  EXPECT_FALSE(c.native_build_required);  // go build compiles no C

  Contract t = scan_fixture("go-makefile-tasks");
  EXPECT_EQ(lib(t.build_libs, "make"), nullptr);
  EXPECT_EQ(lib(t.build_libs, "git"), nullptr);
}

TEST(DeclaredPackages, InstallDocumentationBuildDependencies) {
  Contract c = scan_fixture("docs-install-lines");
  const std::string by = "docs:docs/installation/3-application.md";
  for (const char* pkg : {"build-essential", "python3-dev", "libxml2-dev", "libxslt1-dev", "libffi-dev", "libpq-dev",
                          "libssl-dev", "zlib1g-dev"})
    EXPECT_TRUE(required_by(c.build_libs, pkg, by)) << pkg;
  EXPECT_TRUE(required_by(c.run_libs, "python3-venv", by));
  EXPECT_EQ(lib(c.build_libs, "libxml2-dev")->evidence.front().field, "line 7");
  // A database server for another machine, and a package named in prose, are not read.
  EXPECT_EQ(lib(c.run_libs, "postgresql"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "libjpeg-dev"), nullptr);
}

// ---- tools needed without a version -------------------------------------------------

// A package.json without engines and a requirements.txt without
// requires-python still say node and python are needed: an entry with no
// floor (any version), its evidence the shallowest manifest.
TEST(ToolsNeeded, AManifestWithoutAVersionStillNeedsItsTool) {
  Contract c = scan_fixture("runtime-presence");
  const RuntimeFloor* node = floors(c, "node");
  ASSERT_NE(node, nullptr);
  EXPECT_TRUE(node->floor.empty());
  EXPECT_TRUE(node->satisfying.empty());
  ASSERT_EQ(node->constraints.size(), 1u);
  EXPECT_EQ(node->constraints[0].source.file, "package.json");
  EXPECT_TRUE(node->constraints[0].range.empty());
  EXPECT_TRUE(has_constraint(c, "python", "api/requirements.txt", "file"));
  EXPECT_TRUE(floors(c, "python")->floor.empty());
  EXPECT_TRUE(c.warnings.empty());  // no version is not an unreadable version
  // With a declared version, the manifest adds nothing: the constraints say it.
  Contract plain = scan_fixture("node-plain");
  ASSERT_NE(floors(plain, "node"), nullptr);
  EXPECT_FALSE(has_constraint(plain, "node", "package.json", "file"));
  EXPECT_EQ(floor_of(plain, "node"), "18.0.0");
}

// A Go service whose Dockerfile installs nodejs and runs `npm install -g
// less` and `python3 -m pip install mkdocs`: node and python are needed,
// from those lines, and their registries are reached although no
// package.json or requirements file is in the tree.
TEST(ToolsNeeded, ADockerfileThatInstallsARuntimeOrRunsItsPackageManager) {
  Contract c = scan_fixture("docker-runtime-installs");
  EXPECT_TRUE(has_constraint(c, "node", "Dockerfile", "RUN"));
  EXPECT_TRUE(floors(c, "node")->floor.empty());
  EXPECT_TRUE(has_constraint(c, "python", "Dockerfile", "RUN"));
  EXPECT_EQ(floor_of(c, "go"), "1.21.0");
  EXPECT_FALSE(has_constraint(c, "go", "Dockerfile", "RUN"));
  const EgressHost* npm = egress(c, "registry.npmjs.org");
  ASSERT_NE(npm, nullptr);
  EXPECT_EQ(origin_of(c, "registry.npmjs.org"), "install-time");
  ASSERT_FALSE(npm->evidence.empty());
  EXPECT_EQ(npm->evidence.front().field, "line 4");
  EXPECT_EQ(origin_of(c, "pypi.org"), "install-time");
  EXPECT_EQ(origin_of(c, "files.pythonhosted.org"), "install-time");
  EXPECT_EQ(lib(c.run_libs, "nodejs"), nullptr);  // Alpine's nodejs maps to no Debian package
  // `pip wheel … mysqlclient==2.2.4` builds mysqlclient like a requirements
  // file would.
  const NativePackage* mysql = native(c, "pypi", "mysqlclient");
  ASSERT_NE(mysql, nullptr);
  EXPECT_EQ(build_kind_name(mysql->build), std::string("compile"));
  EXPECT_EQ(mysql->evidence.front().file, "Dockerfile");
  EXPECT_EQ(mysql->evidence.front().field, "line 6");
  EXPECT_EQ(mysql->version, "2.2.4");
  EXPECT_TRUE(required_by(c.build_libs, "default-libmysqlclient-dev", "pypi:mysqlclient"));
  EXPECT_TRUE(required_by(c.run_libs, "libmariadb3", "pypi:mysqlclient"));
  EXPECT_TRUE(c.native_build_required);
  // A Node project whose .npmrc names its registry: `npm ci` in its
  // Dockerfile uses that registry, so the public one is not added.
  Contract conf = scan_fixture("docker-npm-configured");
  EXPECT_EQ(egress(conf, "registry.npmjs.org"), nullptr);
  EXPECT_EQ(origin_of(conf, "npm.internal.example.com"), "config");
}

// A workflow's run steps: `(cd ui && yarn)` needs node and yarn, `pnpm
// install` node and pnpm; with no package.json in the tree their registries
// come from the commands, each step as evidence.
TEST(ToolsNeeded, AWorkflowRunStepThatRunsAPackageManager) {
  Contract c = scan_fixture("ci-run-steps");
  EXPECT_TRUE(has_constraint(c, "yarn", ".github/workflows/build.yml", "jobs.build.steps[1].run"));
  EXPECT_TRUE(has_constraint(c, "node", ".github/workflows/build.yml", "jobs.build.steps[1].run"));
  EXPECT_TRUE(has_constraint(c, "pnpm", ".github/workflows/build.yml", "jobs.build.steps[2].run"));
  const EgressHost* yarn = egress(c, "registry.yarnpkg.com");
  ASSERT_NE(yarn, nullptr);
  EXPECT_EQ(origin_of(c, "registry.yarnpkg.com"), "install-time");
  EXPECT_EQ(yarn->evidence.front().value, "yarn");  // the command, out of its subshell
  EXPECT_EQ(origin_of(c, "registry.npmjs.org"), "install-time");
}

// pycurl had no Linux wheels before 7.45.3: an older pin compiles against
// libcurl and OpenSSL; a newer one installs a wheel.
TEST(MissedBuilds, PycurlCompilesOnlyBeforeItsLinuxWheels) {
  Contract old = scan_fixture("python-pycurl-sdist");
  EXPECT_EQ(build_of(old, "pypi", "pycurl"), "compile");
  EXPECT_TRUE(old.native_build_required);
  EXPECT_TRUE(required_by(old.build_libs, "libcurl4-openssl-dev", "pypi:pycurl"));
  EXPECT_TRUE(required_by(old.build_libs, "libssl-dev", "pypi:pycurl"));
  EXPECT_TRUE(required_by(old.run_libs, "libcurl4", "pypi:pycurl"));
  Contract wheels = scan_fixture("python-pycurl-wheels");
  EXPECT_EQ(build_of(wheels, "pypi", "pycurl"), "prebuilt");
  EXPECT_FALSE(wheels.native_build_required);
  EXPECT_EQ(lib(wheels.build_libs, "libcurl4-openssl-dev"), nullptr);
}

// Dockerfile-alpine is a Dockerfile; what its build downloads (ADD <url>,
// curl, wget, git clone) and the index a pip command names are egress; a
// host spelled with a variable is not guessed. Alpine's wireguard-tools,
// dumb-init and ip6tables have Debian names.
TEST(DeclaredPackages, WhatADockerfileDownloadsAndItsVariantNames) {
  Contract c = scan_fixture("docker-downloads");
  EXPECT_EQ(origin_of(c, "www.sqlite.org"), "install-time");
  EXPECT_EQ(egress(c, "www.sqlite.org")->evidence.front().field, "line 5");
  // The Node the builder downloads from nodejs.org, by its ARG: a version the build runs.
  ASSERT_NE(floors(c, "node"), nullptr);
  EXPECT_EQ(floors(c, "node")->tested, std::vector<std::string>{"=22.11.0"});
  EXPECT_EQ(floors(c, "node")->constraints.front().source.field, "RUN line 4");
  EXPECT_EQ(origin_of(c, "astral.sh"), "install-time");
  EXPECT_EQ(egress(c, "astral.sh")->evidence.front().value, "curl -LsSf https://astral.sh/uv/install.sh");
  EXPECT_EQ(origin_of(c, "github.com"), "install-time");
  EXPECT_EQ(origin_of(c, "wheels.example.org"), "config");
  EXPECT_EQ(origin_of(c, "pypi.org"), "install-time");  // --extra-index-url adds to PyPI
  for (const auto& h : c.egress_hosts) EXPECT_EQ(h.host.find('$'), std::string::npos) << h.host;
  for (const char* pkg : {"wireguard-tools", "dumb-init", "iptables"})
    EXPECT_TRUE(required_by(c.run_libs, pkg, "dockerfile:Dockerfile-alpine")) << pkg;
  EXPECT_TRUE(required_by(c.build_libs, "curl", "dockerfile:Dockerfile-alpine"));
  EXPECT_TRUE(c.notes.empty()) << c.notes.front().message;
}

// A helper of the repository's own that wraps child_process.exec: its calls
// from a file that requires it run programs; a RegExp's exec does not.
TEST(RuntimeLibraries, ProgramsRunThroughTheRepositorysOwnExecHelper) {
  Contract c = scan_fixture("node-exec-wrapper");
  EXPECT_TRUE(required_by(c.run_libs, "wireguard-tools", "exec:wg"));
  EXPECT_TRUE(required_by(c.run_libs, "wireguard-tools", "exec:wg-quick"));
  const SystemLib* wg = lib(c.run_libs, "wireguard-tools");
  ASSERT_NE(wg, nullptr);
  EXPECT_EQ(wg->evidence.front().file, "src/lib/Tunnel.js");
  EXPECT_EQ(lib(c.run_libs, "ffmpeg"), nullptr);  // commented out
  EXPECT_EQ(lib(c.run_libs, "git"), nullptr);     // pattern.exec('git 2.39') is a RegExp
}

// Dependencies installed from a git host or a URL reach that host, not the
// registry; one over SSH is a note, since a read-only HTTP policy cannot
// grant it; file:, npm: aliases and ranges reach nothing new.
TEST(FloorsAndHosts, DependenciesFromGitHostsAndUrls) {
  Contract c = scan_fixture("node-git-dependencies");
  EXPECT_EQ(origin_of(c, "github.com"), "install-time");
  EXPECT_EQ(origin_of(c, "codeload.github.com"), "install-time");
  const EgressHost* gh = egress(c, "github.com");
  ASSERT_NE(gh, nullptr);
  EXPECT_EQ(gh->evidence.front().field, "dependencies.@webcoder49/code-input");
  EXPECT_EQ(origin_of(c, "gitlab.example.org"), "install-time");
  EXPECT_EQ(origin_of(c, "cdn.example.net"), "install-time");
  EXPECT_EQ(egress(c, "git.example.com"), nullptr);
  EXPECT_TRUE(noted(c, "package.json", "installed over SSH"));
  EXPECT_TRUE(noted(c, "package.json", "installed over the git protocol"));  // git:// is not HTTP
  EXPECT_EQ(egress(c, "gitproto.example.com"), nullptr);
  ASSERT_NE(egress(c, "plainhttp.example.com"), nullptr);
  EXPECT_EQ(egress(c, "plainhttp.example.com")->port, 80);
  EXPECT_TRUE(noted(c, "package.json", "is not an egress host"));  // https://[::1]:8080: an IP literal
  const EgressHost* creds = egress(c, "creds.example.com");
  ASSERT_NE(creds, nullptr);
  EXPECT_EQ(creds->port, 8081);
  EXPECT_EQ(creds->reason.find("Pass"), std::string::npos) << creds->reason;
  EXPECT_EQ(creds->evidence.front().value, "http://(credential, not shown)@creds.example.com:8081/creds-1.0.0.tgz");
  EXPECT_EQ(origin_of(c, "registry.npmjs.org"), "default");
  EXPECT_EQ(c.egress_hosts.size(), 7u);  // the six above and the registry
}

// setup.py's install_requires and extras_require are dependencies like
// pyproject's dependencies and optional-dependencies; the extras' names and a
// comment are not packages.
TEST(MissedBuilds, SetupPyDependenciesAndExtras) {
  Contract c = scan_fixture("python-setup-py-deps");
  EXPECT_EQ(build_of(c, "pypi", "psycopg2"), "compile");
  EXPECT_EQ(native(c, "pypi", "psycopg2")->evidence.front().field, "install_requires");
  EXPECT_EQ(build_of(c, "pypi", "pillow"), "prebuilt");
  EXPECT_EQ(build_of(c, "pypi", "pylibmc"), "compile");
  EXPECT_EQ(native(c, "pypi", "pylibmc")->evidence.front().field, "extras_require");
  EXPECT_TRUE(required_by(c.build_libs, "libmemcached-dev", "pypi:pylibmc"));
  EXPECT_TRUE(required_by(c.run_libs, "libmemcached11", "pypi:pylibmc"));
  EXPECT_EQ(build_of(c, "pypi", "mysqlclient"), "compile");
  EXPECT_EQ(native(c, "pypi", "memcached"), nullptr);
  EXPECT_EQ(floor_of(c, "python"), "3.9.0");
  EXPECT_TRUE(c.warnings.empty());
}

// The shell of a RUN line as the shell reads it: comments, echo's
// arguments and option values are not commands, packages or hosts; the
// first command of a line, a here-document and the exec form are read; a
// URL's credentials are not copied into the contract.
TEST(DeclaredPackages, RunLinesReadAsTheShellReadsThem) {
  Contract c = scan_fixture("docker-shell-lines");
  for (const char* host : {"plain.example.com", "real.example.com", "git.example.com", "heredoc.example.com"})
    EXPECT_EQ(origin_of(c, host), "install-time") << host;
  EXPECT_EQ(egress(c, "referer.example.com"), nullptr);  // the value of -H
  EXPECT_EQ(origin_of(c, "gitlab.example.com"), "config");
  // A here-document fed to cat is a file's content, not commands; `1<<2` is a shift.
  EXPECT_EQ(lib(c.build_libs, "notapackage"), nullptr);
  EXPECT_EQ(egress(c, "in-a-config-file.example.com"), nullptr);
  for (const char* pkg : {"vimy", "golang-go", "vimh", "libpq5", "jq", "after-shift"})
    EXPECT_TRUE(required_by(c.build_libs, pkg, "dockerfile:Dockerfile")) << pkg;
  for (const char* not_pkg : {"vimz", "trailing", "comment", "vims", "bookworm-backports", "vimk", "vimk-"}) {
    EXPECT_EQ(lib(c.build_libs, not_pkg), nullptr) << not_pkg;
    EXPECT_EQ(lib(c.run_libs, not_pkg), nullptr) << not_pkg;
  }
  EXPECT_TRUE(required_by(c.run_libs, "ca-certificates", "dockerfile:Dockerfile"));
  EXPECT_EQ(native(c, "pypi", "mysqlclient"), nullptr);  // in a comment
  EXPECT_EQ(native(c, "pypi", "pylibmc"), nullptr);      // the value of --no-binary, not a requirement
  EXPECT_EQ(native(c, "pypi", "psycopg2"), nullptr);     // a comment in the workflow
  EXPECT_EQ(floors(c, "node"), nullptr);                 // echo's words and a comment
  EXPECT_FALSE(c.native_build_required);
  std::string all;
  for (const auto& h : c.egress_hosts)
    for (const auto& e : h.evidence) all += e.value + h.reason;
  EXPECT_EQ(all.find("SECRET"), std::string::npos);
  EXPECT_NE(all.find("(credential, not shown)@gitlab.example.com"), std::string::npos);
}

// ---- crates a TLS stack pulls, without a Cargo.lock -------------------------------------

TEST(MissedBuilds, TheTlsStackADependencyPullsPerDeclaration) {
  Contract c = scan_fixture("rust-tls-pulls");
  // legacy: reqwest 0.11 with its defaults is native-tls, so OpenSSL.
  const NativePackage* tls = native(c, "crates", "native-tls");
  ASSERT_NE(tls, nullptr);
  EXPECT_EQ(tls->evidence.front().file, "legacy/Cargo.toml");
  EXPECT_EQ(build_of(c, "crates", "openssl-sys"), "compile");
  EXPECT_TRUE(required_by(c.build_libs, "libssl-dev", "crates:openssl-sys"));
  EXPECT_TRUE(required_by(c.run_libs, "libssl3", "crates:openssl-sys"));
  EXPECT_TRUE(required_by(c.run_libs, "ca-certificates", "crates:native-tls"));
  // api: reqwest 0.12 from [workspace.dependencies], defaults off, rustls-tls: ring.
  const NativePackage* ring = native(c, "crates", "ring");
  ASSERT_NE(ring, nullptr);
  EXPECT_EQ(ring->evidence.front().file, "api/Cargo.toml");
  EXPECT_EQ(ring->evidence.front().value, "rustls-tls");
  // fetch13: reqwest 0.13 with rustls is aws-lc and the platform verifier,
  // although legacy's reqwest 0.11 keeps its defaults: another package to Cargo.
  EXPECT_EQ(build_of(c, "crates", "aws-lc-sys"), "compile");
  EXPECT_EQ(native(c, "crates", "aws-lc-sys")->evidence.front().file, "fetch13/Cargo.toml");
  EXPECT_TRUE(required_by(c.run_libs, "ca-certificates", "crates:rustls-platform-verifier"));
  // mailer: lettre without its defaults, on rustls: no native-tls from it.
  for (const auto& e : tls->evidence) EXPECT_NE(e.file, "mailer/Cargo.toml");
  EXPECT_TRUE(c.native_build_required);
}

// Every Rust build links with cc, C or no C: the linker and C library are
// needed, and that alone is not a native build.
TEST(MissedBuilds, RustLinksWithTheSystemCompilerDriver) {
  Contract c = scan_fixture("rust-legacy-toolchain");
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "rust:linker"));
  EXPECT_TRUE(has_command(c, "cc"));
}

// ---- scoping ----------------------------------------------------------------------

TEST(Scoping, PnpmVersionAppliesToItsOwnProject) {
  Contract c = scan_fixture("node-scoped-pnpm");
  // tools/docs pins pnpm 10, which skips re2's unlisted build script.
  EXPECT_TRUE(warned(c, "tools/docs/package.json", "pnpm 10.2.0 skips the build script of re2"));
  // The root is an npm project: its better-sqlite3 build runs.
  EXPECT_FALSE(any_warning_mentions(c, "better-sqlite3"));
  EXPECT_EQ(build_of(c, "npm", "better-sqlite3"), "download");
}

}  // namespace
}  // namespace strata::contract::testing
