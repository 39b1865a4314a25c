#include "layer/overlay/base_image.hpp"

#include <gtest/gtest.h>

#include "support/image_layers.hpp"
#include "support/temp_dir.hpp"

namespace strata::layer {
namespace {

using namespace strata::testing::layers;
using oci::ImageFsOptions;

// load_base_image's cache of the filesystem: used when intact and holding
// everything the caller asks for; otherwise the layers are read again.
class BaseCacheTest : public ImageFsTest {
 protected:
  void SetUp() override {
    add_layer({dir("etc"), file("etc/os-release", "ID=debian\n"), dir("lib"), file("lib/libx.so.1", "not ELF"),
               file("etc/motd", "hi\n")});
    std::string config = R"({"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}})";
    manifest_.media_type = std::string(oci::media::kOciManifest);
    manifest_.config = store_.put_blob(std::string(oci::media::kOciConfig), config);
    raw_ = oci::make_raw_manifest(manifest_.media_type, serialize(manifest_));
    ASSERT_TRUE(store_.put_manifest(raw_, "base"));
    // The same image without its layer: only a cache can answer for it.
    layerless_.put_blob(std::string(oci::media::kOciConfig), config);
    ASSERT_TRUE(layerless_.put_manifest(raw_, "base"));
  }
  Result<BaseImage> load_from(oci::Store& s, ImageFsOptions needs = {}) {
    return load_base_image(s, "base", oci::Platform{"linux", "amd64", "", ""}, std::move(needs), &cache_);
  }
  ImageFsOptions needs() {
    ImageFsOptions o;
    o.summarize_paths = [](std::string_view p) { return p.starts_with("lib/"); };
    o.summarize = [](std::string_view, std::string_view c) { return std::to_string(c.size()); };
    return o;
  }
  std::filesystem::path cache_file() { return cache_.entry_path(raw_.descriptor.digest); }

  testing::TempDir dir_;
  BaseFsCache cache_{dir_.path()};
  testing::TestStore layerless_;
  oci::RawManifest raw_;
};

TEST_F(BaseCacheTest, IntactCacheAnswersWithoutTheLayers) {
  auto first = load_from(store_, needs());
  ASSERT_TRUE(first) << first.error().message();
  ASSERT_TRUE(std::filesystem::exists(cache_file()));
  auto cached = load_from(layerless_, needs());
  ASSERT_TRUE(cached) << cached.error().message();
  EXPECT_EQ(paths(cached->fs), paths(first->fs));
  EXPECT_EQ(*cached->fs.read_small_file("etc/os-release"), "ID=debian\n");
  EXPECT_EQ(*cached->fs.summary("lib/libx.so.1"), "7");
}

TEST_F(BaseCacheTest, DamagedOrInsufficientCacheIsNotTrusted) {
  ASSERT_TRUE(load_from(store_, needs()));
  // Asking for more than the cache holds (a file it did not capture).
  ImageFsOptions more = needs();
  more.capture = oci::capture_paths({"etc/motd"});
  EXPECT_FALSE(load_from(layerless_, more));
  // Damage: truncated, then the node count (after magic, format and layer
  // count) raised past what the bytes hold.
  std::string bytes = testing::read_file(cache_file());
  for (std::string damaged : {bytes.substr(0, bytes.size() - 3), bytes.substr(0, 20) + "\xff" + bytes.substr(21)}) {
    testing::write_file(cache_file(), damaged);
    EXPECT_FALSE(load_from(layerless_, needs()));
    auto again = load_from(store_, needs());  // reads the layers, rewrites the cache
    ASSERT_TRUE(again) << again.error().message();
    EXPECT_EQ(*again->fs.summary("lib/libx.so.1"), "7");
    EXPECT_TRUE(load_from(layerless_, needs()));
  }
}

}  // namespace
}  // namespace strata::layer
