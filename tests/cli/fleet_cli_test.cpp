// Many builders, one cache: pre-warm jobs on separate machines (here:
// separate $STRATA_HOMEs, run at once) against one real registry
// (docker-registry) warm one config. Every job succeeds, every overlay tag
// resolves to one digest whoever wrote it last, skopeo reads every image, and
// shards 0/2 and 1/2 together build exactly the keys of one unsharded run.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "layer/overlay/overlay_fixture.hpp"
#include "oci/digest.hpp"
#include "support/cli_test.hpp"
#include "support/registry_server.hpp"

namespace strata::testing {
namespace {

namespace stdfs = std::filesystem;

class FleetCli : public CliTest {
 protected:
  void SetUp() override {
    auto started = RegistryServer::start(RegistryServer::Mode::kPlain);
    ASSERT_TRUE(started) << started.error().message();
    reg_ = std::move(*started);
    host_ = reg_->host_port();
    // The base lives in the registry too, in another repository than the cache.
    auto pushed = in_home("seed", {"copy", fx_.base_ref(), "docker://" + host_ + "/debian:12"});
    ASSERT_EQ(pushed.code, 0) << pushed.err;
  }

  // strata as one machine of the fleet: its own home.
  RunResult in_home(const std::string& machine, std::vector<std::string> args) {
    args.insert(args.begin(), {strata_binary(), "--home", (dir_ / machine).string(), "--insecure-registry", host_});
    return run(args);
  }

  stdfs::path config(const std::string& repo) {
    const std::string base = "docker://" + host_ + "/debian:12";
    stdfs::path file = dir_ / (repo.substr(repo.rfind('/') + 1) + ".yaml");
    std::ofstream(file) << "cache: docker://" << host_ << "/" << repo << "\nplatforms: [linux/amd64]\nsources: ["
                        << fx_.sources().string() << "]\noverlays:\n"
                        << "  - {base: " << base << ", packages: [greet]}\n"
                        << "  - {base: " << base << ", packages: [hello-static]}\n"
                        << "  - {base: " << base << ", packages: [shared-a, shared-b]}\n"
                        << "  - {base: " << base << ", packages: [shared-a, greet]}\n"
                        << "  - {base: " << base << ", packages: [hello-static]}\n";  // a key again
    return file;
  }

  // key → digest of every overlay a prewarm --json run reports in `states`.
  static std::map<std::string, std::string> keys(const RunResult& r, std::set<std::string> states) {
    std::map<std::string, std::string> out;
    auto doc = nlohmann::json::parse(r.out);
    for (const auto& o : doc["overlays"]) {
      EXPECT_TRUE(states.contains(o["state"].get<std::string>())) << o.dump();
      out[o["key"].get<std::string>()] = o.contains("digest") ? o["digest"].get<std::string>() : "";
    }
    return out;
  }

  OverlayFixture& fx_ = OverlayFixture::get();
  std::unique_ptr<RegistryServer> reg_;
  std::string host_;
};

TEST_F(FleetCli, ThreeConcurrentPrewarmJobsAgreeOnEveryTag) {
  const std::string file = config("team/overlays").string();
  auto planned = in_home("planner", {"cache", "prewarm", "--config", file, "--dry-run", "--json"});
  ASSERT_EQ(planned.code, 0) << planned.err;
  auto want = keys(planned, {"would-build"});
  ASSERT_EQ(want.size(), 4u) << planned.out;

  std::vector<RunResult> jobs(3);
  {
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      threads.emplace_back([&, i] {
        jobs[i] = in_home("machine-" + std::to_string(i), {"cache", "prewarm", "--json", "--config", file});
      });
    }
    for (auto& t : threads) t.join();
  }
  std::map<std::string, std::string> digest;
  for (const auto& job : jobs) {
    ASSERT_EQ(job.code, 0) << job.out << job.err;
    auto got = keys(job, {"built", "warm"});
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [key, d] : got) {
      ASSERT_TRUE(want.contains(key)) << key;
      auto [it, fresh] = digest.emplace(key, d);
      EXPECT_EQ(it->second, d) << "two builders made different bytes for key " << key;
    }
  }
  // Each tag resolves to the one digest, and skopeo reads every image whole.
  for (const auto& [key, d] : digest) {
    const std::string ref = "docker://" + host_ + "/team/overlays:overlay-" + key;
    auto raw = run({"skopeo", "inspect", "--raw", "--tls-verify=false", ref});
    ASSERT_EQ(raw.code, 0) << raw.err;
    EXPECT_EQ(oci::Digest::sha256_of(raw.out).str(), d) << ref;
    auto copied = run({"skopeo", "copy", "--quiet", "--src-tls-verify=false", ref,
                       "oci:" + (dir_ / "skopeo").string() + ":" + key.substr(0, 12)});
    EXPECT_EQ(copied.code, 0) << copied.err;
  }
  // A fourth run finds everything warm.
  auto again = in_home("machine-0", {"cache", "prewarm", "--json", "--config", file});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(keys(again, {"warm"}), digest);
}

TEST_F(FleetCli, TwoShardsBuildExactlyTheKeysOfOneRun) {
  const std::string file = config("team/sharded").string();
  auto planned = in_home("planner", {"cache", "prewarm", "--config", file, "--dry-run", "--json"});
  ASSERT_EQ(planned.code, 0) << planned.err;
  auto want = keys(planned, {"would-build"});

  std::map<std::string, std::string> built;
  std::size_t left = 0;
  for (const char* shard : {"0/2", "1/2"}) {
    auto r = in_home(std::string("shard-") + shard[0], {"cache", "prewarm", "--config", file, "--shard", shard,
                                                         "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    left += nlohmann::json::parse(r.out)["other_shards"].get<std::size_t>();
    for (const auto& [key, d] : keys(r, {"built"})) {
      EXPECT_TRUE(built.emplace(key, d).second) << "key " << key << " built by both shards";
    }
  }
  EXPECT_EQ(left, want.size()) << "each key is left to the other shard exactly once";
  std::set<std::string> a, b;
  for (const auto& [k, d] : want) a.insert(k);
  for (const auto& [k, d] : built) b.insert(k);
  EXPECT_EQ(a, b);
  // The shard variables of a Kubernetes Indexed Job mean the same as --shard.
  auto env = run({"env", "JOB_COMPLETION_INDEX=1", "JOB_COMPLETIONS=2", strata_binary(), "--home",
                  (dir_ / "shard-1").string(), "--insecure-registry", host_, "cache", "prewarm", "--config", file,
                  "--json"});
  ASSERT_EQ(env.code, 0) << env.err;
  EXPECT_EQ(nlohmann::json::parse(env.out)["shard"], "1/2");
  for (const auto& [key, d] : keys(env, {"warm"})) EXPECT_EQ(built.at(key), d);
}

}  // namespace
}  // namespace strata::testing
