// strata cache gc through the binary: bad sizes and durations are named,
// --dry-run --json lists what would go, and a gc killed by SIGKILL at
// varied points leaves a valid layout that a second gc finishes.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "layer/build/overlay_use.hpp"
#include "oci/layout_store.hpp"
#include "support/cli_test.hpp"
#include "support/layout_check.hpp"
#include "support/random_image.hpp"
#include "util/clock.hpp"
#include "util/sha.hpp"

namespace strata::testing {
namespace {

namespace stdfs = std::filesystem;

class CacheGcCli : public CliTest {
 protected:
  // A layout with a base and `n` overlays on it, each with a few layers of
  // its own and a use record ten days old.
  void fill(const stdfs::path& dir, unsigned n) {
    auto s = oci::LayoutStore::open(dir, oci::LayoutMode::kCreate);
    ASSERT_TRUE(s) << s.error().message();
    auto base = make_image(**s, {30000}, 3);
    ASSERT_TRUE((*s)->put_manifest(base.manifest, "base"));
    ManualClock clock(system_clock().now() - 10 * 86400);
    for (unsigned i = 0; i < n; ++i) {
      auto img = make_image(**s, {2000, 3000, 1000}, 100 + i);
      oci::ImageManifest m = std::get<oci::ImageManifest>(*oci::parse_manifest(img.manifest.bytes, "", "m"));
      m.layers.insert(m.layers.begin(), base.layers[0]);
      auto raw = oci::make_raw_manifest(m.media_type, oci::serialize(m));
      const std::string tag = "overlay-" + sha256_hex("k" + std::to_string(i));
      ASSERT_TRUE((*s)->put_manifest(raw, tag));
      ASSERT_TRUE(layer::record_use(**s, tag, raw.descriptor, "base", clock, 0));
    }
  }
  std::vector<std::string> gc_args(const stdfs::path& dir) {
    return {"cache", "gc", "--cache", "oci:" + dir.string(), "--max-unused", "1d", "--min-age", "0s"};
  }
};

TEST_F(CacheGcCli, BadSizesAndDurationsNameTheOption) {
  for (auto [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--max-size", "12X"}, {"--max-unused", "soon"}, {"--min-age", "1y"}}) {
    auto r = strata({"cache", "gc", flag, value});
    EXPECT_EQ(r.code, 2) << flag;
    EXPECT_NE(r.err.find(flag + " " + value), std::string::npos) << r.err;
  }
  auto archive = strata({"cache", "gc", "--cache", "oci-archive:" + (dir_ / "x.tar").string()});
  EXPECT_EQ(archive.code, 2);
  EXPECT_NE(archive.err.find("--cache"), std::string::npos) << archive.err;
}

TEST_F(CacheGcCli, DryRunListsThenGcRemovesExactlyThat) {
  const auto dir = dir_ / "cache";
  fill(dir, 3);
  const auto before = check_layout(dir);
  auto args = gc_args(dir);
  args.insert(args.begin(), "--json");
  args.push_back("--dry-run");
  auto dry = strata(args);
  ASSERT_EQ(dry.code, 0) << dry.err;
  auto j = nlohmann::json::parse(dry.out);
  EXPECT_EQ(j["dry_run"], true);
  EXPECT_EQ(j["overlays"].size(), 3u);
  EXPECT_EQ(j["removed"].size(), 6u) << "three key tags and three use records";
  EXPECT_NE(dry.err.find("strata cache gc: dry run: 3 overlays to evict"), std::string::npos) << dry.err;
  EXPECT_EQ(check_layout(dir).blobs, before.blobs);
  std::set<std::string> listed;
  for (const auto& b : j["blobs"]) listed.insert(b["digest"].get<std::string>());
  auto real = strata(gc_args(dir));
  ASSERT_EQ(real.code, 0) << real.err;
  auto after = check_layout(dir);
  EXPECT_TRUE(after.problems.empty());
  std::set<std::string> gone;
  for (const auto& b : before.blobs)
    if (!after.blobs.contains(b)) gone.insert(b);
  EXPECT_EQ(gone, listed) << "the dry run named exactly the blobs that went";
  EXPECT_TRUE(after.unreferenced().empty());
}

// SIGKILL at points spread over a whole gc's run, many times over.
TEST_F(CacheGcCli, KilledAnywhereLeavesAValidLayoutAndTheNextGcFinishes) {
  const auto pristine = dir_ / "pristine";
  fill(pristine, 60);
  const auto dir = dir_ / "cache";
  auto argv_of = [&] {
    std::vector<std::string> a{strata_binary(), "--home", (dir_ / "home").string(), "-q"};
    for (auto& s : gc_args(dir)) a.push_back(s);
    return a;
  };
  auto spawn = [&] {
    auto args = argv_of();
    pid_t pid = ::fork();
    if (pid == 0) {
      std::vector<char*> cargv;
      for (auto& s : args) cargv.push_back(s.data());
      cargv.push_back(nullptr);
      ::execv(cargv[0], cargv.data());
      ::_exit(127);
    }
    return pid;
  };
  // How long one whole gc takes here: the kills are spread over it.
  stdfs::copy(pristine, dir, stdfs::copy_options::recursive);
  auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  ::waitpid(spawn(), &status, 0);
  auto whole = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  constexpr int kRuns = 24;
  int killed = 0;
  for (int i = 0; i < kRuns; ++i) {
    stdfs::remove_all(dir);
    stdfs::copy(pristine, dir, stdfs::copy_options::recursive);
    pid_t pid = spawn();
    std::this_thread::sleep_for(whole * i / kRuns);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    killed += WIFSIGNALED(status);
    auto left = check_layout(dir);
    ASSERT_TRUE(left.problems.empty()) << "run " << i << ": " << left.problems.front();
    auto again = run(argv_of());
    ASSERT_EQ(again.code, 0) << again.err;
    auto done = check_layout(dir);
    EXPECT_TRUE(done.problems.empty());
    EXPECT_TRUE(done.unreferenced().empty()) << "run " << i;
    auto tags = (*oci::LayoutStore::open(dir, oci::LayoutMode::kReadOnly))->list_tags();
    EXPECT_EQ(*tags, (std::vector<std::string>{"base"})) << "run " << i;
  }
  RecordProperty("killed_mid_gc", killed);
}

}  // namespace
}  // namespace strata::testing
