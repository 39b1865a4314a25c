// The checks of the Store conformance suite (store_conformance.hpp).
#include "oci/store_conformance.hpp"

#include <algorithm>
#include <thread>

#include "support/random_image.hpp"

namespace strata::oci {
namespace {

TEST_P(StoreConformance, BlobRoundTripAndOffsets) {
  std::string bytes = testing::random_bytes(3 << 20, 1);
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  EXPECT_FALSE(*store_->has_blob(d));
  ASSERT_TRUE(write_blob(*store_, d, bytes));
  EXPECT_TRUE(*store_->has_blob(d));
  StringSink all;
  ASSERT_TRUE(store_->fetch_blob(d, all, 0));
  EXPECT_EQ(all.str(), bytes);
  StringSink tail;
  ASSERT_TRUE(store_->fetch_blob(d, tail, 1000));
  EXPECT_EQ(tail.str(), bytes.substr(1000));
}

TEST_P(StoreConformance, WrongBytesAreNeverCommitted) {
  std::string bytes = "the real content";
  auto d = descriptor_for(media::kOciLayer, bytes);
  auto w = store_->blob_writer(d);
  ASSERT_TRUE(w);
  ASSERT_TRUE((*w)->write(as_bytes("the fake content")));
  auto r = (*w)->commit();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("digest mismatch"), std::string::npos) << r.error().message();
  EXPECT_FALSE(*store_->has_blob(d));
  // Too many bytes are refused as they arrive.
  auto w2 = store_->blob_writer(d);
  ASSERT_TRUE(w2);
  EXPECT_FALSE((*w2)->write(as_bytes(bytes + "!")));
  (*w2)->abort();
  EXPECT_FALSE(*store_->has_blob(d));
  // And the right bytes still go in afterwards.
  EXPECT_TRUE(write_blob(*store_, d, bytes));
}

TEST_P(StoreConformance, ManifestsTagsAndResolve) {
  auto img = testing::make_image(*store_, {100, 200}, 7);
  ASSERT_TRUE(store_->put_manifest(img.manifest, "v1"));
  auto by_tag = store_->get_manifest("v1");
  ASSERT_TRUE(by_tag) << by_tag.error().message();
  EXPECT_EQ(by_tag->bytes, img.manifest.bytes);
  EXPECT_EQ(by_tag->descriptor.digest, img.manifest.descriptor.digest);
  EXPECT_EQ(by_tag->descriptor.media_type, media::kOciManifest);
  auto by_digest = store_->get_manifest(img.manifest.descriptor.digest.str());
  ASSERT_TRUE(by_digest);
  EXPECT_EQ(by_digest->bytes, img.manifest.bytes);
  auto desc = store_->resolve("v1");
  ASSERT_TRUE(desc);
  EXPECT_EQ(desc->size, static_cast<std::int64_t>(img.manifest.bytes.size()));

  // Moving a tag.
  auto img2 = testing::make_image(*store_, {300}, 8);
  ASSERT_TRUE(store_->put_manifest(img2.manifest, "v1"));
  ASSERT_TRUE(store_->put_manifest(img.manifest, "v0"));
  EXPECT_EQ(store_->resolve("v1")->digest, img2.manifest.descriptor.digest);
  auto tags = store_->list_tags();
  ASSERT_TRUE(tags);
  std::sort(tags->begin(), tags->end());
  EXPECT_EQ(*tags, (std::vector<std::string>{"v0", "v1"}));

  auto missing = store_->resolve("nope");
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().is(ErrorCode::kNotFound));
}

TEST_P(StoreConformance, DeleteManifestRemovesItsTags) {
  auto img = testing::make_image(*store_, {10}, 3);
  ASSERT_TRUE(store_->put_manifest(img.manifest, "gone"));
  ASSERT_TRUE(store_->delete_manifest(img.manifest.descriptor.digest));
  EXPECT_FALSE(store_->resolve("gone"));
  auto again = store_->delete_manifest(img.manifest.descriptor.digest);
  ASSERT_FALSE(again);
  EXPECT_TRUE(again.error().is(ErrorCode::kNotFound));
}

TEST_P(StoreConformance, ConcurrentWritersKeepTheStoreConsistent) {
  std::vector<testing::TestImage> imgs;
  for (unsigned i = 0; i < 8; ++i) imgs.push_back(testing::make_image(*store_, {64}, 100 + i));
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < imgs.size(); ++i) {
    threads.emplace_back([&, i] { ASSERT_TRUE(store_->put_manifest(imgs[i].manifest, "t" + std::to_string(i))); });
  }
  for (auto& t : threads) t.join();
  for (unsigned i = 0; i < imgs.size(); ++i) {
    auto d = store_->resolve("t" + std::to_string(i));
    ASSERT_TRUE(d) << i;
    EXPECT_EQ(d->digest, imgs[i].manifest.descriptor.digest);
  }
}

}  // namespace
}  // namespace strata::oci
