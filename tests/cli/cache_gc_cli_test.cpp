// strata cache gc through the binary: bad sizes and durations are named,
// --dry-run --json lists what would go, and a gc killed by SIGKILL at
// varied points leaves a valid layout that a second gc finishes.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
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


// A shared cache is written by others: a base name in a use record with
// terminal escapes, CR/LF and a line separator comes out of `cache ls` as
// visible escapes on its one line.
TEST_F(CacheGcCli, LsPrintsNoTerminalControlFromACraftedRecord) {
  const auto dir = dir_ / "cache";
  fill(dir, 1);
  {
    auto s = oci::LayoutStore::open(dir, oci::LayoutMode::kCreate);
    ASSERT_TRUE(s);
    const std::string tag = "overlay-" + sha256_hex("k0");
    auto desc = (*s)->resolve(tag);
    ASSERT_TRUE(desc);
    ASSERT_TRUE((*s)->delete_tag(layer::use_tag(tag)));
    const std::string hostile = "evil\x1b]0;owned\x07\x1b[2J\r\nFAKE LINE\xe2\x80\xa8\xe2\x80\xae" "txt.exe\xc2\x9b" "1m";
    ASSERT_TRUE(layer::record_use(**s, tag, *desc, hostile, system_clock(), 0));
  }
  auto r = strata({"cache", "ls", "--cache", "oci:" + dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  for (std::string bad : {"\x1b", "\r", "\xe2\x80\xa8", "\xe2\x80\xae", "\xc2\x9b"})
    EXPECT_EQ(r.out.find(bad), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3) << "header, the overlay, the summary:\n" << r.out;
  EXPECT_NE(r.out.find("evil\\x1b]0;owned\\x07\\x1b[2J\\x0d\\x0aFAKE LINE\\u2028\\u202etxt.exe\\u009b1m"),
            std::string::npos)
      << r.out;
}

// A use record from the future is ignored with one line, and the overlay
// it claimed goes under --max-unused; an image gc cannot read keeps every
// blob, and the summary says which.
TEST_F(CacheGcCli, ForgedRecordsAreIgnoredAndUnreadableImagesKeepTheirBlobs) {
  const auto dir = dir_ / "cache";
  fill(dir, 2);
  const std::string tag = "overlay-" + sha256_hex("k0");
  {
    auto s = oci::LayoutStore::open(dir, oci::LayoutMode::kCreate);
    ASSERT_TRUE(s);
    auto desc = (*s)->resolve(tag);
    ASSERT_TRUE(desc);
    ASSERT_TRUE((*s)->delete_tag(layer::use_tag(tag)));
    ManualClock future(system_clock().now() + 365 * 86400);
    ASSERT_TRUE(layer::record_use(**s, tag, *desc, "base", future, 0));
    // Unrecorded, it ages from its manifest's blob: written ten days ago.
    stdfs::last_write_time(dir / "blobs" / "sha256" / std::string(desc->digest.hex()),
                           stdfs::file_time_type::clock::now() - std::chrono::hours(240));
  }
  auto args = gc_args(dir);
  args.insert(args.begin(), "--json");
  auto r = strata(args);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["overlays"].size(), 2u) << "the forged record pins nothing: " << r.out;
  ASSERT_EQ(j["ignored_use_records"].size(), 1u) << r.out;
  EXPECT_EQ(j["ignored_use_records"][0]["tag"], layer::use_tag(tag));
  std::size_t warnings = 0;
  for (std::size_t at = 0; (at = r.err.find("ignored 1 use record", at)) != std::string::npos; ++at) ++warnings;
  EXPECT_EQ(warnings, 1u) << r.err;

  // An application image whose manifest is damaged: nothing of it goes.
  const auto app = dir_ / "app";
  {
    auto s = oci::LayoutStore::open(dir, oci::LayoutMode::kCreate);
    auto img = make_image(**s, {4000}, 9);
    ASSERT_TRUE((*s)->put_manifest(img.manifest, "app"));
    std::ofstream(dir / "blobs" / "sha256" / std::string(img.manifest.descriptor.digest.hex()),
                  std::ios::binary | std::ios::trunc)
        << "{";
  }
  const auto before = check_layout(dir).blobs;
  auto kept = strata(gc_args(dir));
  ASSERT_EQ(kept.code, 0) << kept.err;
  EXPECT_EQ(check_layout(dir).blobs, before);
  EXPECT_NE(kept.err.find("every blob kept: an image gc cannot read"), std::string::npos) << kept.err;
}

// -q drops progress, never why a key failed: one line each on stderr,
// naming the entry and the error, whatever the output format.
TEST_F(CacheGcCli, PrewarmQuietStillSaysWhyAnEntryFailed) {
  const auto base = dir_ / "base";
  fill(base, 0);
  const auto config = dir_ / "prewarm.yaml";
  std::ofstream(config) << "cache: oci:" << (dir_ / "cache").string() << "\nrepos:\n  - {path: "
                        << (dir_ / "no-such-repo").string() << ", base: oci:" << base.string() << ":base}\n";
  for (bool json : {false, true}) {
    std::vector<std::string> args{"-q", "cache", "prewarm", "--config", config.string()};
    if (json) args.insert(args.begin(), "--json");
    auto r = strata(args);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const auto line = r.err.find("failed");
    ASSERT_NE(line, std::string::npos) << r.err;
    const std::string first = r.err.substr(line, r.err.find('\n', line) - line);
    EXPECT_NE(first.find("repos[0]"), std::string::npos) << r.err;
    EXPECT_NE(first.find("no-such-repo"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace strata::testing
