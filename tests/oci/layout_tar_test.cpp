// A layout as a deterministic tar: the same files give the same bytes
// whatever order they were written in, their times or modes, and the
// layout's own bookkeeping stays out; strata's archive reader reads it back.
// An oci-archive is written by the same writer: the archive of some images
// is the tar of a layout holding them, also when the archive was added to.
#include "oci/layout_tar.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "oci/archive_store.hpp"
#include "oci/layout_store.hpp"
#include "oci/manifest.hpp"
#include "support/random_image.hpp"
#include "support/run.hpp"
#include "support/temp_dir.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"

namespace strata::oci {
namespace {

namespace stdfs = std::filesystem;

TEST(LayoutTar, TheSameLayoutGivesTheSameBytes) {
  testing::TempDir dir;
  auto fill = [&](const stdfs::path& at, bool reverse) {
    auto s = std::move(*LayoutStore::open(at, LayoutMode::kCreate));
    std::vector<unsigned> seeds{1, 2, 3};
    if (reverse) std::reverse(seeds.begin(), seeds.end());
    for (unsigned seed : seeds) {
      auto img = testing::make_image(*s, {1000 + seed, 10}, seed);
      ASSERT_TRUE(s->put_manifest(img.manifest, "tag-" + std::to_string(seed)));
    }
  };
  fill(dir / "a", false);
  fill(dir / "b", true);
  // Times, modes and leftovers that must not show.
  stdfs::last_write_time(dir / "b" / "index.json", stdfs::file_time_type::clock::now() - std::chrono::hours(48));
  stdfs::permissions(dir / "b" / "oci-layout", stdfs::perms::owner_read);
  std::ofstream(dir / "b" / ".strata" / "ingest" / "sha256-left") << "partial";
  auto ha = write_layout_tar(dir / "a", dir / "a.tar");
  auto hb = write_layout_tar(dir / "b", dir / "b.tar");
  ASSERT_TRUE(ha) << ha.error().message();
  ASSERT_TRUE(hb) << hb.error().message();
  EXPECT_EQ(*ha, *hb);
  EXPECT_EQ(*ha, sha256_hex(testing::slurp(dir / "a.tar")));
  EXPECT_EQ(testing::slurp(dir / "a.tar"), testing::slurp(dir / "b.tar"));
  // What GNU tar lists, in this order.
  auto listed = testing::run({"tar", "-tvf", (dir / "a.tar").string()});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find("blobs/sha256/"), std::string::npos);
  EXPECT_EQ(listed.out.find(".strata"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("1970-01-01"), std::string::npos) << listed.out;
  EXPECT_LT(listed.out.find("index.json"), listed.out.find("oci-layout"));
  // An oci-archive: strata reads every image back.
  auto archive = ArchiveStore::open(dir / "a.tar", ArchiveFormat::kOci, ArchiveMode::kRead);
  ASSERT_TRUE(archive) << archive.error().message();
  auto tags = (*archive)->list_tags();
  ASSERT_TRUE(tags);
  EXPECT_EQ(*tags, (std::vector<std::string>{"tag-1", "tag-2", "tag-3"}));
  // Written atomically: a failure leaves no file under the name.
  auto missing = write_layout_tar(dir / "nothing", dir / "c.tar");
  EXPECT_FALSE(missing);
  EXPECT_FALSE(stdfs::exists(dir / "c.tar"));
}

// The stream a runtime's load takes (write_layout_tar_to) is the same bytes
// as the file; a sink that fails ends it before the trailer, and a blob from
// elsewhere that sends other than its size is an error naming it.
TEST(LayoutTar, TheStreamIsTheFilesBytesAndStopsWhenTheSinkFails) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "a", LayoutMode::kCreate));
  auto img = testing::make_image(*s, {4000, 70000}, 7);
  ASSERT_TRUE(s->put_manifest(img.manifest, "x"));
  ASSERT_TRUE(write_layout_tar(dir / "a", dir / "a.tar"));
  StringSink all;
  auto streamed = write_layout_tar_to(dir / "a", all, "stream");
  ASSERT_TRUE(streamed) << streamed.error().message();
  EXPECT_EQ(all.str(), testing::slurp(dir / "a.tar"));

  StringSink small(10000);
  auto cut = write_layout_tar_to(dir / "a", small, "stream");
  ASSERT_FALSE(cut);
  EXPECT_TRUE(small.overflowed());
  EXPECT_LE(small.str().size(), 10000u);

  LayoutTarOptions options;
  const std::string hex(64, 'e');
  options.extra_blobs.emplace("blobs/sha256/" + hex, LayoutTarBlob{10, [](ByteSink& sink) {
                                return sink.write(as_bytes("short"));
                              }});
  StringSink sink;
  auto shrank = write_layout_tar_to(dir / "a", sink, "the stream", options);
  ASSERT_FALSE(shrank);
  EXPECT_EQ(shrank.error().message(), "the stream: blobs/sha256/" + hex + " shrank while it was archived");
}

// What is not a blob stays out: a killed writer's temporary file beside the
// blobs; and a missing blobs/ is an empty one.
TEST(LayoutTar, OnlyBlobsGoIn) {
  testing::TempDir dir;
  {
    auto s = std::move(*LayoutStore::open(dir / "a", LayoutMode::kCreate));
    testing::push_image(*s, "v1", {100}, 1);
  }
  ASSERT_TRUE(write_layout_tar(dir / "a", dir / "clean.tar"));
  std::ofstream(dir / "a" / "blobs" / "sha256" / (std::string(64, 'a') + ".tmp.1.2.3")) << "partial";
  std::ofstream(dir / "a" / "blobs" / "sha256" / "notes") << "x";
  ASSERT_TRUE(write_layout_tar(dir / "a", dir / "litter.tar"));
  EXPECT_EQ(testing::slurp(dir / "clean.tar"), testing::slurp(dir / "litter.tar"));

  stdfs::create_directories(dir / "empty");
  std::ofstream(dir / "empty" / "oci-layout") << R"({"imageLayoutVersion":"1.0.0"})";
  std::ofstream(dir / "empty" / "index.json") << R"({"schemaVersion":2,"manifests":[]})";
  ASSERT_TRUE(write_layout_tar(dir / "empty", dir / "empty.tar"));
  auto listed = testing::run({"tar", "-tf", (dir / "empty.tar").string()});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_EQ(listed.out, "blobs/\nindex.json\noci-layout\n");
}

// One writer: an oci-archive of some images is, byte for byte, the tar of a
// layout holding the same images (what `bundle create --out X.tar` writes);
// adding to an archive (its large blobs copied from the old file, not
// staged) gives the tar of the layout holding everything.
TEST(LayoutTar, AnArchiveIsTheTarOfItsLayout) {
  testing::TempDir dir;
  // Layer sizes past kMaxManifestBytes: such blobs of an existing archive are streamed from its file.
  const std::size_t big = kMaxManifestBytes + 1000;
  auto layout = std::move(*LayoutStore::open(dir / "layout", LayoutMode::kCreate));
  testing::push_image(*layout, "one", {big, 100}, 1);
  testing::push_image(*layout, "two", {200}, 2);
  ASSERT_TRUE(write_layout_tar(dir / "layout", dir / "layout.tar"));
  {
    auto archive = ArchiveStore::open(dir / "archive.tar", ArchiveFormat::kOci, ArchiveMode::kWrite);
    ASSERT_TRUE(archive) << archive.error().message();
    testing::push_image(**archive, "two", {200}, 2);
    testing::push_image(**archive, "one", {big, 100}, 1);
    auto closed = (*archive)->close();
    ASSERT_TRUE(closed) << closed.error().message();
  }
  EXPECT_TRUE(testing::slurp(dir / "archive.tar") == testing::slurp(dir / "layout.tar"));

  testing::push_image(*layout, "three", {big + 1}, 3);
  ASSERT_TRUE(write_layout_tar(dir / "layout", dir / "layout3.tar"));
  {
    auto archive = ArchiveStore::open(dir / "archive.tar", ArchiveFormat::kOci, ArchiveMode::kWrite);
    ASSERT_TRUE(archive) << archive.error().message();
    testing::push_image(**archive, "three", {big + 1}, 3);
    auto closed = (*archive)->close();
    ASSERT_TRUE(closed) << closed.error().message();
  }
  EXPECT_TRUE(testing::slurp(dir / "archive.tar") == testing::slurp(dir / "layout3.tar"));
  // And strata reads it back whole.
  auto back = ArchiveStore::open(dir / "archive.tar", ArchiveFormat::kOci, ArchiveMode::kRead);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(*(*back)->list_tags(), (std::vector<std::string>{"one", "three", "two"}));
}

}  // namespace
}  // namespace strata::oci
