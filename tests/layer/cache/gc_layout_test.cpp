// strata cache gc on a layout, with synthetic overlays (a shared base layer,
// one layer of their own, a use record): the plan's LRU and cap, the lease
// a writer holds, and a failure at every filesystem step of a gc.
#include "layer/cache/gc.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "layer/build/build.hpp"
#include "layer/build/overlay_use.hpp"
#include "oci/layout_store.hpp"
#include "oci/memory_store.hpp"
#include "support/fault_env.hpp"
#include "support/layout_check.hpp"
#include "support/random_image.hpp"
#include "support/temp_dir.hpp"
#include "util/clock.hpp"

namespace strata::layer {
namespace {

namespace stdfs = std::filesystem;
using testing::check_layout;

std::string key_of(unsigned n) {
  std::string k = sha256_hex("key " + std::to_string(n));
  return k;
}

// A layout holding a base image (tag "base") and `n` overlays on it, the
// i-th last used at `t0 + i` hours.
class GcLayout : public ::testing::Test {
 protected:
  static constexpr std::int64_t kT0 = 1'900'000'000;

  std::unique_ptr<oci::LayoutStore> open(oci::LayoutMode mode = oci::LayoutMode::kCreate) {
    auto s = oci::LayoutStore::open(t_ / "layout", mode);
    EXPECT_TRUE(s) << s.error().message();
    return std::move(*s);
  }

  oci::Descriptor put_overlay(oci::Store& s, unsigned i, std::int64_t used_at, std::size_t size = 4000) {
    std::string own = testing::random_bytes(size, 1000 + i);
    auto own_desc = oci::descriptor_for(oci::media::kOciLayerGzip, own);
    EXPECT_TRUE(oci::write_blob(s, own_desc, own));
    nlohmann::ordered_json cfg{{"architecture", "amd64"}, {"os", "linux"},
                               {"rootfs", {{"type", "layers"}, {"diff_ids", {base_layer_.digest.str(), own_desc.digest.str()}}}}};
    std::string cfg_bytes = cfg.dump();
    auto cfg_desc = oci::descriptor_for(oci::media::kOciConfig, cfg_bytes);
    EXPECT_TRUE(oci::write_blob(s, cfg_desc, cfg_bytes));
    oci::ImageManifest m;
    m.media_type = std::string(oci::media::kOciManifest);
    m.config = cfg_desc;
    m.layers = {base_layer_, own_desc};
    auto raw = oci::make_raw_manifest(m.media_type, oci::serialize(m));
    const std::string tag = "overlay-" + key_of(i);
    EXPECT_TRUE(s.put_manifest(raw, tag));
    ManualClock at(used_at);
    EXPECT_TRUE(record_use(s, tag, raw.descriptor, "base", at, 0));
    return raw.descriptor;
  }

  // The base and `n` overlays, then closed (no lease left held).
  std::vector<oci::Descriptor> fill(unsigned n) {
    auto s = open();
    auto img = testing::make_image(*s, {20000}, 7);
    EXPECT_TRUE(s->put_manifest(img.manifest, "base"));
    base_layer_ = img.layers[0];
    std::vector<oci::Descriptor> out;
    for (unsigned i = 0; i < n; ++i) out.push_back(put_overlay(*s, i, kT0 + 3600 * i));
    return out;
  }

  Result<GcReport> gc(GcPolicy policy, bool dry_run = false, std::int64_t now = kT0 + 100 * 3600) {
    auto s = open(oci::LayoutMode::kReadOnly);
    ManualClock clock(now);
    return collect_garbage(*s, {.policy = policy, .dry_run = dry_run, .home = std::nullopt}, clock);
  }

  std::vector<std::string> tags() { return *open(oci::LayoutMode::kReadOnly)->list_tags(); }

  testing::TempDir t_;
  oci::Descriptor base_layer_;
};

TEST(GcPlan, LeastRecentlyUsedFirstUntilTheCapFitsSharedBytesOnce) {
  // Blob 0 is shared by entries 0 and 1; blob 3 is pinned (another image's).
  GcModel m{.blob_sizes = {100, 10, 20, 1000}, .pinned = {false, false, false, true},
            .entries = {{.last_used = 50, .created = 0, .blobs = {0, 1}},
                        {.last_used = 10, .created = 0, .blobs = {0, 2}},
                        {.last_used = 90, .created = 95, .blobs = {}}}};
  auto plan = plan_gc(m, {.max_size = 1110, .max_unused = std::nullopt, .min_age = 0}, 100);
  EXPECT_EQ(plan.bytes_before, 1130u);
  ASSERT_EQ(plan.evicted.size(), 1u);
  EXPECT_EQ(plan.evicted[0].entry, 1u) << "the least recently used goes first";
  EXPECT_EQ(plan.evicted[0].freed, 20u) << "its shared blob stays with entry 0";
  EXPECT_EQ(plan.bytes_after, 1110u);
  EXPECT_TRUE(plan.cap_met);
  // A cap below the pinned bytes: every entry old enough goes, and it says so.
  auto tight = plan_gc(m, {.max_size = 10, .max_unused = std::nullopt, .min_age = 10}, 100);
  EXPECT_EQ(tight.evicted.size(), 2u) << "entry 2 is younger than min-age";
  EXPECT_EQ(tight.bytes_after, 1000u);
  EXPECT_FALSE(tight.cap_met);
  // --max-unused alone: only what was not used for that long.
  auto unused = plan_gc(m, {.max_size = std::nullopt, .max_unused = 60, .min_age = 0}, 100);
  ASSERT_EQ(unused.evicted.size(), 1u);
  EXPECT_EQ(unused.evicted[0].entry, 1u);
  EXPECT_EQ(unused.evicted[0].reason, GcReason::kMaxUnused);
  // No limit: nothing is evicted.
  EXPECT_TRUE(plan_gc(m, {}, 100).evicted.empty());
}

TEST_F(GcLayout, KeepsTheMostRecentlyUsedAndSweepsEveryUnreferencedBlob) {
  auto overlays = fill(3);
  {
    auto s = open();
    ManualClock later(kT0 + 50 * 3600);
    ASSERT_TRUE(record_use(*s, "overlay-" + key_of(0), overlays[0], "base", later, 0));  // 0 is used again
  }
  const auto before = check_layout(t_ / "layout");
  ASSERT_TRUE(before.problems.empty());
  // Room for the base and one overlay, not two (each has about 5 kB of its own).
  std::uint64_t base_bytes = 0;
  for (const auto& b : before.blobs) base_bytes += stdfs::file_size(t_ / "layout" / "blobs" / "sha256" / b.substr(7));
  auto dry = gc({.max_size = base_bytes - 8000, .max_unused = std::nullopt, .min_age = 0}, true);
  ASSERT_TRUE(dry) << dry.error().message();
  EXPECT_EQ(check_layout(t_ / "layout").blobs, before.blobs) << "a dry run removes nothing";
  auto real = gc({.max_size = base_bytes - 8000, .max_unused = std::nullopt, .min_age = 0});
  ASSERT_TRUE(real) << real.error().message();
  ASSERT_EQ(real->overlays.size(), 2u);
  EXPECT_EQ(real->overlays[0].root.digest, overlays[1].digest) << "least recently used first";
  EXPECT_EQ(real->overlays[1].root.digest, overlays[2].digest);
  EXPECT_EQ(real->kept_overlays, 1u);
  // The dry run listed exactly what went.
  ASSERT_EQ(dry->blobs.size(), real->blobs.size());
  for (std::size_t i = 0; i < dry->blobs.size(); ++i) EXPECT_EQ(dry->blobs[i].digest, real->blobs[i].digest);
  EXPECT_EQ(dry->removed.size(), real->removed.size());
  EXPECT_EQ(real->removed.size(), 4u) << "two overlay tags and their use records";
  EXPECT_EQ(tags(), (std::vector<std::string>{"base", "overlay-" + key_of(0), "overlay-" + key_of(0) + ".used"}));
  auto after = check_layout(t_ / "layout");
  EXPECT_TRUE(after.problems.empty()) << after.problems.front();
  EXPECT_TRUE(after.unreferenced().empty()) << *after.unreferenced().begin();
  EXPECT_TRUE(after.reachable.contains(overlays[0].digest.str()));
  EXPECT_TRUE(after.reachable.contains(base_layer_.digest.str())) << "the shared base layer stays";
  EXPECT_EQ(real->bytes_after, [&] {
    std::uint64_t n = 0;
    for (const auto& b : after.blobs) n += stdfs::file_size(t_ / "layout" / "blobs" / "sha256" / b.substr(7));
    return n;
  }());
}

TEST_F(GcLayout, MinAgeProtectsYoungOverlaysAndBlobs) {
  fill(2);
  // The second overlay was first used a minute less than 2 h ago.
  auto r = gc({.max_size = 0, .max_unused = 0, .min_age = 2 * 3600}, false, kT0 + 3600 + 2 * 3600 - 60);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->overlays.size(), 1u) << "only the overlay first used over 2 h ago";
  EXPECT_EQ(r->overlays[0].keys.front(), key_of(0));
  // A blob written just now and named by nothing: younger than --min-age at
  // the real time, so it stays; with --min-age 0s it goes.
  std::string bytes = testing::random_bytes(3000, 98);
  auto desc = oci::descriptor_for(oci::media::kOciLayerGzip, bytes);
  ASSERT_TRUE(oci::write_blob(*open(), desc, bytes));
  const auto file = t_ / "layout" / "blobs" / "sha256" / std::string(desc.digest.hex());
  auto young = gc({.max_size = std::nullopt, .max_unused = std::nullopt, .min_age = 2 * 3600}, false, system_clock().now());
  ASSERT_TRUE(young) << young.error().message();
  EXPECT_TRUE(stdfs::exists(file));
  auto old = gc({.max_size = std::nullopt, .max_unused = std::nullopt, .min_age = 0}, false, system_clock().now());
  ASSERT_TRUE(old) << old.error().message();
  EXPECT_FALSE(stdfs::exists(file));
}

TEST_F(GcLayout, AWriterHoldingTheLeaseKeepsItsBlobs) {
  fill(1);
  auto writer = open();  // a build's store: open for writing holds the lease
  std::string bytes = testing::random_bytes(3000, 99);
  auto desc = oci::descriptor_for(oci::media::kOciLayerGzip, bytes);
  ASSERT_TRUE(oci::write_blob(*writer, desc, bytes));  // not named by index.json yet
  auto r = gc({.max_size = std::nullopt, .max_unused = 0, .min_age = 0});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->sweep_deferred);
  EXPECT_EQ(r->overlays.size(), 1u) << "tags still go";
  EXPECT_TRUE(r->blobs.empty());
  EXPECT_TRUE(stdfs::exists(writer->blob_path(desc.digest))) << "the writer's blob survives";
  writer.reset();  // the build ends (or dies): the lease is released
  auto next = gc({.max_size = std::nullopt, .max_unused = 0, .min_age = 0});
  ASSERT_TRUE(next) << next.error().message();
  EXPECT_FALSE(next->sweep_deferred);
  EXPECT_FALSE(stdfs::exists(t_ / "layout" / "blobs" / "sha256" / std::string(desc.digest.hex())));
  auto after = check_layout(t_ / "layout");
  EXPECT_TRUE(after.problems.empty());
  EXPECT_TRUE(after.unreferenced().empty());
}

TEST_F(GcLayout, UseRecordsWithoutTheirOverlayGo) {
  auto overlays = fill(1);
  {
    auto s = open();
    ASSERT_TRUE(s->delete_tag("overlay-" + key_of(0)));  // what a gc killed between registry deletes leaves
  }
  auto r = gc({});
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->removed.size(), 1u);
  EXPECT_EQ(r->removed[0].what, "use record");
  EXPECT_EQ(tags(), (std::vector<std::string>{"base"}));
}

// $STRATA_HOME's caches under the same cap, oldest file first; a fragment
// goes whole; a build holding the home's lease keeps them all.
TEST_F(GcLayout, HomeCachesShareTheCapOldestFirst) {
  fill(0);
  const auto home = t_ / "home";
  auto put = [&](const stdfs::path& p, std::size_t n, int days_old) {
    stdfs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << testing::random_bytes(n, static_cast<unsigned>(n));
    stdfs::last_write_time(p, stdfs::file_time_type::clock::now() - std::chrono::hours(24 * days_old));
  };
  put(home / "debs" / "sha256" / "new", 3000, 1);
  put(home / "debs" / "sha256" / "old", 5000, 3);
  put(home / "fragments" / "f1" / "info.bin", 100, 5);
  put(home / "fragments" / "f1" / "data.tar", 2000, 5);
  put(home / "indexes" / "sha256" / "idx", 1000, 2);
  auto run = [&](std::uint64_t cap) {
    auto s = open(oci::LayoutMode::kReadOnly);
    return collect_garbage(*s, {.policy = {.max_size = cap, .max_unused = std::nullopt, .min_age = 0},
                                .dry_run = false, .home = home},
                           system_clock());
  };
  {
    auto building = fs::FileLock::acquire_shared(fs::home_lease_path(home));
    ASSERT_TRUE(building);
    auto r = run(0);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_TRUE(r->home_deferred);
    EXPECT_TRUE(r->home.empty());
    EXPECT_TRUE(stdfs::exists(home / "fragments" / "f1" / "info.bin"));
  }
  // The base image (about 20 KB) stays whatever the cap; 4 KB more fits the
  // newest deb and the index, not the older deb nor the fragment.
  std::uint64_t base = 0;
  for (const auto& b : check_layout(t_ / "layout").blobs)
    base += stdfs::file_size(t_ / "layout" / "blobs" / "sha256" / b.substr(7));
  auto r = run(base + 4000);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->home.size(), 2u);
  EXPECT_EQ(r->home[0].cache, "fragments") << "the oldest first";
  EXPECT_EQ(r->home[1].path, (home / "debs" / "sha256" / "old").string());
  EXPECT_FALSE(stdfs::exists(home / "fragments" / "f1"));
  EXPECT_TRUE(stdfs::exists(home / "debs" / "sha256" / "new"));
  EXPECT_TRUE(stdfs::exists(home / "indexes" / "sha256" / "idx"));
  EXPECT_EQ(r->home_bytes, 7100u);
}

// The "gc sweep" case of the fault tests: each filesystem step of a gc
// fails once; whatever it left validates, and a gc without the fault
// finishes the job.
TEST_F(GcLayout, AFailureAtEveryStepLeavesAValidLayout) {
  fill(3);
  const auto pristine = t_ / "pristine";
  stdfs::copy(t_ / "layout", pristine, stdfs::copy_options::recursive);
  for (const auto& fault : testing::standard_faults()) {
    std::size_t failed = testing::at_every_step(fault, [&](testing::FaultEnv& env) {
      stdfs::remove_all(t_ / "layout");
      stdfs::copy(pristine, t_ / "layout", stdfs::copy_options::recursive);
      auto r = gc({.max_size = std::nullopt, .max_unused = 0, .min_age = 0});
      if (env.fired() && !r) {
        EXPECT_TRUE(testing::names_the_fault(r.error().message(), env));
      }
      auto left = check_layout(t_ / "layout");
      EXPECT_TRUE(left.problems.empty()) << left.problems.front() << " after " << env.what_fired();
    });
    EXPECT_GT(failed, 0u) << fault.name;
    // After the last step: a gc that nothing fails leaves nothing unreferenced.
    auto done = gc({.max_size = std::nullopt, .max_unused = 0, .min_age = 0});
    ASSERT_TRUE(done) << done.error().message();
    auto left = check_layout(t_ / "layout");
    EXPECT_TRUE(left.unreferenced().empty());
    EXPECT_EQ(tags(), (std::vector<std::string>{"base"}));
  }
}


// ---- hostile layouts and records -----------------------------------------

// An image gc cannot read may name any blob: while one is in index.json no
// blob goes, with or without an eviction policy; the tags still may.
TEST_F(GcLayout, AnUnreadableManifestKeepsEveryBlob) {
  for (const std::string damage : {"missing", "garbage", "too large"}) {
    SCOPED_TRACE(damage);
    stdfs::remove_all(t_ / "layout");
    fill(2);
    oci::Descriptor app;
    {
      auto s = open();
      auto img = testing::make_image(*s, {3000, 2000}, 55);
      ASSERT_TRUE(s->put_manifest(img.manifest, "app"));
      app = img.manifest.descriptor;
    }
    const auto file = t_ / "layout" / "blobs" / "sha256" / std::string(app.digest.hex());
    if (damage == "missing") stdfs::remove(file);
    else if (damage == "garbage") std::ofstream(file, std::ios::binary | std::ios::trunc) << "not a manifest";
    else std::ofstream(file, std::ios::binary | std::ios::trunc) << std::string(oci::kMaxManifestBytes + 1, ' ');
    const auto before = check_layout(t_ / "layout").blobs;

    auto plain = gc({.max_size = std::nullopt, .max_unused = std::nullopt, .min_age = 0});
    ASSERT_TRUE(plain) << plain.error().message();
    EXPECT_TRUE(plain->blobs.empty());
    EXPECT_EQ(check_layout(t_ / "layout").blobs, before) << "no policy: nothing of the app may go";
    EXPECT_NE(plain->kept_all.find(app.digest.str()), std::string::npos) << plain->kept_all;

    auto evicting = gc({.max_size = 0, .max_unused = 0, .min_age = 0});
    ASSERT_TRUE(evicting) << evicting.error().message();
    EXPECT_EQ(evicting->overlays.size(), 2u) << "the tags still go";
    EXPECT_TRUE(evicting->blobs.empty());
    EXPECT_EQ(check_layout(t_ / "layout").blobs, before) << "an eviction policy: still no blob";
    EXPECT_NE(evicting->kept_all.find(app.digest.str()), std::string::npos) << evicting->kept_all;
    EXPECT_EQ(tags(), (std::vector<std::string>{"app", "base"}));
  }
}

// A layout whose blobs/sha256 (or blobs/) is a link into another layout's
// store: gc of it never deletes the other layout's blobs.
TEST_F(GcLayout, ASymlinkedBlobStoreIsNotCollectedThrough) {
  fill(2);
  const auto before = check_layout(t_ / "layout");
  ASSERT_TRUE(before.problems.empty());
  for (const bool whole_blobs_dir : {false, true}) {
    SCOPED_TRACE(whole_blobs_dir ? "blobs/" : "blobs/sha256/");
    const auto other = t_ / (whole_blobs_dir ? "other-blobs" : "other-sha256");
    ASSERT_TRUE(oci::LayoutStore::open(other, oci::LayoutMode::kCreate));
    if (whole_blobs_dir) {
      stdfs::remove_all(other / "blobs");
      stdfs::create_directory_symlink(t_ / "layout" / "blobs", other / "blobs");
    } else {
      stdfs::remove_all(other / "blobs" / "sha256");
      stdfs::create_directory_symlink(t_ / "layout" / "blobs" / "sha256", other / "blobs" / "sha256");
    }
    auto s = oci::LayoutStore::open(other, oci::LayoutMode::kReadOnly);
    ASSERT_TRUE(s);
    ManualClock clock(kT0 + 100 * 3600);
    auto r = collect_garbage(**s, {.policy = {.max_size = 0, .max_unused = 0, .min_age = 0}, .dry_run = false,
                                   .home = std::nullopt},
                             clock);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_TRUE(r->blobs.empty());
    EXPECT_NE(r->kept_all.find("symbolic link"), std::string::npos) << r->kept_all;
    auto after = check_layout(t_ / "layout");
    EXPECT_TRUE(after.problems.empty()) << after.problems.front();
    EXPECT_EQ(after.blobs, before.blobs) << "the other layout is intact";
  }
}

// A use record claiming a first (or last) use in the future would protect
// its overlay from every gc: it is ignored, said so once, and the overlay
// ages from its blob as an unrecorded one does.
TEST_F(GcLayout, AUseRecordFromTheFutureIsIgnoredAndTheOverlayIsEvictable) {
  auto overlays = fill(2);
  {
    auto s = open();
    const std::string tag = "overlay-" + key_of(0);
    ASSERT_TRUE(s->delete_tag(use_tag(tag)));
    ManualClock forger(kT0 + 10 * 365 * 86400LL);
    ASSERT_TRUE(record_use(*s, tag, overlays[0], "base", forger, 0));
  }
  auto r = gc({.max_size = std::nullopt, .max_unused = 48 * 3600, .min_age = 2 * 3600});
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->ignored_uses.size(), 1u);
  EXPECT_EQ(r->ignored_uses[0].tag, "overlay-" + key_of(0) + ".used");
  EXPECT_NE(r->ignored_uses[0].reason.find("in the future"), std::string::npos) << r->ignored_uses[0].reason;
  std::set<std::string> evicted;
  for (const auto& o : r->overlays) evicted.insert(o.keys.front());
  EXPECT_TRUE(evicted.contains(key_of(0))) << "the forged record pins nothing";
  const std::string line = ignored_uses_summary(r->ignored_uses);
  EXPECT_EQ(line.find('\n'), std::string::npos) << "one line";
  EXPECT_NE(line.find("ignored 1 use record"), std::string::npos) << line;
}

TEST(OverlayUse, ImpossibleTimesAreNamed) {
  const std::int64_t now = 1'900'000'000;
  OverlayUse u;
  u.first_used = now - 100;
  u.last_used = now;
  EXPECT_EQ(implausible_use(u, now), "");
  u.last_used = now + kUseClockSkew;  // a neighbour's clock a little ahead
  EXPECT_EQ(implausible_use(u, now), "");
  u.last_used = now + kUseClockSkew + 1;
  EXPECT_NE(implausible_use(u, now).find("last use"), std::string::npos);
  u.first_used = now + 86400;
  u.last_used = now + 86400;
  EXPECT_NE(implausible_use(u, now).find("first use"), std::string::npos);
  u.first_used = now - 10;
  u.last_used = now - 1000;
  EXPECT_NE(implausible_use(u, now).find("before the first use"), std::string::npos);
}

// A registry whose manifests one tag's reader cannot get (a transient error,
// a document over the limit): a DELETE by digest could take that image's
// child with it, so gc deletes nothing.
class FlakyStore final : public oci::Store {
 public:
  FlakyStore(oci::Store& inner, std::string failing) : inner_(inner), failing_(std::move(failing)) {}
  std::string describe() const override { return "docker://flaky.example/cache"; }
  Result<oci::Descriptor> resolve(std::string_view ref) override { return inner_.resolve(ref); }
  Result<oci::RawManifest> get_manifest(std::string_view ref) override {
    if (ref == failing_) return fail(ErrorCode::kUnavailable, "503 Service Unavailable for " + std::string(ref));
    return inner_.get_manifest(ref);
  }
  Result<void> put_manifest(const oci::RawManifest& m, std::optional<std::string_view> tag) override {
    return inner_.put_manifest(m, tag);
  }
  Result<bool> has_blob(const oci::Descriptor& d) override { return inner_.has_blob(d); }
  Result<void> fetch_blob(const oci::Descriptor& d, oci::ByteSink& sink, std::uint64_t offset) override {
    return inner_.fetch_blob(d, sink, offset);
  }
  Result<std::unique_ptr<oci::BlobWriter>> blob_writer(const oci::Descriptor& d) override {
    return inner_.blob_writer(d);
  }
  Result<std::vector<std::string>> list_tags() override { return inner_.list_tags(); }
  Result<void> delete_manifest(const oci::Digest& d) override {
    ++deletes;
    return inner_.delete_manifest(d);
  }
  int deletes = 0;

 private:
  oci::Store& inner_;
  std::string failing_;
};

TEST(GcRegistry, AnImageItCannotReadKeepsEveryManifest) {
  oci::MemoryStore mem;
  auto img = testing::make_image(mem, {2000}, 77);
  const std::string tag = "overlay-" + key_of(0);
  ASSERT_TRUE(mem.put_manifest(img.manifest, tag));
  ManualClock then(1'800'000'000);
  ASSERT_TRUE(record_use(mem, tag, img.manifest.descriptor, "base", then, 0));
  // An application's index names the overlay's manifest as a child.
  oci::ImageIndex idx;
  idx.media_type = std::string(oci::media::kOciIndex);
  auto child = img.manifest.descriptor;
  child.platform = oci::Platform{.os = "linux", .architecture = "amd64", .variant = "", .os_version = ""};
  idx.manifests = {child};
  auto index = oci::make_raw_manifest(idx.media_type, oci::serialize(idx));
  ASSERT_TRUE(mem.put_manifest(index, "app"));

  FlakyStore flaky(mem, index.descriptor.digest.str());
  ManualClock now(1'800'000'000 + 30 * 86400);
  auto r = collect_garbage(flaky, {.policy = {.max_size = 0, .max_unused = 0, .min_age = 0}, .dry_run = false,
                                   .home = std::nullopt},
                           now);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(flaky.deletes, 0);
  EXPECT_TRUE(r->removed.empty());
  EXPECT_NE(r->kept_all.find("app"), std::string::npos) << r->kept_all;
  EXPECT_TRUE(mem.get_manifest(img.manifest.descriptor.digest.str())) << "the app's child is still there";
}

}  // namespace
}  // namespace strata::layer
