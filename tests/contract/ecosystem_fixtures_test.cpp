// Reviewed expectations for the Python, Go, Rust, C/C++, version-manager,
// declared-egress, realistic and hostile fixture repositories.
#include "contract/model/serialize.hpp"
#include "fixture_support.hpp"

namespace strata::contract::testing {
namespace {

TEST(PythonFixtures, DjangoWithPsycopg2CompilesAgainstLibpq) {
  Contract c = scan_fixture("python-django-psycopg2");
  EXPECT_EQ(build_of(c, "pypi", "psycopg2"), "compile");
  // No lockfile: the lowest declared version wins (pyproject >=2.9 below requirements ==2.9.9).
  EXPECT_EQ(native(c, "pypi", "psycopg2")->version, "2.9.0");
  EXPECT_EQ(build_of(c, "pypi", "psycopg2-binary"), "prebuilt");
  EXPECT_EQ(build_of(c, "pypi", "pillow"), "prebuilt");  // PEP 503: Pillow → pillow
  EXPECT_EQ(native(c, "pypi", "django"), nullptr);
  EXPECT_TRUE(c.native_build_required);
  EXPECT_TRUE(required_by(c.build_libs, "libpq-dev", "pypi:psycopg2"));
  EXPECT_TRUE(required_by(c.build_libs, "python3-dev", "pypi:psycopg2"));
  EXPECT_TRUE(required_by(c.run_libs, "libpq5", "pypi:psycopg2"));
  // requires-python >=3.11 is the floor; runtime.txt pins 3.12.4, the version provisioned.
  EXPECT_EQ(floor_of(c, "python"), "3.11.0");
  EXPECT_EQ(floors(c, "python")->pin, "=3.12.4");
  EXPECT_EQ(floors(c, "python")->provision, "=3.12.4");
  EXPECT_EQ(origin_of(c, "pypi.org"), "config");
  EXPECT_EQ(origin_of(c, "files.pythonhosted.org"), "<absent>");  // a custom index was set
}

TEST(PythonFixtures, UvLockSdistOnlyAndMisspeltVersionFile) {
  Contract c = scan_fixture("python-uv-sdist");
  EXPECT_EQ(build_of(c, "pypi", "mysqlclient"), "compile");
  EXPECT_TRUE(required_by(c.build_libs, "default-libmysqlclient-dev", "pypi:mysqlclient"));
  const NativePackage* odd = native(c, "pypi", "oddball");
  ASSERT_NE(odd, nullptr);  // unknown, but only an sdist is locked
  EXPECT_EQ(build_kind_name(odd->build), std::string("compile"));
  // A pure-Python sdist builds without a compiler: an sdist alone is assumed.
  EXPECT_EQ(odd->certainty, Certainty::kAssumed);
  EXPECT_EQ(lib(c.build_libs, "python3-dev")->required_by, std::vector<std::string>{"pypi:mysqlclient"});
  EXPECT_EQ(build_of(c, "pypi", "pydub"), "none");
  EXPECT_TRUE(required_by(c.run_libs, "ffmpeg", "pypi:pydub"));
  // requires-python >=3.10,<3.14 is the floor; .python-version pins the 3.12 line.
  EXPECT_EQ(floor_of(c, "python"), "3.10.0");
  EXPECT_EQ(floors(c, "python")->pin, ">=3.12.0 <3.13.0");
  EXPECT_EQ(floors(c, "python")->provision, ">=3.12.0 <3.13.0");
  EXPECT_TRUE(warned(c, ".python-version.txt", "misspelt"));
  EXPECT_EQ(origin_of(c, "pypi.internal.example.com"), "config");
  EXPECT_EQ(egress(c, "pypi.org"), nullptr);
}

TEST(PythonFixtures, MalformedPyprojectIsAWarning) {
  Contract c = scan_fixture("python-poetry-malformed");
  EXPECT_TRUE(warned(c, "pyproject.toml", "malformed TOML at line 3"));
  EXPECT_TRUE(noted(c, ".python-version", "names no CPython release"));
  // Still a Python project: python is needed, at no version anything states.
  ASSERT_NE(floors(c, "python"), nullptr);
  EXPECT_TRUE(floors(c, "python")->floor.empty());
}

TEST(GoFixtures, GoLineToolchainAndGodebug) {
  Contract c = scan_fixture("go-toolchain-godebug");
  const RuntimeFloor* f = floors(c, "go");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->constraints.size(), 2u);  // go and toolchain; godebug is not a go line
  EXPECT_EQ(f->constraints[0].source.field, "go");
  EXPECT_EQ(f->constraints[0].floor, "1.22.0");
  EXPECT_EQ(f->constraints[1].source.value, "go1.23.4");
  EXPECT_EQ(f->floor, "1.22.0");  // the go directive: the minimum the module supports
  EXPECT_EQ(constraint_kind_name(f->constraints[1].kind), std::string("pin"));
  EXPECT_EQ(f->pin, f->constraints[1].range);  // toolchain go1.23.4: the version chosen
  EXPECT_EQ(f->provision, f->pin);
  EXPECT_TRUE(noted(c, "go.mod", "would download the toolchain"));
  EXPECT_EQ(origin_of(c, "proxy.golang.org"), "default");
  EXPECT_EQ(origin_of(c, "sum.golang.org"), "default");
  // No import "C" of its own, but github.com/mattn/go-sqlite3 compiles C with cgo.
  EXPECT_EQ(build_of(c, "go", "github.com/mattn/go-sqlite3"), "compile");
  EXPECT_TRUE(c.native_build_required);
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "go:github.com/mattn/go-sqlite3"));
}

TEST(GoFixtures, CgoWithPkgConfigLibpq) {
  Contract c = scan_fixture("go-cgo");
  const NativePackage* n = native(c, "go", "example.com/cgo-svc");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(build_kind_name(n->build), std::string("compile"));
  ASSERT_EQ(n->evidence.size(), 1u);  // the _test.go file does not count
  EXPECT_EQ(n->evidence[0].file, "internal/pq/pq.go");
  EXPECT_TRUE(required_by(c.build_libs, "libpq-dev", "go:example.com/cgo-svc"));
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "go:example.com/cgo-svc"));
  EXPECT_EQ(floor_of(c, "go"), "1.21.0");
}

TEST(RustFixtures, OpensslSysNeedsLibsslAndPkgConfig) {
  Contract c = scan_fixture("rust-openssl-sys");
  EXPECT_EQ(build_of(c, "crates", "openssl-sys"), "compile");
  EXPECT_EQ(native(c, "crates", "openssl-sys")->version, "0.9.102");
  EXPECT_TRUE(required_by(c.build_libs, "libssl-dev", "crates:openssl-sys"));
  EXPECT_TRUE(required_by(c.build_libs, "pkg-config", "crates:openssl-sys"));
  EXPECT_TRUE(required_by(c.run_libs, "libssl3", "crates:openssl-sys"));
  // rust-version 1.74, edition 2021 (1.56), Cargo.lock v4 (1.78): the floor 1.78;
  // rust-toolchain.toml pins 1.79.0 exactly, the version provisioned.
  EXPECT_EQ(floor_of(c, "rust"), "1.78.0");
  EXPECT_EQ(floors(c, "rust")->pin, "=1.79.0");
  EXPECT_EQ(floors(c, "rust")->provision, "=1.79.0");
  EXPECT_EQ(floors(c, "rust")->constraints.size(), 4u);
  EXPECT_EQ(origin_of(c, "index.crates.io"), "lockfile");
  EXPECT_EQ(origin_of(c, "static.crates.io"), "lockfile");
  EXPECT_EQ(origin_of(c, "git.acme.example.com"), "lockfile");
  EXPECT_EQ(origin_of(c, "static.rust-lang.org"), "default");
}

TEST(CFixtures, CMakeFindPackageAndPkgConfig) {
  Contract c = scan_fixture("cmake-native");
  EXPECT_EQ(build_of(c, "cmake", "imgtool"), "compile");
  EXPECT_EQ(floor_of(c, "cmake"), "3.20.0");
  EXPECT_TRUE(required_by(c.build_libs, "libssl-dev", "cmake:imgtool"));
  EXPECT_TRUE(required_by(c.build_libs, "zlib1g-dev", "cmake:imgtool"));
  EXPECT_TRUE(required_by(c.build_libs, "libvips-dev", "cmake:imgtool"));
  EXPECT_TRUE(required_by(c.build_libs, "cmake", "cmake:imgtool"));
  EXPECT_EQ(lib(c.build_libs, "qt6-base-dev"), nullptr);  // commented out
  EXPECT_TRUE(noted(c, "CMakeLists.txt", "FancyInternalThing"));
  EXPECT_TRUE(has_command(c, "cmake"));
}

TEST(ToolVersionFixtures, AsdfMiseAndDeclaredEgress) {
  Contract c = scan_fixture("mise-asdf-project");
  // .tool-versions nodejs 20.11.1 (exact) ∩ mise lts/iron (20.x).
  EXPECT_EQ(floor_of(c, "node"), "20.11.1");
  EXPECT_EQ(floor_of(c, "go"), "1.22.3");
  EXPECT_EQ(floor_of(c, "python"), "3.12.2");  // the first version is the default
  EXPECT_EQ(floor_of(c, "pnpm"), "9.4.0");
  EXPECT_EQ(floors(c, "ruby")->pin, "=3.3.0");  // tracked since the Ruby scanner; a pin, no Gemfile
  EXPECT_EQ(floor_of(c, "ruby"), "3.3.0");
  EXPECT_TRUE(noted(c, "mise.toml", "names no release"));
  // mise.lock: the release mise resolved `rust = "latest"` to is the version the project installs.
  ASSERT_NE(floors(c, "rust"), nullptr);
  EXPECT_EQ(floors(c, "rust")->pin, "=1.80.1");
  EXPECT_EQ(floors(c, "rust")->constraints.back().source.field, "tools.rust.version");
  EXPECT_EQ(origin_of(c, "api.github.com"), "declared");
  EXPECT_EQ(egress(c, "api.github.com")->reason, "release metadata");
  EXPECT_EQ(origin_of(c, "uploads.example.com"), "declared");
  EXPECT_TRUE(warned(c, ".mac/project.yaml", "read-write"));
  EXPECT_TRUE(warned(c, ".mac/project.yaml", "egress[3] has no host"));
  EXPECT_TRUE(has_command(c, "git"));
  EXPECT_TRUE(has_command(c, "jq"));
}

TEST(RealisticFixtures, TypeScriptMonorepoCompilesVscodeSqlite3) {
  Contract c = scan_fixture("real-ts-monorepo-vscode-sqlite3");
  const NativePackage* n = native(c, "npm", "@vscode/sqlite3");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(build_kind_name(n->build), std::string("compile"));
  EXPECT_EQ(n->version, "5.1.8-vscode");
  EXPECT_EQ(build_of(c, "npm", "esbuild"), "prebuilt");  // install script, but known prebuilt
  EXPECT_TRUE(c.native_build_required);
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "npm:@vscode/sqlite3"));
  EXPECT_TRUE(required_by(c.build_libs, "python3", "npm:@vscode/sqlite3"));
  EXPECT_EQ(origin_of(c, "nodejs.org"), "install-time");
  EXPECT_EQ(floor_of(c, "node"), "20.18.0");
  EXPECT_EQ(floors(c, "vscode"), nullptr);  // engines.vscode is not a runtime
  EXPECT_TRUE(has_workspace(c, "extensions/sql-notebook"));
  EXPECT_TRUE(has_workspace(c, "packages/shared"));
}

TEST(RealisticFixtures, MediaServiceBetterSqlite3AndSharp) {
  Contract c = scan_fixture("real-media-service");
  EXPECT_EQ(build_of(c, "npm", "better-sqlite3"), "download");
  EXPECT_EQ(native(c, "npm", "better-sqlite3")->fallback, "compile");
  EXPECT_EQ(build_of(c, "npm", "sharp"), "prebuilt");
  EXPECT_FALSE(c.native_build_required);
  EXPECT_EQ(origin_of(c, "github.com"), "install-time");
  EXPECT_EQ(origin_of(c, "objects.githubusercontent.com"), "install-time");
  // Where GitHub release downloads redirect since 2025: a policy without it
  // lets the download start at github.com and die at the redirect.
  EXPECT_EQ(origin_of(c, "release-assets.githubusercontent.com"), "install-time");
  EXPECT_EQ(origin_of(c, "registry.npmjs.org"), "lockfile");
  EXPECT_EQ(floor_of(c, "node"), "18.17.0");
}

TEST(RobustnessFixtures, HostileInputsBecomeNotesAndWarnings) {
  Contract c = scan_fixture("robust-hostile");
  EXPECT_TRUE(noted(c, ".nvmrc", "symlink leaves the repository"));
  EXPECT_TRUE(noted(c, "requirements.txt", "binary"));
  EXPECT_TRUE(warned(c, ".node-version", "UTF-16"));
  EXPECT_TRUE(warned(c, "package.json", "banana"));
  EXPECT_TRUE(warned(c, "Cargo.toml", "unknown edition"));
  EXPECT_TRUE(warned(c, "Cargo.toml", "not-a-version"));
  const RuntimeFloor* f = floors(c, "node");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->constraints.size(), 1u);  // kept verbatim even though unreadable
  EXPECT_EQ(f->floor, "");
  // Nothing under /etc was indexed through the directory symlink.
  for (const auto& n : c.notes) EXPECT_EQ(n.file.find("escape-dir/"), std::string::npos) << n.file;
  // Both formats serialise the hostile contract.
  EXPECT_NE(to_json(c).find("\"warnings\""), std::string::npos);
  EXPECT_NE(to_yaml(c).find("warnings:"), std::string::npos);
}

TEST(Scan, MissingDirectoryIsAnError) {
  auto c = scan_repository(fixture("does-not-exist"));
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message().find("does-not-exist"), std::string::npos);
}

TEST(Scan, SameTreeSameBytes) {
  auto a = scan_fixture("node-workspaces-scoped");
  auto b = scan_fixture("node-workspaces-scoped");
  EXPECT_EQ(to_yaml(a), to_yaml(b));
  EXPECT_EQ(to_json(a), to_json(b));
}

}  // namespace
}  // namespace strata::contract::testing
