// strata cache gc on overlays the build pipeline made: three overlays in a
// layout, one used again, gc to a size that fits one; and the same in a
// real registry, where manifests are deleted by digest.
#include "layer/cache/gc.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "layer/build/build_fixture.hpp"
#include "layer/build/overlay_use.hpp"
#include "layer/cache/overlay_listing.hpp"
#include "layer/overlay/overlay_fixture.hpp"
#include "layer/sbom/referrers.hpp"
#include "layer/sbom/sbom_documents.hpp"
#include "oci/copy.hpp"
#include "oci/layout_store.hpp"
#include "support/layout_check.hpp"
#include "support/registry_server.hpp"
#include "support/run.hpp"

namespace strata::layer {
namespace {

class CacheGc : public BuildPipeline {
 protected:
  // Three overlays built into `dest` an hour apart, then the first used
  // again: the one used last.
  std::vector<BuildResult> three(oci::Store& dest, ManualClock& clock) {
    Recorder seen;
    std::vector<BuildResult> out;
    for (auto pkgs : {std::vector<std::string>{"greet"}, {"hello-static"}, {"hello-other"}}) {
      out.push_back(run({.plan = plan(spec(pkgs)), .dest = &dest}, t_ / "home", seen, clock));
      clock.advance(3600);
    }
    clock.advance(3600);
    EXPECT_TRUE(run({.plan = plan(spec({"greet"})), .dest = &dest}, t_ / "home", seen, clock).cached);
    clock.advance(3600);
    return out;
  }
};

TEST_F(CacheGc, LocalLruKeepsTheOneUsedLast) {
  ManualClock clock(system_clock().now());
  const auto dir = t_ / "cache";
  std::vector<BuildResult> built;
  {
    auto dest = oci::LayoutStore::open(dir, oci::LayoutMode::kCreate);
    ASSERT_TRUE(dest);
    built = three(**dest, clock);
  }
  std::vector<std::string> problems;
  auto store = oci::LayoutStore::open(dir, oci::LayoutMode::kReadOnly);
  ASSERT_TRUE(store);
  auto listing = list_overlays(**store, clock, problems);
  ASSERT_TRUE(listing);
  ASSERT_EQ(listing->overlays.size(), 3u);
  // What fits the base's layers and the greet overlay, not a second overlay.
  std::uint64_t fits = 0;
  for (const auto& e : listing->overlays) {
    if (e.root.digest == built[0].root.digest) fits = e.size;
  }
  fits += 2000;  // its use record
  // and its referrers (the SBOMs and provenance the build attached)
  auto refs = (*store)->referrers(built[0].root.digest);
  ASSERT_TRUE(refs);
  EXPECT_GE(refs->manifests.size(), 3u);  // two SBOMs and a provenance per build of it
  for (const auto& r : refs->manifests) {
    auto m = oci::fetch_manifest(**store, r.digest.str());
    ASSERT_TRUE(m);
    fits += static_cast<std::uint64_t>(r.size);
    const auto& im = std::get<oci::ImageManifest>(m->parsed);
    fits += static_cast<std::uint64_t>(im.config.size);
    for (const auto& l : im.layers) fits += static_cast<std::uint64_t>(l.size);
  }
  GcOptions o{.policy = {.max_size = fits, .max_unused = std::nullopt, .min_age = 0}, .dry_run = false,
              .home = std::nullopt};
  auto r = collect_garbage(**store, o, clock);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->overlays.size(), 2u);
  EXPECT_EQ(r->kept_overlays, 1u);
  EXPECT_TRUE(r->cap_met);
  EXPECT_LE(r->bytes_after, fits);
  auto after = list_overlays(**store, clock, problems);
  ASSERT_TRUE(after);
  ASSERT_EQ(after->overlays.size(), 1u);
  EXPECT_EQ(after->overlays[0].root.digest, built[0].root.digest) << "the one used last stays";
  auto check = testing::check_layout(dir);
  EXPECT_TRUE(check.problems.empty()) << check.problems.front();
  EXPECT_TRUE(check.unreferenced().empty()) << *check.unreferenced().begin();
  // The kept overlay still reads whole: a build of it is a hit.
  Recorder seen;
  auto dest = oci::LayoutStore::open(dir, oci::LayoutMode::kCreate);
  EXPECT_TRUE(run({.plan = plan(spec({"greet"})), .dest = dest->get()}, t_ / "home", seen, clock).cached);
}

TEST_F(CacheGc, RegistryDeletesByDigestAfterADryRunListsExactlyThat) {
  auto reg = testing::RegistryServer::start(testing::RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg) << reg.error().message();
  const std::string repo = (*reg)->host_port() + "/team/overlays";
  oci::OpenOptions open;
  open.home = t_ / "home";
  open.insecure_registries = {(*reg)->host_port()};
  auto dest = oci::open_store(*oci::parse_image_ref("docker://" + repo), oci::Access::kWrite, open);
  ASSERT_TRUE(dest) << dest.error().message();
  ManualClock clock(system_clock().now());
  auto built = three(*dest->store, clock);

  GcOptions o{.policy = {.max_size = std::nullopt, .max_unused = 150 * 60, .min_age = 0}, .dry_run = true,
              .home = std::nullopt};
  auto dry = collect_garbage(*dest->store, o, clock);
  ASSERT_TRUE(dry) << dry.error().message();
  EXPECT_TRUE(dry->registry);
  // hello-static (used 4 h ago) and hello-other (3 h ago) were not used for 2.5 h.
  ASSERT_EQ(dry->overlays.size(), 2u);
  EXPECT_EQ(dry->overlays[0].root.digest, built[1].root.digest);
  EXPECT_EQ(dry->overlays[1].root.digest, built[2].root.digest);
  for (const auto& b : built) EXPECT_TRUE(dest->store->resolve(b.root.digest.str())) << "a dry run deletes nothing";

  o.dry_run = false;
  auto real = collect_garbage(*dest->store, o, clock);
  ASSERT_TRUE(real) << real.error().message();
  ASSERT_EQ(real->removed.size(), dry->removed.size());
  for (std::size_t i = 0; i < real->removed.size(); ++i) EXPECT_EQ(real->removed[i].digest, dry->removed[i].digest);
  std::size_t records = 0;
  for (const auto& m : real->removed) records += m.what == "use record";
  EXPECT_GE(records, 2u) << "each evicted overlay's use records go too";
  // Gone by digest (HEAD 404 is kNotFound); what stays reads with skopeo.
  for (int i : {1, 2}) {
    auto gone = dest->store->resolve(built[i].root.digest.str());
    ASSERT_FALSE(gone);
    EXPECT_EQ(gone.error().code(), ErrorCode::kNotFound) << gone.error().message();
  }
  EXPECT_TRUE(dest->store->resolve(built[0].root.digest.str()));
  auto sk = testing::run({"skopeo", "inspect", "--tls-verify=false", "docker://" + repo + ":" + built[0].key.tag()});
  EXPECT_EQ(sk.code, 0) << sk.err;
  EXPECT_NE(sk.out.find(built[0].root.digest.str()), std::string::npos) << sk.out;
  auto tags = dest->store->list_tags();
  ASSERT_TRUE(tags);
  for (const auto& t : *tags) {
    EXPECT_EQ(t.find(built[1].key.hex), std::string::npos) << t;
    EXPECT_EQ(t.find(built[2].key.hex), std::string::npos) << t;
    // The referrers tag schema's index of each evicted overlay (its use
    // records) goes with it; the kept one's stays.
    EXPECT_NE(t, oci::referrers_tag(built[1].root.digest)) << "left dangling";
    EXPECT_NE(t, oci::referrers_tag(built[2].root.digest)) << "left dangling";
    EXPECT_TRUE(dest->store->resolve(t)) << t << " names nothing";
  }
  EXPECT_NE(std::find(tags->begin(), tags->end(), oci::referrers_tag(built[0].root.digest)), tags->end());
  // The kept overlay's SBOM is still found through the tag schema.
  auto spdx = sbom::find_attached_document(*dest->store, built[0].root, sbom::kSpdxMediaType, repo);
  ASSERT_TRUE(spdx) << spdx.error().message();
  EXPECT_TRUE(spdx->has_value());
  std::size_t referrer_tags = 0;
  for (const auto& m : real->removed) referrer_tags += m.what == "referrers tag";
  EXPECT_EQ(referrer_tags, 2u);
  // What a later ls or gc reads: no problem to report.
  std::vector<std::string> problems;
  auto after = list_overlays(*dest->store, clock, problems);
  ASSERT_TRUE(after);
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_TRUE(after->unreadable.empty());
}

// A referrers tag left dangling (by a gc before this fix, or another tool
// deleting the subject and its referrers): skipped quietly by ls, deleted by
// the next gc.
TEST_F(CacheGc, ADanglingReferrersTagIsSkippedQuietlyAndCollected) {
  auto reg = testing::RegistryServer::start(testing::RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg) << reg.error().message();
  oci::OpenOptions open;
  open.home = t_ / "home";
  open.insecure_registries = {(*reg)->host_port()};
  auto dest = oci::open_store(*oci::parse_image_ref("docker://" + (*reg)->host_port() + "/team/overlays"),
                              oci::Access::kWrite, open);
  ASSERT_TRUE(dest) << dest.error().message();
  ManualClock clock(system_clock().now());
  Recorder seen;
  auto built = run({.plan = plan(spec({"greet"})), .dest = dest->store.get()}, t_ / "home", seen, clock);
  const std::string rtag = oci::referrers_tag(built.root.digest);
  auto index = dest->store->resolve(rtag);
  ASSERT_TRUE(index) << "the use record is a referrer: " << index.error().message();
  // The subject and its referrers deleted by digest, as the old gc left them.
  auto refs = dest->store->referrers(built.root.digest);
  ASSERT_TRUE(refs);
  for (const auto& r : refs->manifests) ASSERT_TRUE(dest->store->delete_manifest(r.digest));
  ASSERT_TRUE(dest->store->delete_manifest(built.root.digest));
  ASSERT_TRUE(dest->store->resolve(rtag)) << "the tag dangles";

  std::vector<std::string> problems;
  auto listing = list_overlays(*dest->store, clock, problems);
  ASSERT_TRUE(listing) << listing.error().message();
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_TRUE(listing->unreadable.empty());
  EXPECT_EQ(listing->dangling_referrers.count(rtag), 1u);

  GcOptions o{.policy = {.max_size = std::nullopt, .max_unused = std::nullopt, .min_age = 0}, .dry_run = false,
              .home = std::nullopt};
  auto gc = collect_garbage(*dest->store, o, clock);
  ASSERT_TRUE(gc) << gc.error().message();
  EXPECT_TRUE(gc->kept_all.empty()) << gc->kept_all;
  auto gone = dest->store->resolve(rtag);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code(), ErrorCode::kNotFound);
}

// An overlay copied into a repository has no use record there: its age is
// unknown, so the first gc protects it as if it arrived then and records
// that sighting; --min-age later it is evicted like any other.
TEST_F(CacheGc, ARegistryOverlayWithoutAUseRecordAgesFromItsFirstSighting) {
  auto reg = testing::RegistryServer::start(testing::RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg) << reg.error().message();
  oci::OpenOptions open;
  open.home = t_ / "home";
  open.insecure_registries = {(*reg)->host_port()};
  auto built_in = oci::open_store(*oci::parse_image_ref("docker://" + (*reg)->host_port() + "/team/built"),
                                  oci::Access::kWrite, open);
  auto mirror = oci::open_store(*oci::parse_image_ref("docker://" + (*reg)->host_port() + "/site/overlays"),
                                oci::Access::kWrite, open);
  ASSERT_TRUE(built_in && mirror);
  ManualClock clock(system_clock().now());
  Recorder seen;
  auto built = run({.plan = plan(spec({"greet"})), .dest = built_in->store.get()}, t_ / "home", seen, clock);
  const std::string tag = built.key.tag();
  ASSERT_TRUE(oci::copy_image(*built_in->store, tag, *mirror->store, tag, {}));
  ASSERT_FALSE(read_use(*mirror->store, tag)) << "a copy carries no use record";

  GcOptions o{.policy = {.max_size = 0, .max_unused = std::nullopt, .min_age = 2 * 3600}, .dry_run = false,
              .home = std::nullopt};
  auto first = collect_garbage(*mirror->store, o, clock);
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_TRUE(first->overlays.empty()) << "an overlay of unknown age is protected by --min-age";
  EXPECT_TRUE(first->problems.empty()) << first->problems.front();
  auto stamped = read_use(*mirror->store, tag);
  ASSERT_TRUE(stamped) << "the first sighting is recorded";
  EXPECT_EQ(stamped->first_used, clock.now());

  clock.advance(3 * 3600);
  auto later = collect_garbage(*mirror->store, o, clock);
  ASSERT_TRUE(later) << later.error().message();
  ASSERT_EQ(later->overlays.size(), 1u);
  EXPECT_EQ(later->overlays[0].root.digest, built.root.digest);
  EXPECT_FALSE(mirror->store->resolve(built.root.digest.str()));
  EXPECT_TRUE(built_in->store->resolve(tag)) << "the other repository keeps its own";
}

// One key, one amd64 image: built alone (overlay A) and as a platform of a
// two-platform index (overlay B), they share that manifest and its SBOMs
// and provenance. gc evicting A keeps what B still names: in a layout the
// manifest and its documents stay reachable; a registry, which deletes a
// manifest with every tag it has, keeps A whole and says why.
TEST_F(CacheGc, APlatformManifestTwoOverlaysShareKeepsItsDocuments) {
  auto base_ref = testing::multi_arch_base(t_ / "multi", t_ / "multi-work");
  auto base = oci::open_store(*oci::parse_image_ref(base_ref), oci::Access::kRead, {});
  ASSERT_TRUE(base) << base.error().message();
  auto multi = [&](std::vector<oci::Platform> platforms) {
    OverlaySpec s = spec({"libgreet1", "shared-a"});  // both built for amd64 and arm64
    s.base = base_ref;
    s.base_store = base->store.get();
    s.base_ref = base->ref;
    s.platforms = std::move(platforms);
    return plan(std::move(s));
  };
  auto reg = testing::RegistryServer::start(testing::RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg) << reg.error().message();
  oci::OpenOptions open;
  open.home = t_ / "home";
  open.insecure_registries = {(*reg)->host_port()};
  auto layout = oci::LayoutStore::open(t_ / "shared", oci::LayoutMode::kCreate);
  ASSERT_TRUE(layout);
  auto registry = oci::open_store(*oci::parse_image_ref("docker://" + (*reg)->host_port() + "/team/shared"),
                                  oci::Access::kWrite, open);
  ASSERT_TRUE(registry) << registry.error().message();
  for (oci::Store* dest : {static_cast<oci::Store*>(layout->get()), registry->store.get()}) {
    SCOPED_TRACE(dest->describe());
    ManualClock clock(system_clock().now());
    Recorder seen;
    auto a = run({.plan = multi({kAmd64}), .dest = dest}, t_ / "home", seen, clock);
    clock.advance(3 * 3600);
    auto b = run({.plan = multi({kAmd64, kArm64}), .dest = dest}, t_ / "home", seen, clock);
    clock.advance(3600);
    auto index = oci::fetch_manifest(*dest, b.root.digest.str());
    ASSERT_TRUE(index);
    const auto& children = std::get<oci::ImageIndex>(index->parsed).manifests;
    ASSERT_TRUE(std::any_of(children.begin(), children.end(),
                            [&](const oci::Descriptor& c) { return c.digest == a.root.digest; }))
        << "the amd64 platform of B is A";
    GcOptions o{.policy = {.max_size = std::nullopt, .max_unused = 2 * 3600, .min_age = 0}, .dry_run = false,
                .home = std::nullopt};
    auto r = collect_garbage(*dest, o, clock);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_TRUE(dest->resolve(a.root.digest.str())) << "B's amd64 platform is still there";
    EXPECT_TRUE(dest->resolve(b.root.digest.str()));
    for (auto type : {sbom::kSpdxMediaType, sbom::kCycloneDxMediaType}) {
      auto doc = sbom::find_attached_document(*dest, a.root, type, "shared");
      ASSERT_TRUE(doc) << doc.error().message();
      EXPECT_TRUE(doc->has_value()) << type << " of B's amd64 platform is gone";
    }
    if (dest == registry->store.get()) {
      ASSERT_FALSE(r->problems.empty());
      EXPECT_NE(r->problems.front().find("also a platform of an overlay gc keeps"), std::string::npos)
          << r->problems.front();
    } else {
      // A's tags go (and those of B's arm64 platform under its own content
      // key, never used on its own); B itself stays.
      auto gone = [&](const oci::Digest& d) {
        return std::any_of(r->overlays.begin(), r->overlays.end(), [&](const GcOverlay& o) { return o.root.digest == d; });
      };
      EXPECT_TRUE(gone(a.root.digest));
      EXPECT_FALSE(gone(b.root.digest));
      auto check = testing::check_layout(t_ / "shared");
      EXPECT_TRUE(check.problems.empty()) << check.problems.front();
    }
  }
}

}  // namespace
}  // namespace strata::layer
