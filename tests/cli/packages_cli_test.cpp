// resolve, key and build through the binary on the fixture archive
// (testdata/overlay, served on loopback): options before, between or after
// the package names mean the same, and `--sources` takes one file per
// occurrence, so `--sources FILE PKG…` no longer reads PKG as a file.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "layer/overlay/overlay_fixture.hpp"
#include "support/cli_test.hpp"

namespace strata::testing {
namespace {

class PackagesCli : public CliTest {
 protected:
  OverlayFixture& fx_ = OverlayFixture::get();
  const std::string sources_ = fx_.sources().string();
  const std::string base_ = fx_.base_ref();
};

TEST_F(PackagesCli, ResolveOptionsAnywhere) {
  std::vector<std::vector<std::string>> orders{
      {"resolve", "--sources", sources_, "--base", base_, "--platform", "linux/amd64", "shared-a", "greet"},
      {"resolve", "shared-a", "--sources", sources_, "greet", "--base", base_, "--platform", "linux/amd64"},
      {"resolve", "shared-a", "greet", "--base", base_, "--platform", "linux/amd64", "--sources", sources_},
      {"resolve", "--sources", sources_, "--sources", sources_, "shared-a", "--platform=linux/amd64", "greet",
       "--base", base_},
  };
  std::string first;
  for (const auto& args : orders) {
    auto r = strata(args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("shared-a "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("greet "), std::string::npos) << r.out;
    if (first.empty()) first = r.out;
    EXPECT_EQ(r.out, first);
  }
}

TEST_F(PackagesCli, KeySourcesRepeatAndPlatformsStayCommaSeparated) {
  // A second source (never contacted: key reads only the files and keys).
  std::ifstream in(fx_.sources());
  std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto other = dir_ / "other.list";
  std::ofstream(other) << std::regex_replace(line, std::regex("http://[^ ]+"), "http://127.0.0.1:1/elsewhere");
  const std::string more = other.string();
  std::vector<std::vector<std::string>> orders{
      {"key", "--base", base_, "--sources", sources_, "--sources", more, "--platform", "linux/amd64,linux/arm64",
       "shared-a", "greet"},
      {"key", "shared-a", "--sources", sources_, "greet", "--sources", more, "--base", base_, "--platform",
       "linux/amd64,linux/arm64"},
      {"key", "shared-a", "greet", "--base", base_, "--platform", "linux/amd64,linux/arm64", "--sources", sources_,
       "--sources", more, "--dest", "oci:" + (dir_ / "ignored").string()},
  };
  std::string key;
  for (const auto& args : orders) {
    auto r = strata([&] {
      auto a = args;
      a.insert(a.begin(), "--json");
      return a;
    }());
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["inputs"]["packages"], nlohmann::json::array({"greet", "shared-a"}));
    EXPECT_EQ(j["inputs"]["platforms"], nlohmann::json::array({"linux/amd64", "linux/arm64"}));
    ASSERT_EQ(j["inputs"]["sources"].size(), 2u) << j.dump();
    EXPECT_EQ(j["inputs"]["sources"][1]["uri"], "http://127.0.0.1:1/elsewhere");
    if (key.empty()) key = j["key"];
    EXPECT_EQ(j["key"], key);
  }
  // One --sources file only: another key.
  auto one = strata({"key", "--base", base_, "--sources", sources_, "--platform", "linux/amd64,linux/arm64",
                     "shared-a", "greet"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(trim_nl(one.out), key);
}

TEST_F(PackagesCli, CacheLsListsWhatBuildsLeft) {
  const std::string cache = "oci:" + (dir_ / "out").string();
  for (const char* tag : {"a", "b"}) {
    auto built = strata({"build", "--base", base_, "--sources", sources_, "--platform", "linux/amd64", "greet", "--dest",
                         cache + ":" + tag});
    ASSERT_EQ(built.code, 0) << built.err;
  }
  auto ls = strata({"cache", "ls", "--cache", cache, "--json"});  // options after the words, too
  ASSERT_EQ(ls.code, 0) << ls.err;
  auto j = nlohmann::json::parse(ls.out);
  ASSERT_EQ(j["overlays"].size(), 1u) << ls.out;
  const auto& o = j["overlays"][0];
  EXPECT_EQ(o["keys"].size(), 2u);
  EXPECT_EQ(o["platforms"], nlohmann::json::array({"linux/amd64"}));
  EXPECT_EQ(o["base"]["name"], base_);
  EXPECT_FALSE(o["last_used"].is_null());
  EXPECT_GT(o["size"].get<std::uint64_t>(), 0u);
  // Both keys, the one `strata key` (and prewarm) prints first: the request
  // key; then the content key, the image's own annotation.
  auto key = strata({"key", "--base", base_, "--sources", sources_, "--platform", "linux/amd64", "greet"});
  ASSERT_EQ(key.code, 0) << key.err;
  ASSERT_EQ(o["keys"].size(), 2u);
  EXPECT_EQ(o["keys"][0], trim_nl(key.out));
  auto text = strata({"cache", "ls", "--cache", cache});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("1 overlay, "), std::string::npos) << text.out;
  const std::string both = o["keys"][0].get<std::string>().substr(0, 12) + "," +
                           o["keys"][1].get<std::string>().substr(0, 12);
  EXPECT_NE(text.out.find("\n" + both + " "), std::string::npos) << text.out;
  // A home where nothing was built: an empty local cache, not an error.
  auto empty = run({strata_binary(), "--home", (dir_ / "fresh-home").string(), "cache", "ls", "--json"});
  ASSERT_EQ(empty.code, 0) << empty.err;
  EXPECT_EQ(nlohmann::json::parse(empty.out)["overlays"].size(), 0u);
}

TEST_F(PackagesCli, BuildOptionsAnywhere) {
  auto dest = [&](const std::string& tag) { return "oci:" + (dir_ / "out").string() + ":" + tag; };
  auto first = strata({"--json", "build", "--base", base_, "--sources", sources_, "--platform", "linux/amd64", "greet",
                       "--dest", dest("a")});
  ASSERT_EQ(first.code, 0) << first.err;
  auto a = nlohmann::json::parse(first.out);
  EXPECT_EQ(a["cached"], false);
  // The same request in another order is the same overlay: found in the cache.
  auto second = strata({"--json", "build", "greet", "--dest", dest("b"), "--base", base_, "--lock-out",
                        (dir_ / "lock").string(), "--platform", "linux/amd64", "--sources", sources_});
  ASSERT_EQ(second.code, 0) << second.err;
  auto b = nlohmann::json::parse(second.out);
  EXPECT_EQ(b["cached"], true);
  EXPECT_EQ(b["key"], a["key"]);
  EXPECT_EQ(b["digest"], a["digest"]);
  // A repeatable option before the names no longer takes them as its values.
  auto third = strata({"build", "--sources", sources_, "greet", "--base", base_, "--platform", "linux/amd64", "--dest",
                       dest("c")});
  ASSERT_EQ(third.code, 0) << third.err;
  EXPECT_EQ(trim_nl(third.out), "oci:" + (dir_ / "out").string() + ":c@" + a["digest"].get<std::string>());
}

// A resolve that has to fetch says so on stderr; within --index-max-age a
// second one asks the archive nothing and says nothing; 0 revalidates.
TEST_F(PackagesCli, AResolveSaysWhenItFetchesAndAFreshOneDoesNot) {
  std::vector<std::string> args{"resolve", "greet", "--base", base_, "--sources", sources_, "--platform", "linux/amd64"};
  auto first = strata(args);
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.err.find("fetching "), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("/InRelease (never fetched here)"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("Packages (not in the index cache)"), std::string::npos) << first.err;
  auto warm = strata(args);
  ASSERT_EQ(warm.code, 0) << warm.err;
  EXPECT_EQ(warm.out, first.out);
  EXPECT_EQ(warm.err.find("fetching"), std::string::npos) << warm.err;
  args.insert(args.begin() + 1, {"--index-max-age", "0"});
  auto revalidated = strata(args);
  ASSERT_EQ(revalidated.code, 0) << revalidated.err;
  EXPECT_EQ(revalidated.out, first.out);
  EXPECT_NE(revalidated.err.find("revalidating, --index-max-age 0"), std::string::npos) << revalidated.err;
  EXPECT_EQ(revalidated.err.find("Packages"), std::string::npos) << revalidated.err;  // the indexes are cached
  args[2] = "soon";
  auto bad = strata(args);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--index-max-age soon: not a duration"), std::string::npos) << bad.err;
}

TEST_F(PackagesCli, OfflineUsesOnlyLocalStateAndNamesWhatIsMissing) {
  const std::string lock = (dir_ / "greet.lock").string();
  auto online = strata({"resolve", "--base", base_, "--sources", sources_, "--platform", "linux/amd64", "greet",
                        "--lock-out", lock});
  ASSERT_EQ(online.code, 0) << online.err;
  // The same answer with no network: the InRelease as last fetched here, the cached indexes.
  auto offline = strata({"--offline", "resolve", "--base", base_, "--sources", sources_, "--platform", "linux/amd64",
                         "greet"});
  ASSERT_EQ(offline.code, 0) << offline.err;
  EXPECT_EQ(offline.out, online.out);
  // A home that never resolved cannot: the message names the archive and what to do.
  auto fresh = run({strata_binary(), "--home", (dir_ / "fresh").string(), "resolve", "--base", base_, "--sources",
                    sources_, "--platform", "linux/amd64", "greet"},
                   "STRATA_OFFLINE=1");
  EXPECT_EQ(fresh.code, 1);
  EXPECT_NE(fresh.err.find("/InRelease"), std::string::npos) << fresh.err;
  EXPECT_NE(fresh.err.find("never fetched on this machine"), std::string::npos) << fresh.err;

  // The lock's .debs are not cached yet: every missing one is named at once.
  const std::string dest = "oci:" + (dir_ / "out").string();
  auto missing = strata({"--offline", "build", "--lock", lock, "--base", base_, "--dest", dest + ":off", "greet"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("not in the local cache: "), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("greet 1.0-1"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("libgreet1"), std::string::npos) << missing.err;
  // Fetched once with the network, the offline build makes the connected build's digest.
  ASSERT_EQ(strata({"fetch", "--lock", lock}).code, 0);
  auto built = strata({"--offline", "build", "--lock", lock, "--base", base_, "--dest", dest + ":off", "greet"});
  ASSERT_EQ(built.code, 0) << built.err;
  auto connected = run({strata_binary(), "--home", (dir_ / "other").string(), "build", "--lock", lock, "--base",
                        base_, "--sources", sources_, "--dest", dest + ":on", "greet"});
  ASSERT_EQ(connected.code, 0) << connected.err;
  EXPECT_EQ(trim_nl(built.out).substr(trim_nl(built.out).rfind('@') + 1),
            trim_nl(connected.out).substr(trim_nl(connected.out).rfind('@') + 1));
  // Docker Hub, which a bare name only implies, is never contacted (a
  // registry the reference names is: the site's own, BundleCli tests it).
  auto copy = strata({"--offline", "copy", "debian:12", dest + ":x"});
  EXPECT_EQ(copy.code, 1);
  EXPECT_NE(copy.err.find("debian:12 names no registry, so it means Docker Hub"), std::string::npos) << copy.err;
}

}  // namespace
}  // namespace strata::testing
