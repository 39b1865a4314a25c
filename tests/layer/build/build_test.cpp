// The build pipeline as a library call (layer::build): driven with an
// in-memory destination, the fixture archive (testdata/overlay) over HTTP and
// its base image, a recording observer and, for --max-age, a manual clock.
// tests/layer/overlay/overlay_build_test.cpp covers the same pipeline
// through the binary; these check what only the API shows.
#include "layer/build/build.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "layer/build/build_fixture.hpp"
#include "layer/sbom/image_sbom.hpp"
#include "layer/sbom/sbom_documents.hpp"
#include "layer/overlay/overlay_fixture.hpp"
#include "oci/http/registry_transport.hpp"
#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "oci/memory_store.hpp"
#include "oci/open_store.hpp"
#include "oci/tar_reader.hpp"
#include "support/image_layers.hpp"
#include "support/json_run.hpp"
#include "support/temp_dir.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {
namespace {

TEST_F(BuildPipeline, ASecondBuildIsACacheHitTheObserverSees) {
  oci::MemoryStore dest;
  Recorder first;
  auto built = run({.plan = plan(spec({"greet", "daemon-user"})), .dest = &dest, .dest_tag = "app"}, t_ / "home", first);
  ASSERT_FALSE(built.cached);
  ASSERT_EQ(built.platforms.size(), 1u);
  const PlatformBuild& b = built.platforms.front();
  EXPECT_EQ(first.events, (std::vector<std::string>{"resolved linux/amd64 3", "fetched linux/amd64", "built linux/amd64"}));
  EXPECT_EQ(b.overlay.converted, 3u);
  EXPECT_EQ(b.fetch.downloaded, 3u);
  EXPECT_EQ(b.overlay.reproduced.front(), "dpkg database");
  // The script actions not reproduced are the result's and the image's annotation.
  ASSERT_FALSE(b.overlay.unreproduced.empty());
  EXPECT_NE(std::find(b.overlay.unreproduced.begin(), b.overlay.unreproduced.end(),
                      "daemon-user: postinst creates users (systemd-sysusers); not reproduced"),
            b.overlay.unreproduced.end());
  auto fetched = oci::fetch_manifest(dest, "app");
  ASSERT_TRUE(fetched) << fetched.error().message();
  EXPECT_EQ(fetched->raw.descriptor.digest, built.root.digest);
  const auto& annotations = std::get<oci::ImageManifest>(fetched->parsed).annotations;
  EXPECT_EQ(annotations.at(std::string(kAnnotationUnreproduced)), str::join(b.overlay.unreproduced, "\n"));
  EXPECT_EQ(annotations.at(std::string(kAnnotationKey)), b.key.hex) << "annotated with its content key";
  EXPECT_NE(b.key.hex, built.key.hex) << "a resolving build is found by its request key";
  EXPECT_EQ(dest.resolve(built.key.tag())->digest, built.root.digest);
  EXPECT_EQ(dest.resolve(b.key.tag())->digest, built.root.digest);

  Recorder second;
  auto again = run({.plan = plan(spec({"daemon-user", "greet"})), .dest = &dest, .dest_tag = "again"}, t_ / "home",
                   second);
  EXPECT_TRUE(again.cached);
  EXPECT_TRUE(again.platforms.empty());
  EXPECT_EQ(again.root.digest, built.root.digest);
  EXPECT_EQ(second.events, (std::vector<std::string>{"hit " + built.key.tag() + " " + built.root.digest.str()}));
  EXPECT_EQ(dest.resolve("again")->digest, built.root.digest) << "a hit still tags the destination";
}

TEST_F(BuildPipeline, ALockBuildEqualsTheResolvingBuild) {
  oci::MemoryStore a, b;
  Recorder seen;
  auto resolved = run({.plan = plan(spec({"greet", "hello-static"})), .dest = &a, .lock_out = t_ / "app.lock"},
                      t_ / "home-a", seen);
  ASSERT_TRUE(stdfs::exists(t_ / "app.lock"));
  OverlaySpec from_lock = spec({});
  from_lock.locks = {t_ / "app.lock"};
  from_lock.platforms.clear();  // the lock's
  from_lock.sources.clear();    // a lock build reads no sources
  OverlayPlan p = plan(from_lock);
  EXPECT_EQ(p.platforms, std::vector<oci::Platform>{kAmd64});
  EXPECT_EQ(p.key.hex, resolved.platforms.front().key.hex) << "a lock build's key is its resolving build's content key";
  OverlayPlan again = p;
  auto locked = run({.plan = std::move(p), .dest = &b}, t_ / "home-b", seen);
  EXPECT_FALSE(locked.cached);
  EXPECT_EQ(locked.root.digest, resolved.root.digest);
  EXPECT_EQ(write_lock(locked.platforms.front().lock), write_lock(resolved.platforms.front().lock));
  // The lock, built where the resolving build put its overlay, is a hit.
  auto hit = run({.plan = std::move(again), .dest = &a}, t_ / "home-a", seen);
  EXPECT_TRUE(hit.cached);
  EXPECT_EQ(hit.root.digest, resolved.root.digest);
}

// Two locks of one request that resolve differently (an archive that moved
// on: a security update, a new dependency) are two overlays, even in one
// destination: a lock build never returns another lock's image.
TEST_F(BuildPipeline, ALockBuildNeverReturnsAnotherLocksImage) {
  oci::MemoryStore scratch;
  Recorder seen;
  run({.plan = plan(spec({"greet"})), .dest = &scratch, .lock_out = t_ / "a.lock"}, t_ / "home", seen);
  run({.plan = plan(spec({"greet", "hello-static"})), .dest = &scratch, .lock_out = t_ / "b.lock"}, t_ / "home", seen);
  // Lock B: the same request as A, another resolution.
  std::string b = testing::read_file(t_ / "b.lock");
  auto at = b.find("\"hello-static\"");
  ASSERT_NE(at, std::string::npos) << b;
  b.erase(b.rfind('\n', at), b.find('\n', at) - b.rfind('\n', at));
  testing::write_file(t_ / "b.lock", b);
  auto lock_plan = [&](const stdfs::path& lock) {
    OverlaySpec s = spec({});
    s.locks = {lock};
    return plan(s);
  };
  OverlayPlan pa = lock_plan(t_ / "a.lock"), pb = lock_plan(t_ / "b.lock");
  ASSERT_EQ(pa.locks.front().request, pb.locks.front().request);
  EXPECT_NE(pa.key.hex, pb.key.hex);

  oci::MemoryStore dest;
  auto built_a = run({.plan = pa, .dest = &dest, .dest_tag = "app"}, t_ / "home", seen);
  auto built_b = run({.plan = pb, .dest = &dest, .dest_tag = "app"}, t_ / "home", seen);
  EXPECT_FALSE(built_b.cached) << "lock B is not lock A's image";
  EXPECT_NE(built_b.root.digest, built_a.root.digest);
  auto packages = [&](const oci::Descriptor& d) {
    auto m = oci::fetch_manifest(dest, d.digest.str());
    return std::get<oci::ImageManifest>(m->parsed).annotations.at(std::string(kAnnotationPackages));
  };
  EXPECT_EQ(packages(built_b.root).find("hello-static") != std::string::npos, true) << packages(built_b.root);
  EXPECT_EQ(packages(built_a.root).find("hello-static"), std::string::npos) << packages(built_a.root);
  EXPECT_EQ(dest.resolve("app")->digest, built_b.root.digest);
  // SOURCE_DATE_EPOCH changes the bytes, so it changes the key too.
  OverlaySpec dated = spec({});
  dated.locks = {t_ / "a.lock"};
  dated.epoch = 1234567890;
  EXPECT_NE(plan(dated).key.hex, pa.key.hex);
  OverlaySpec dated_request = spec({"greet"});
  dated_request.epoch = 1234567890;
  EXPECT_NE(plan(dated_request).key.hex, plan(spec({"greet"})).key.hex);
}

// A tiny merged-/usr root with a dpkg database (nothing in it runs).
oci::Descriptor put_tiny_image(testing::TestStore& store, const std::string& arch) {
  using namespace testing::layers;
  std::string tar = raw_tar({dir("usr"), dir("usr/bin"), dir("usr/lib"), sym("bin", "usr/bin"), sym("lib", "usr/lib"),
                             dir("var"), dir("var/lib"), dir("var/lib/dpkg"),
                             file("var/lib/dpkg/status",
                                  "Package: base-files\nStatus: install ok installed\nPriority: required\n"
                                  "Section: admin\nMaintainer: strata tests <tests@strata.test>\nArchitecture: " +
                                      arch + "\nVersion: 12.4\nDescription: base\n")});
  oci::StringSink gz;
  auto sink = oci::CompressingSink::create(oci::Compression::kGzip, gz);
  EXPECT_TRUE((*sink)->write(oci::as_bytes(tar)));
  EXPECT_TRUE((*sink)->finish());
  oci::ImageManifest m;
  m.media_type = std::string(oci::media::kOciManifest);
  m.layers.push_back(store.put_blob(std::string(oci::media::kOciLayerGzip), gz.str()));
  m.config = store.put_blob(std::string(oci::media::kOciConfig),
                            R"({"architecture":")" + arch + R"(","os":"linux","config":{},"rootfs":{"type":"layers",)"
                            R"("diff_ids":["sha256:)" + sha256_hex(tar) + R"("]}})");
  auto raw = oci::make_raw_manifest(m.media_type, oci::serialize(m));
  EXPECT_TRUE(store.put_manifest(raw, std::nullopt));
  return raw.descriptor;
}

TEST_F(BuildPipeline, SeveralPlatformsMakeAnIndexOfTheirOverlays) {
  testing::TestStore base;
  oci::ImageIndex idx;
  idx.media_type = std::string(oci::media::kOciIndex);
  for (const auto& p : {kAmd64, kArm64}) {
    oci::Descriptor d = put_tiny_image(base, p.architecture);
    d.platform = p;
    idx.manifests.push_back(d);
  }
  ASSERT_TRUE(base.put_manifest(oci::make_raw_manifest(idx.media_type, oci::serialize(idx)), "multi"));
  OverlaySpec s = spec({"libgreet1", "shared-a"});
  s.base = "test:multi";
  s.base_store = &base;
  s.base_ref = "multi";
  s.platforms = {kAmd64, kArm64};
  oci::MemoryStore dest;
  Recorder seen;
  auto built = run({.plan = plan(s), .dest = &dest, .dest_tag = "both", .lock_out = t_ / "x.lock"}, t_ / "home", seen);
  EXPECT_EQ(seen.events, (std::vector<std::string>{"resolved linux/amd64 2", "fetched linux/amd64", "built linux/amd64",
                                                   "resolved linux/arm64 2", "fetched linux/arm64",
                                                   "built linux/arm64"}));
  ASSERT_EQ(built.platforms.size(), 2u);
  EXPECT_TRUE(stdfs::exists(t_ / "x.lock.linux-amd64"));
  EXPECT_TRUE(stdfs::exists(t_ / "x.lock.linux-arm64"));
  auto fetched = oci::fetch_manifest(dest, "both");
  ASSERT_TRUE(fetched) << fetched.error().message();
  EXPECT_EQ(fetched->raw.descriptor.digest, built.root.digest);
  EXPECT_EQ(dest.resolve(built.key.tag())->digest, built.root.digest);
  const auto& index = std::get<oci::ImageIndex>(fetched->parsed);
  ASSERT_EQ(index.manifests.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(index.manifests[i].digest, built.platforms[i].overlay.manifest.digest);
    EXPECT_EQ(index.manifests[i].platform, built.platforms[i].platform);
    EXPECT_EQ(built.platforms[i].lock.platform, built.platforms[i].platform.str());
    EXPECT_EQ(built.platforms[i].lock.packages.front().architecture, built.platforms[i].platform.architecture);
  }
  EXPECT_EQ(index.annotations.at(std::string(kAnnotationKey)), built.key.hex);
  EXPECT_FALSE(index.annotations.contains("org.opencontainers.image.base.name"))
      << "the bytes must not depend on how the base was spelled";

  // Rebuilt from its two locks (given in either order), elsewhere and with no
  // sources: the same index, byte for byte, annotated with the request key.
  OverlaySpec from_locks = s;
  from_locks.packages.clear();
  from_locks.sources.clear();
  from_locks.platforms.clear();  // the locks'
  from_locks.locks = {t_ / "x.lock.linux-arm64", t_ / "x.lock.linux-amd64"};
  OverlayPlan lp = plan(from_locks);
  EXPECT_EQ(lp.platforms, (std::vector<oci::Platform>{kArm64, kAmd64}));
  from_locks.platforms = {kAmd64, kArm64};
  lp = plan(from_locks);
  ASSERT_TRUE(lp.index_key);
  EXPECT_EQ(lp.index_key->hex, built.key.hex);
  EXPECT_NE(lp.key.hex, built.key.hex) << "looked up by the locks' contents, not by the request";
  oci::MemoryStore other;
  auto rebuilt = run({.plan = lp, .dest = &other, .dest_tag = "again"}, t_ / "home-2", seen);
  EXPECT_FALSE(rebuilt.cached);
  EXPECT_EQ(rebuilt.root.digest, built.root.digest);
  auto hit = run({.plan = lp, .dest = &other}, t_ / "home-2", seen);
  EXPECT_TRUE(hit.cached);
  // One lock per platform: a platform without one, or a lock for none, is named.
  OverlaySpec missing = from_locks;
  missing.locks = {t_ / "x.lock.linux-amd64"};
  auto no_arm = plan_overlay(missing);
  ASSERT_FALSE(no_arm);
  EXPECT_NE(no_arm.error().message().find("no --lock is for linux/arm64"), std::string::npos) << no_arm.error().message();
  missing.platforms = {kArm64};
  missing.locks = {t_ / "x.lock.linux-amd64", t_ / "x.lock.linux-arm64"};
  auto extra = plan_overlay(missing);
  ASSERT_FALSE(extra);
  EXPECT_NE(extra.error().message().find("not among the platforms built"), std::string::npos)
      << extra.error().message();
}

TEST_F(BuildPipeline, MaxAgeRebuildsOnceTheArchiveSnapshotIsOlder) {
  ManualClock clock(system_clock().now());
  oci::MemoryStore dest;
  Recorder seen;
  auto request = [&] { return BuildRequest{.plan = plan(spec({"hello-static"})), .dest = &dest, .max_age = 86400}; };
  auto first = run(request(), t_ / "home", seen, clock);
  ASSERT_FALSE(first.cached);
  std::int64_t snapshot = archive_date(first.platforms.front().lock);
  ASSERT_GT(snapshot, 0);
  seen.events.clear();
  auto young = run(request(), t_ / "home", seen, clock);
  EXPECT_TRUE(young.cached);
  clock.advance(2 * 86400);
  seen.events.clear();
  auto old = run(request(), t_ / "home", seen, clock);
  EXPECT_FALSE(old.cached);
  ASSERT_FALSE(seen.events.empty());
  EXPECT_EQ(seen.events.front(), "expired " + first.key.tag() + " " + std::to_string(snapshot));
  EXPECT_EQ(old.root.digest, first.root.digest) << "rebuilt from the same snapshot: the same bytes";
}

TEST_F(BuildPipeline, TheSameKeyGivesTheSameBytesHoweverTheBaseIsSpelled) {
  // Builders racing on one key must write one image, whoever tags last.
  oci::MemoryStore by_tag, by_digest;
  Recorder seen;
  OverlaySpec tagged = spec({"greet"});
  auto first = run({.plan = plan(tagged), .dest = &by_tag}, t_ / "home-a", seen);
  OverlaySpec pinned = spec({"greet"});
  std::string digest = base_.store->resolve(base_.ref)->digest.str();
  pinned.base = "oci:" + OverlayFixture::get().images().string() + "@" + digest;
  pinned.base_ref = digest;
  auto second = run({.plan = plan(pinned), .dest = &by_digest}, t_ / "home-b", seen);
  ASSERT_FALSE(second.cached);
  EXPECT_EQ(second.key.hex, first.key.hex);
  EXPECT_EQ(second.root.digest, first.root.digest);
}

TEST_F(BuildPipeline, EveryUseIsRecordedAtMostOncePerRefresh) {
  ManualClock clock(1'800'000'000);
  oci::MemoryStore dest;
  Recorder seen;
  auto request = [&] { return BuildRequest{.plan = plan(spec({"hello-static"})), .dest = &dest, .use_refresh = 3600}; };
  auto built = run(request(), t_ / "home", seen, clock);
  const std::string tag = built.key.tag();
  auto use = read_use(dest, tag);
  ASSERT_TRUE(use) << "a build is a use";
  EXPECT_EQ(use->last_used, 1'800'000'000);
  EXPECT_EQ(use->subject.digest, built.root.digest);
  auto record = oci::fetch_manifest(dest, use_tag(tag));
  ASSERT_TRUE(record);
  const auto& m = std::get<oci::ImageManifest>(record->parsed);
  EXPECT_EQ(m.artifact_type, kUseArtifactType);
  EXPECT_EQ(m.config.media_type, oci::media::kOciEmpty);
  ASSERT_TRUE(dest.has_blob(m.config).value_or(false)) << "the empty config is in the store";

  clock.advance(600);
  EXPECT_TRUE(run(request(), t_ / "home", seen, clock).cached);
  EXPECT_EQ(read_use(dest, tag)->record.digest, use->record.digest) << "within the refresh: no write";
  clock.advance(3600);
  EXPECT_TRUE(run(request(), t_ / "home", seen, clock).cached);
  EXPECT_EQ(read_use(dest, tag)->last_used, 1'800'000'000 + 4200) << "a hit after the refresh is recorded";
}

TEST_F(BuildPipeline, TwoBuildersOfOneKeyBuildItOnce) {
  oci::MemoryStore dest;
  Recorder a, b;
  BuildResult ra, rb;
  std::thread other([&] { ra = run({.plan = plan(spec({"greet", "shared-a"})), .dest = &dest}, t_ / "home", a); });
  rb = run({.plan = plan(spec({"greet", "shared-a"})), .dest = &dest}, t_ / "home", b);
  other.join();
  EXPECT_NE(ra.cached, rb.cached) << "one built, the other waited and found it";
  EXPECT_EQ(ra.root.digest, rb.root.digest);
}

TEST_F(BuildPipeline, TheKeyIsTheOneStrataKeyPrints) {
  auto& fx = OverlayFixture::get();
  OverlayPlan p = plan(spec({"greet", "hello-static"}));
  auto key = testing::run({testing::strata_binary(), "--home", (t_ / "home").string(), "key", "--base", fx.base_ref(),
                           "--sources", fx.sources().string(), "--platform", "linux/amd64", "hello-static", "greet"});
  ASSERT_EQ(key.code, 0) << key.err;
  EXPECT_EQ(testing::trim_nl(key.out), p.key.hex);
  auto inputs = nlohmann::json::parse(p.key.canonical_json);
  EXPECT_EQ(inputs["packages"], nlohmann::json({"greet", "hello-static"}));
  EXPECT_EQ(inputs["compression"], "gzip");
  EXPECT_EQ(sha256_hex(p.key.canonical_json), p.key.hex);
}

TEST(BuildPlan, AScratchKeyNamesTheVariantAndRecipeAndNeedsNoStore) {
  testing::TempDir t;
  std::ofstream(t / "a.list") << "deb [trusted=yes] http://127.0.0.1:9/debian stable main\n";
  OverlaySpec s;
  s.base = std::string(kScratchBase);
  s.sources = {(t / "a.list").string()};
  s.platforms = {kAmd64};
  auto minbase = plan_overlay(s);
  ASSERT_TRUE(minbase) << minbase.error().message();
  EXPECT_EQ(nlohmann::json::parse(minbase->key.canonical_json)["base"]["linux/amd64"], "scratch:minbase:1");
  s.variant = ScratchVariant::kEssential;
  s.compression = oci::Compression::kZstd;
  auto essential = plan_overlay(s);
  ASSERT_TRUE(essential) << essential.error().message();
  EXPECT_NE(essential->key.hex, minbase->key.hex);
  s.compression = oci::Compression::kNone;  // a plain tar layer: its own key
  auto none = plan_overlay(s);
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_NE(none->key.hex, essential->key.hex);
  s.compression = oci::Compression::kUnknown;
  auto unknown = plan_overlay(s);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message(), "--compression: choose gzip, zstd or none");
  OverlaySpec empty;
  empty.base = "oci:/nowhere:base";
  auto refused = plan_overlay(empty);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message(), "name at least one package to add to --base oci:/nowhere:base");
}

// The build knows the image it wrote: its filesystem, made from the plan,
// the fragments' headers and kept files and the effects, is node for node
// what reading the new layer back over the base gives (a file another
// package Replaces dropped, hardlinks, alternatives, a diversion), so the
// SBOM made from it is the one derived from the image, byte for byte.
TEST_F(BuildPipeline, TheImagesFilesystemAndSbomAreKnownWithoutReadingItBack) {
  oci::MemoryStore dest;
  Recorder seen;
  auto built = run({.plan = plan(spec({"greet", "hello-static", "hello-other", "daemon-user", "diverted-tool", "shared-a",
                                       "shared-b"})),
                    .dest = &dest, .dest_tag = "app"},
                   t_ / "home", seen);
  ASSERT_EQ(built.platforms.size(), 1u);
  const PlatformBuild& b = built.platforms.front();
  ASSERT_TRUE(b.overlay.fs) << b.overlay.fs_unknown;

  auto fetched = oci::fetch_manifest(dest, b.overlay.manifest.digest.str());
  ASSERT_TRUE(fetched) << fetched.error().message();
  const auto& manifest = std::get<oci::ImageManifest>(fetched->parsed);
  auto base = load_base_image(*base_.store, base_.ref, kAmd64,
                              oci::combine_needs(overlay_base_needs(), sbom::image_sbom_needs()));
  ASSERT_TRUE(base) << base.error().message();
  auto reader = oci::TarReader::open_blob(dest, manifest.layers.back(), {});
  ASSERT_TRUE(reader) << reader.error().message();
  oci::ImageFilesystem read_back = base->fs;
  ASSERT_TRUE(read_back.apply_layer(**reader, sbom::image_sbom_needs()));
  ASSERT_EQ(read_back.nodes().size(), b.overlay.fs->nodes().size());
  for (const auto& [path, node] : read_back.nodes()) {
    auto it = b.overlay.fs->nodes().find(path);
    ASSERT_NE(it, b.overlay.fs->nodes().end()) << "/" << path;
    EXPECT_EQ(it->second, node) << "/" << path;
  }

  auto config = oci::parse_config(*oci::read_blob(dest, manifest.config), "config");
  ASSERT_TRUE(config);
  auto known = sbom::image_sbom_of(*b.overlay.fs, fetched->raw.descriptor, manifest, *config, "app", "strata-test");
  auto derived = sbom::read_image_sbom(dest, fetched->raw, manifest, "app", "strata-test");
  ASSERT_TRUE(known) << known.error().message();
  ASSERT_TRUE(derived) << derived.error().message();
  EXPECT_EQ(sbom::sbom_document(*known, sbom::SbomFormat::kSpdx), sbom::sbom_document(*derived, sbom::SbomFormat::kSpdx));
  auto greet = std::find_if(known->packages.begin(), known->packages.end(),
                            [](const sbom::SbomPackage& p) { return p.name == "greet"; });
  ASSERT_NE(greet, known->packages.end());
  EXPECT_EQ(greet->license, "GPL-2.0-or-later AND MIT") << "from the fragment's copyright summary";
  EXPECT_EQ(greet->layer, manifest.layers.size() - 1);
}

}  // namespace
}  // namespace strata::layer
