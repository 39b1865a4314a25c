// A base's dpkg state, cached per image manifest digest: a second resolve
// of the same base reads no layer, an entry answers only for the digest it
// was made for, and a damaged one is ignored and rewritten.
#include "layer/overlay/base_state.hpp"

#include <gtest/gtest.h>

#include "support/image_layers.hpp"
#include "support/temp_dir.hpp"

namespace strata::layer {
namespace {

using namespace strata::testing::layers;

constexpr const char* kStatus =
    "Package: libc6\nStatus: install ok installed\nVersion: 2.36-9\nArchitecture: amd64\nMulti-Arch: same\n"
    "Depends: libgcc-s1\n\n"
    "Package: old\nStatus: deinstall ok config-files\nVersion: 1\nArchitecture: amd64\n\n"
    "Package: dash\nStatus: install ok installed\nVersion: 0.5.12-2\nArchitecture: amd64\nEssential: yes\n"
    "Provides: sh\n";

class BaseStateTest : public ImageFsTest {
 protected:
  void SetUp() override {
    add_layer({dir("var"), dir("var/lib"), dir("var/lib/dpkg"), file("var/lib/dpkg/status", kStatus),
               file("var/lib/dpkg/arch", "amd64\ni386\n"), dir("etc"), file("etc/motd", "hi\n")});
    std::string config = R"({"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}})";
    manifest_.media_type = std::string(oci::media::kOciManifest);
    manifest_.config = store_.put_blob(std::string(oci::media::kOciConfig), config);
    raw_ = oci::make_raw_manifest(manifest_.media_type, serialize(manifest_));
    ASSERT_TRUE(store_.put_manifest(raw_, "base"));
    layerless_.put_blob(std::string(oci::media::kOciConfig), config);
    ASSERT_TRUE(layerless_.put_manifest(raw_, "base"));
  }
  Result<BaseState> load_from(oci::Store& s) {
    return load_base_state(s, "base", oci::Platform{"linux", "amd64", "", ""}, &cache_);
  }
  static std::vector<std::string> ids(const BaseDpkgState& s) {
    std::vector<std::string> out;
    for (const auto& p : s.installed) out.push_back(p.id());
    return out;
  }

  testing::TempDir dir_;
  BaseStateCache cache_{dir_.path()};
  testing::TestStore layerless_;
  oci::RawManifest raw_;
};

TEST_F(BaseStateTest, ReadOncePerManifestDigest) {
  auto first = load_from(store_);
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_FALSE(first->cached);
  EXPECT_EQ(first->descriptor.digest, raw_.descriptor.digest);
  EXPECT_EQ(ids(first->state), (std::vector<std::string>{"libc6:amd64=2.36-9", "dash:amd64=0.5.12-2"}));
  EXPECT_EQ(first->state.dpkg_arch, "amd64\ni386\n");
  // Without the layer only the cache can answer, with the same state.
  auto again = load_from(layerless_);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_TRUE(again->cached);
  EXPECT_EQ(ids(again->state), ids(first->state));
  EXPECT_EQ(again->state.dpkg_arch, first->state.dpkg_arch);
  EXPECT_EQ(again->state.installed[0].depends, first->state.installed[0].depends);
  EXPECT_EQ(again->state.installed[1].provides, first->state.installed[1].provides);
  EXPECT_TRUE(again->state.installed[1].essential);
}

TEST_F(BaseStateTest, AnEntryAnswersOnlyForItsDigestAndDamageIsIgnored) {
  ASSERT_TRUE(load_from(store_));
  auto entry = cache_.entry_path(raw_.descriptor.digest);
  std::string bytes = testing::read_file(entry);
  // The same bytes under another digest's name are not that image's state.
  auto other = *oci::Digest::parse("sha256:" + std::string(64, 'a'));
  testing::write_file(cache_.entry_path(other), bytes);
  EXPECT_FALSE(cache_.find(other));
  EXPECT_TRUE(cache_.find(raw_.descriptor.digest));
  for (std::string damaged : {bytes.substr(0, bytes.size() - 1), bytes + "x", std::string("STRATADS")}) {
    testing::write_file(entry, damaged);
    EXPECT_FALSE(cache_.find(raw_.descriptor.digest));
    EXPECT_FALSE(load_from(layerless_));  // no cache, no layers
    auto reread = load_from(store_);      // the layers again; the entry rewritten
    ASSERT_TRUE(reread) << reread.error().message();
    EXPECT_FALSE(reread->cached);
    EXPECT_TRUE(load_from(layerless_));
  }
}

}  // namespace
}  // namespace strata::layer
