// strata cache prewarm as a library call: a config's overlays deduplicated
// by key, split into shards, built once, then found warm; and the config
// reader's refusals.
#include "layer/cache/prewarm.hpp"

#include <gtest/gtest.h>

#include <set>

#include "layer/build/build_fixture.hpp"
#include "layer/cache/prewarm_config.hpp"
#include "oci/memory_store.hpp"
#include "support/yaml_bombs.hpp"

namespace strata::layer {
namespace {

class Prewarm : public BuildPipeline {
 protected:
  std::vector<PrewarmJob> jobs() {
    return {{"overlays[0]", spec({"greet"})},
            {"overlays[1]", spec({"hello-static"})},
            {"overlays[2]", spec({"shared-a", "shared-b"})},
            {"overlays[3]", spec({"hello-static"})}};  // the same key as [1]
  }
  PrewarmReport warm(PrewarmOptions o, const std::string& home = "home") {
    BaseFsCache base_fs(t_ / home / "basefs");
    BuildContext ctx{.http = *http_, .clock = system_clock(), .home = t_ / home, .jobs = 2, .base_fs = &base_fs};
    return prewarm(jobs(), o, ctx);
  }
  static std::vector<std::string> states(const PrewarmReport& r) {
    std::vector<std::string> out;
    for (const auto& o : r.outcomes) out.push_back(warm_state_name(o.state));
    return out;
  }
};

TEST_F(Prewarm, BuildsEachKeyOnceThenFindsItWarm) {
  oci::MemoryStore cache;
  auto dry = warm({.cache = &cache, .dry_run = true});
  EXPECT_EQ(states(dry), (std::vector<std::string>{"would-build", "would-build", "would-build"}));
  EXPECT_TRUE(cache.list_tags()->empty()) << "a dry run writes nothing";

  auto first = warm({.cache = &cache});
  EXPECT_EQ(states(first), (std::vector<std::string>{"built", "built", "built"}));
  EXPECT_EQ(first.outcomes[1].where, (std::vector<std::string>{"overlays[1]", "overlays[3]"}));
  EXPECT_FALSE(first.failed());
  auto again = warm({.cache = &cache});
  EXPECT_EQ(states(again), (std::vector<std::string>{"warm", "warm", "warm"}));
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(again.outcomes[i].root.digest, first.outcomes[i].root.digest);
}

TEST_F(Prewarm, TwoShardsTogetherWarmExactlyTheKeysOfOneRun) {
  oci::MemoryStore all, split;
  auto whole = warm({.cache = &all, .dry_run = true});
  std::set<std::string> want, got;
  for (const auto& o : whole.outcomes) want.insert(o.key);
  std::size_t left = 0;
  for (std::uint32_t k = 0; k < 2; ++k) {
    auto part = warm({.cache = &split, .shard = {k, 2}}, "home-" + std::to_string(k));
    for (const auto& o : part.outcomes) {
      EXPECT_TRUE(got.insert(o.key).second) << "a key in two shards";
      EXPECT_EQ(o.state, WarmState::kBuilt);
    }
    left += part.other_shards;
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(left, want.size()) << "each key is left to the other shard once";
}

TEST_F(Prewarm, AFailureStopsTheRestUnlessKeepGoing) {
  oci::MemoryStore cache;
  auto broken = jobs();
  broken.insert(broken.begin(), PrewarmJob{"overlays[9]", spec({"no-such-package"})});
  BaseFsCache base_fs(t_ / "home" / "basefs");
  BuildContext ctx{.http = *http_, .clock = system_clock(), .home = t_ / "home", .jobs = 2, .base_fs = &base_fs};
  auto stopped = prewarm(broken, {.cache = &cache}, ctx);
  ASSERT_EQ(stopped.outcomes.size(), 4u);
  EXPECT_EQ(stopped.outcomes[0].state, WarmState::kFailed);
  EXPECT_NE(stopped.outcomes[0].error.find("no-such-package"), std::string::npos) << stopped.outcomes[0].error;
  EXPECT_EQ(stopped.outcomes[1].state, WarmState::kNotStarted);
  EXPECT_TRUE(stopped.failed());
  auto kept = prewarm(broken, {.cache = &cache, .keep_going = true}, ctx);
  EXPECT_EQ(states(kept), (std::vector<std::string>{"failed", "built", "built", "built"}));
  EXPECT_TRUE(kept.failed());
}

TEST(PrewarmConfig, ReadsEntriesAndRefusesWhatItDoesNotKnow) {
  auto ok = parse_prewarm_config(R"(cache: oci:/srv/cache
platforms: [linux/amd64]
sources: [debian.sources]
overlays:
  - {base: docker://r/debian:12, packages: [build-essential, libpq-dev]}
  - {base: docker://r/debian:12, packages: [git], sources: [/abs.sources], compression: zstd}
)",
                                 "pw.yaml", "/etc/strata");
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(ok->sources, (std::vector<std::string>{"/etc/strata/debian.sources"}));
  ASSERT_EQ(ok->overlays.size(), 2u);
  EXPECT_EQ(ok->overlays[0].packages, (std::vector<std::string>{"build-essential", "libpq-dev"}));
  EXPECT_EQ(ok->overlays[1].sources, (std::vector<std::string>{"/abs.sources"}));
  EXPECT_EQ(ok->overlays[1].where, "pw.yaml: overlays[1]");
  EXPECT_EQ(ok->overlays[0].variant, ScratchVariant::kMinbase);

  // `variant` with the base scratch: the package set `strata build --variant` takes.
  auto scratch = parse_prewarm_config(
      "cache: x\noverlays: [{base: scratch, packages: [git], variant: essential}]\n"
      "repos: [{path: a, base: scratch, variant: minbase}, {path: b, base: scratch}]\n",
      "pw.yaml", "");
  ASSERT_TRUE(scratch) << scratch.error().message();
  EXPECT_EQ(scratch->overlays[0].variant, ScratchVariant::kEssential);
  EXPECT_EQ(scratch->repos[0].variant, ScratchVariant::kMinbase);
  EXPECT_EQ(scratch->repos[1].variant, ScratchVariant::kMinbase);

  for (auto [yaml, message] : std::vector<std::pair<std::string, std::string>>{
           {"cache: x\noverlays: [{base: b, packages: [p]}]\nplatfrom: [a]\n",
            "pw.yaml: unknown key `platfrom` (expected cache, platforms, sources, overlays, repos, toolchains)"},
           {"cache: x\noverlays: [{base: b, packages: [p], pkgs: [q]}]\n",
            "pw.yaml: overlays[0]: unknown key `pkgs` (expected base, packages, platforms, sources, compression, variant)"},
           {"cache: x\noverlays: [{base: docker://r/debian:12, packages: [p], variant: essential}]\n",
            "pw.yaml: overlays[0]: `variant` essential is only for `base: scratch` (the base is docker://r/debian:12)"},
           {"cache: x\nrepos: [{path: a, base: scratch, variant: tiny}]\n", "pw.yaml: repos[0]: variant: "},
           {"overlays: [{base: b, packages: [p]}]\n", "pw.yaml: `cache` is required (a string)"},
           {"cache: x\noverlays: [{base: b}]\n", "pw.yaml: overlays[0]: `packages` must name a package"},
           {"cache: x\n", "pw.yaml: nothing to warm (give `overlays`, `repos` or `toolchains`)"},
           {"cache: x\noverlays: [{base: b, packages: [[p]]}]\n",
            "pw.yaml: overlays[0]: `packages[0]` must be a non-empty string"},
           {"cache: [x\n", "pw.yaml: not valid YAML"}}) {
    auto bad = parse_prewarm_config(yaml, "pw.yaml", "");
    ASSERT_FALSE(bad) << yaml;
    EXPECT_TRUE(bad.error().message().starts_with(message)) << bad.error().message();
  }
}

TEST(PrewarmConfig, RefusesAliasesThatExpandWithoutEnd) {
  // 600 overlays sharing one list of 200 packages: 120 000 package names
  // from 7 KiB of YAML (the file may be 1 MiB; levels of aliases make it a
  // billion).
  std::string shared = "cache: x\noverlays:\n  - {base: b, packages: &p [";
  for (int i = 0; i < 200; ++i) shared += (i ? ", p" : "p") + std::to_string(i);
  shared += "]}\n";
  for (int i = 1; i < 600; ++i) shared += "  - {base: b, packages: *p}\n";
  for (const std::string& yaml : {shared, "cache: x\n" + testing::billion_laughs(9, "overlays")}) {
    auto bad = parse_prewarm_config(yaml, "pw.yaml", "");
    ASSERT_FALSE(bad) << "read " << bad->overlays.size() << " overlays";
    const std::string& m = bad.error().message();
    EXPECT_TRUE(m.starts_with("pw.yaml: line ")) << m;
    EXPECT_TRUE(m.ends_with(": YAML aliases expand to more than 100000 nodes (a 'billion laughs' document); refusing it"))
        << m;
  }
}

TEST(Shards, AreKOfNAndComeFromTheIndexedJobEnvironment) {
  EXPECT_EQ(parse_shard("1/4")->index, 1u);
  for (const char* bad : {"4/4", "1", "a/2", "0/0", "-1/2", "1/20000"}) EXPECT_FALSE(parse_shard(bad)) << bad;
  EXPECT_FALSE(shard_from_env(nullptr, nullptr)->has_value());
  EXPECT_EQ(shard_from_env("2", "3")->value().count, 3u);
  EXPECT_FALSE(shard_from_env("2", nullptr));
  Shard s{1, 2};
  EXPECT_TRUE(s.owns("00000001ffff"));
  EXPECT_FALSE(s.owns("00000002ffff"));
}

}  // namespace
}  // namespace strata::layer
