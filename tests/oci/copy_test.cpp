#include "oci/copy.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "oci/layout_store.hpp"
#include "oci/memory_store.hpp"
#include "support/random_image.hpp"
#include "support/temp_dir.hpp"

namespace strata::oci {
namespace {

class CountingObserver : public CopyObserver {
 public:
  void blob_retry(const Descriptor&, const Error&) override { ++retries; }
  void blob_done(const Descriptor&, BlobOutcome o) override {
    if (o == BlobOutcome::kCopied) ++copied;
  }
  std::atomic<int> retries{0}, copied{0};
};

TEST(Copy, CopiesAnImageBitExactly) {
  MemoryStore src("src"), dst("dst");
  auto img = testing::make_image(src, {1 << 20, 300, 5000}, 1);
  ASSERT_TRUE(src.put_manifest(img.manifest, "v1"));
  auto r = copy_image(src, "v1", dst, "copied", {});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->root.digest, img.manifest.descriptor.digest);
  EXPECT_EQ(r->blobs_copied, 4u);
  EXPECT_EQ(dst.get_manifest("copied")->bytes, img.manifest.bytes);
  for (std::size_t i = 0; i < img.layers.size(); ++i) EXPECT_EQ(*read_blob(dst, img.layers[i], 2 << 20), img.layer_bytes[i]);
}

// A destination that names a digest (docker://HOST/REPO@sha256:…) receives
// exactly that content: another image is refused before anything is
// written, with an error naming the destination and what to do.
TEST(Copy, ADestinationPinnedByDigestReceivesThatContentOrNothing) {
  MemoryStore src("src"), dst("dst");
  auto img = testing::make_image(src, {1000, 2000}, 4);
  ASSERT_TRUE(src.put_manifest(img.manifest, "v1"));
  const Digest other = Digest::sha256_of("another image");
  const std::string named = "docker://reg.example/team/app@" + other.str();
  auto pin = destination_pin(*parse_image_ref(named));
  ASSERT_TRUE(pin);
  EXPECT_EQ(pin->digest, other);
  EXPECT_EQ(pin->reference, named);

  CopyOptions o;
  o.pin = pin;
  auto refused = copy_image(src, "v1", dst, std::nullopt, o);
  ASSERT_FALSE(refused);
  EXPECT_TRUE(refused.error().is(ErrorCode::kFailedPrecondition));
  EXPECT_EQ(refused.error().message(),
            named + ": the image to copy is " + img.manifest.descriptor.digest.str() +
                ", not the digest this destination names; nothing was copied. Name the destination by tag, or by " +
                img.manifest.descriptor.digest.str());
  for (const auto& layer : img.layers) EXPECT_FALSE(*dst.has_blob(layer)) << "written before the refusal";
  EXPECT_FALSE(dst.resolve(img.manifest.descriptor.digest.str()));
  auto estimate = estimate_copy(src, "v1", &dst, std::nullopt, o);
  ASSERT_FALSE(estimate);
  EXPECT_EQ(estimate.error().message(), refused.error().message());

  // The digest the source has: copied as usual.
  o.pin = destination_pin(*parse_image_ref("docker://reg.example/team/app@" + img.manifest.descriptor.digest.str()));
  auto copied = copy_image(src, "v1", dst, std::nullopt, o);
  ASSERT_TRUE(copied) << copied.error().message();
  EXPECT_EQ(copied->root.digest, img.manifest.descriptor.digest);

  // Only a registry reference pins: a layout's or archive's digest names the image read.
  EXPECT_FALSE(destination_pin(*parse_image_ref("docker://reg.example/team/app:v1")));
  EXPECT_FALSE(destination_pin(*parse_image_ref("oci:/srv/mirror@" + other.str())));
}

TEST(Copy, SecondCopyIsANoOpWithoutBlobTraffic) {
  MemoryStore src("src"), dst("dst");
  auto img = testing::make_image(src, {1000, 2000}, 2);
  ASSERT_TRUE(src.put_manifest(img.manifest, "v1"));
  ASSERT_TRUE(copy_image(src, "v1", dst, "v1", {}));
  auto fetches = src.fetch_count();
  auto again = copy_image(src, "v1", dst, "v1", {});
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->already_present);
  EXPECT_EQ(src.fetch_count(), fetches);
}

TEST(Copy, SkipsBlobsTheDestinationHas) {
  MemoryStore src("src"), dst("dst");
  auto img = testing::make_image(src, {1000, 2000}, 3);
  ASSERT_TRUE(src.put_manifest(img.manifest, "v1"));
  ASSERT_TRUE(write_blob(dst, img.layers[0], img.layer_bytes[0]));
  auto r = copy_image(src, "v1", dst, "v1", {});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->blobs_skipped, 1u);
  EXPECT_EQ(r->blobs_copied, 2u);
}

TEST(Copy, IndexPlatformSelectionAndAll) {
  MemoryStore src("src");
  auto idx = testing::make_index(src, {"amd64", "arm64"}, 10);
  ASSERT_TRUE(src.put_manifest(idx, "multi"));
  auto parsed = std::get<ImageIndex>(*parse_manifest(idx.bytes, idx.descriptor.media_type, "idx"));

  MemoryStore one("one");
  CopyOptions arm;
  arm.platform = *parse_platform("linux/arm64");
  auto r = copy_image(src, "multi", one, "x", arm);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->root.digest, parsed.manifests[1].digest);  // the arm64 child, not the index
  EXPECT_EQ(one.blob_count(), 4u);                        // 2 layers + config + manifest

  MemoryStore all("all");
  CopyOptions everything;
  everything.all = true;
  auto a = copy_image(src, "multi", all, "x", everything);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->root.digest, idx.descriptor.digest);
  EXPECT_EQ(all.get_manifest("x")->bytes, idx.bytes);
  EXPECT_TRUE(all.get_manifest(parsed.manifests[0].digest.str()));
  EXPECT_TRUE(all.get_manifest(parsed.manifests[1].digest.str()));

  CopyOptions s390;
  s390.platform = *parse_platform("linux/s390x");
  MemoryStore none("none");
  auto missing = copy_image(src, "multi", none, "x", s390);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("linux/amd64, linux/arm64"), std::string::npos) << missing.error().message();
}

TEST(Copy, CorruptSourceFailsClearlyAndLeavesNoCorruptBlob) {
  testing::TempDir dir;
  MemoryStore src("src");
  auto dst = std::move(*LayoutStore::open(dir / "dst", LayoutMode::kCreate));
  auto img = testing::make_image(src, {4096}, 4);
  ASSERT_TRUE(src.put_manifest(img.manifest, "v1"));
  std::string bad = img.layer_bytes[0];
  bad[100] ^= 1;
  src.put_raw_blob(img.layers[0].digest, bad);
  CountingObserver obs;
  CopyOptions o;
  o.observer = &obs;
  auto r = copy_image(src, "v1", *dst, "v1", o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("digest mismatch"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find(img.layers[0].digest.str()), std::string::npos);
  // A local source gives the same wrong bytes every time: not retried.
  EXPECT_EQ(obs.retries.load(), 0);
  EXPECT_EQ(r.error().message().find("attempt"), std::string::npos) << r.error().message();
  EXPECT_FALSE(*dst->has_blob(img.layers[0]));
  EXPECT_FALSE(dst->resolve("v1"));  // no manifest without its blobs
}

// A destination whose disk is full: every blob write fails with ENOSPC.
class FullDisk final : public Store {
 public:
  std::string describe() const override { return "full-disk"; }
  Result<Descriptor> resolve(std::string_view ref) override { return inner.resolve(ref); }
  Result<RawManifest> get_manifest(std::string_view ref) override { return inner.get_manifest(ref); }
  Result<void> put_manifest(const RawManifest& m, std::optional<std::string_view> tag) override {
    return inner.put_manifest(m, tag);
  }
  Result<bool> has_blob(const Descriptor& d) override { return inner.has_blob(d); }
  Result<void> fetch_blob(const Descriptor& d, ByteSink& sink, std::uint64_t offset) override {
    return inner.fetch_blob(d, sink, offset);
  }
  Result<std::unique_ptr<BlobWriter>> blob_writer(const Descriptor&) override {
    ++writers;
    struct Writer final : BlobWriter {
      std::uint64_t offset() const override { return 0; }
      Result<void> write(std::span<const std::byte>) override {
        return fail(ErrorCode::kIoError, "writing /full/ingest: No space left on device");
      }
      Result<void> commit() override { return fail(ErrorCode::kFailedPrecondition, "nothing written"); }
      void abort() override {}
    };
    return std::unique_ptr<BlobWriter>(new Writer());
  }
  Result<std::vector<std::string>> list_tags() override { return inner.list_tags(); }
  Result<void> delete_manifest(const Digest& d) override { return inner.delete_manifest(d); }
  MemoryStore inner{"full-disk"};
  std::atomic<int> writers{0};
};

TEST(Copy, LocalWriteFailuresAreNotRetriedLikeTheNetwork) {
  MemoryStore src("src");
  auto img = testing::make_image(src, {5000}, 5);
  ASSERT_TRUE(src.put_manifest(img.manifest, "v1"));
  FullDisk full;
  CountingObserver obs;
  CopyOptions o;
  o.observer = &obs;
  o.jobs = 1;
  auto r = copy_image(src, "v1", full, "v1", o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("No space left on device"), std::string::npos) << r.error().message();
  EXPECT_EQ(obs.retries.load(), 0);
  EXPECT_EQ(full.writers.load(), 1) << "ENOSPC was retried";
}

// An image wrapped in `levels` indexes, each the only child of the next.
RawManifest nested_index(Store& store, int levels) {
  auto img = testing::make_image(store, {100}, 7);
  RawManifest child = img.manifest;
  EXPECT_TRUE(store.put_manifest(child, std::nullopt));
  for (int i = 0; i < levels; ++i) {
    ImageIndex idx;
    idx.media_type = std::string(media::kOciIndex);
    Descriptor d = child.descriptor;
    if (i == 0) d.platform = *parse_platform("linux/amd64");
    idx.manifests.push_back(d);
    idx.annotations["level"] = std::to_string(i);
    child = make_raw_manifest(idx.media_type, serialize(idx));
    EXPECT_TRUE(store.put_manifest(child, std::nullopt));
  }
  return child;
}

TEST(Copy, IndexNestingIsBounded) {
  CopyOptions all;
  all.all = true;
  {
    // kMaxIndexDepth levels of indexes copy (OCI needs a handful).
    MemoryStore src("src"), dst("dst");
    auto top = nested_index(src, kMaxIndexDepth);
    ASSERT_TRUE(src.put_manifest(top, "deep"));
    auto r = copy_image(src, "deep", dst, "deep", all);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(dst.get_manifest("deep")->bytes, top.bytes);
  }
  for (int levels : {kMaxIndexDepth + 1, 5000}) {
    // One more, or thousands (which overflowed the stack): a clear error,
    // nothing written, quickly.
    MemoryStore src("src"), dst("dst");
    auto top = nested_index(src, levels);
    ASSERT_TRUE(src.put_manifest(top, "deep"));
    auto started = std::chrono::steady_clock::now();
    auto r = copy_image(src, "deep", dst, "deep", all);
    ASSERT_FALSE(r) << levels << " nested indexes were copied";
    EXPECT_NE(r.error().message().find("nested more than " + std::to_string(kMaxIndexDepth)), std::string::npos)
        << r.error().message().substr(0, 2000);
    EXPECT_LT(r.error().message().size(), 4096u);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
    EXPECT_EQ(dst.blob_count(), 0u);
  }
}

TEST(Copy, ConcurrentCopiesShareInFlightBlobs) {
  MemoryStore src("src"), dst("dst");
  // Two images sharing a large first layer.
  auto a = testing::make_image(src, {8 << 20, 100}, 20);
  oci::ImageManifest mb = std::get<ImageManifest>(*parse_manifest(a.manifest.bytes, "", "a"));
  std::string extra = testing::random_bytes(200, 99);
  auto extra_d = descriptor_for(media::kOciLayerGzip, extra);
  ASSERT_TRUE(write_blob(src, extra_d, extra));
  mb.layers[1] = extra_d;
  auto b = make_raw_manifest(mb.media_type, serialize(mb));
  ASSERT_TRUE(src.put_manifest(a.manifest, "a"));
  ASSERT_TRUE(src.put_manifest(b, "b"));
  auto before = src.fetch_count();
  CopySession session;
  std::thread t1([&] { ASSERT_TRUE(session.copy(src, "a", dst, "a", {})); });
  std::thread t2([&] { ASSERT_TRUE(session.copy(src, "b", dst, "b", {})); });
  t1.join();
  t2.join();
  // Unique blobs: shared layer, a's second layer, b's second layer, the config.
  EXPECT_EQ(src.fetch_count() - before, 4u);
}

}  // namespace
}  // namespace strata::oci
