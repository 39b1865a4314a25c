// Test images spelled as lists of tar entries: raw layers (so tests can place
// whiteouts and odd entries anywhere) and a fixture that stacks them into a
// manifest in a TestStore.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oci/compress.hpp"
#include "oci/image_fs.hpp"
#include "oci/tar_writer.hpp"
#include "support/test_store.hpp"

namespace strata::testing::layers {

// Using-declarations, not `using namespace strata::oci`: a test that says
// `using namespace strata::testing::layers` would otherwise see all of oci,
// oci::testing (the fake transport) beside strata::testing included, and in a
// unity batch with such a test `testing::` becomes ambiguous.
using oci::as_bytes;
using oci::ImageFilesystem;
using oci::ImageFsOptions;
using oci::ImageManifest;
using oci::StringSink;
using oci::TarEntry;
using oci::TarEntryType;

// A layer spelled as a list of entries, written in the order given (so tests
// can place whiteouts anywhere), with `content` for regular files.
struct E {
  std::string path;
  TarEntryType type = TarEntryType::kRegular;
  std::string content_or_target;
  std::uint32_t mode = 0644;
};

inline E dir(std::string p, std::uint32_t mode = 0755) { return {std::move(p), TarEntryType::kDirectory, "", mode}; }
inline E file(std::string p, std::string c = "") { return {std::move(p), TarEntryType::kRegular, std::move(c)}; }
inline E sym(std::string p, std::string t) { return {std::move(p), TarEntryType::kSymlink, std::move(t), 0777}; }
inline E hard(std::string p, std::string t) { return {std::move(p), TarEntryType::kHardlink, std::move(t)}; }

inline std::string raw_tar(const std::vector<E>& entries) {
  std::string out;
  for (const auto& x : entries) {
    TarEntry e;
    e.path = x.path;
    e.type = x.type;
    e.mode = x.mode;
    if (x.type == TarEntryType::kRegular) e.size = x.content_or_target.size();
    else if (x.type != TarEntryType::kDirectory) e.link_target = x.content_or_target;
    auto h = oci::encode_tar_header(e);
    EXPECT_TRUE(h) << h.error().message();
    out += *h;
    if (e.size) {
      out += x.content_or_target;
      out.append((512 - e.size % 512) % 512, '\0');
    }
  }
  return out + std::string(1024, '\0');
}

class ImageFsTest : public ::testing::Test {
 protected:
  void add_layer(const std::vector<E>& entries, oci::Compression c = oci::Compression::kGzip) {
    StringSink out;
    auto sink = oci::CompressingSink::create(c, out);
    ASSERT_TRUE((*sink)->write(as_bytes(raw_tar(entries))));
    ASSERT_TRUE((*sink)->finish());
    manifest_.layers.push_back(store_.put_blob(std::string(oci::layer_media_type(c)), out.str()));
  }
  ImageFilesystem load(ImageFsOptions opts = {}) {
    auto fs = ImageFilesystem::load(store_, manifest_, opts);
    EXPECT_TRUE(fs) << fs.error().message();
    return fs ? std::move(*fs) : ImageFilesystem();
  }
  std::vector<std::string> paths(const ImageFilesystem& fs) {
    std::vector<std::string> out;
    for (const auto& [p, n] : fs.nodes()) out.push_back(p);
    return out;
  }
  strata::testing::TestStore store_;
  ImageManifest manifest_;
};

}  // namespace strata::testing::layers
