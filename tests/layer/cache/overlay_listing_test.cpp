// strata cache ls as a library call: overlays built by the pipeline into one
// store, listed with their keys, sizes and last use.
#include "layer/cache/overlay_listing.hpp"

#include <gtest/gtest.h>

#include "layer/build/build_fixture.hpp"
#include "layer/build/overlay_use.hpp"
#include "oci/memory_store.hpp"

namespace strata::layer {
namespace {

class OverlayListing : public BuildPipeline {};

TEST_F(OverlayListing, EveryOverlayOnceWithItsKeysSizesAndLastUse) {
  ManualClock clock(1'800'000'000);
  oci::MemoryStore dest;
  Recorder seen;
  auto greet = run({.plan = plan(spec({"greet"})), .dest = &dest, .dest_tag = "app"}, t_ / "home", seen, clock);
  clock.advance(7200);
  auto hello = run({.plan = plan(spec({"hello-static"})), .dest = &dest}, t_ / "home", seen, clock);
  clock.advance(7200);
  ASSERT_TRUE(run({.plan = plan(spec({"greet"})), .dest = &dest}, t_ / "home", seen, clock).cached);

  std::vector<std::string> problems;
  auto listing = list_overlays(dest, clock, problems);
  ASSERT_TRUE(listing) << listing.error().message();
  EXPECT_TRUE(problems.empty());
  ASSERT_EQ(listing->overlays.size(), 2u) << "a resolving build's two tags are one overlay";
  const CachedOverlayEntry& first = listing->overlays[0];
  EXPECT_EQ(first.root.digest, greet.root.digest) << "the one used last comes first";
  EXPECT_EQ(first.keys.size(), 2u) << "request key and content key";
  EXPECT_EQ(first.last_used, 1'800'000'000 + 14400);
  EXPECT_EQ(first.first_used, 1'800'000'000);
  EXPECT_EQ(first.base_name, OverlayFixture::get().base_ref());
  EXPECT_EQ(first.platforms, (std::vector<std::string>{"linux/amd64"}));
  ASSERT_EQ(first.base_digests.size(), 1u);
  EXPECT_EQ(first.base_digests[0], base_.store->resolve(base_.ref)->digest.str());
  EXPECT_EQ(first.packages, (std::vector<std::string>{"greet=1.0-1:amd64", "libgreet1=1.0-1:amd64"}));
  EXPECT_TRUE(first.lock_digest.starts_with("sha256:"));
  const CachedOverlayEntry& second = listing->overlays[1];
  EXPECT_EQ(second.root.digest, hello.root.digest);
  // The base's layers are shared by both overlays: each one's unique bytes
  // are its own layer, config and manifest.
  EXPECT_GT(first.size, first.unique_size);
  EXPECT_GT(first.unique_size, 0u);
  EXPECT_EQ(listing->overlay_bytes, first.unique_size + second.unique_size + (first.size - first.unique_size))
      << "the union counts the shared base once";
}

TEST(OverlayTags, OnlyAKeyTagIsAnOverlay) {
  EXPECT_TRUE(is_overlay_tag("overlay-" + std::string(64, 'a')));
  EXPECT_FALSE(is_overlay_tag("overlay-" + std::string(64, 'a') + ".used"));
  EXPECT_FALSE(is_overlay_tag("overlay-" + std::string(63, 'a')));
  EXPECT_FALSE(is_overlay_tag("overlay-" + std::string(64, 'A')));
  EXPECT_FALSE(is_overlay_tag("app"));
}

}  // namespace
}  // namespace strata::layer
