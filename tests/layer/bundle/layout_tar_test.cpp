// A layout as a deterministic tar: the same files give the same bytes
// whatever order they were written in, their times or modes, and the
// layout's own bookkeeping stays out; strata's archive reader reads it back.
#include "layer/bundle/layout_tar.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "oci/archive_store.hpp"
#include "oci/layout_store.hpp"
#include "support/random_image.hpp"
#include "support/run.hpp"
#include "support/temp_dir.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"

namespace strata::layer {
namespace {

namespace stdfs = std::filesystem;

TEST(LayoutTar, TheSameLayoutGivesTheSameBytes) {
  testing::TempDir dir;
  auto fill = [&](const stdfs::path& at, bool reverse) {
    auto s = std::move(*oci::LayoutStore::open(at, oci::LayoutMode::kCreate));
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
  auto archive = oci::ArchiveStore::open(dir / "a.tar", oci::ArchiveFormat::kOci, oci::ArchiveMode::kRead);
  ASSERT_TRUE(archive) << archive.error().message();
  auto tags = (*archive)->list_tags();
  ASSERT_TRUE(tags);
  EXPECT_EQ(*tags, (std::vector<std::string>{"tag-1", "tag-2", "tag-3"}));
  // Written atomically: a failure leaves no file under the name.
  auto missing = write_layout_tar(dir / "nothing", dir / "c.tar");
  EXPECT_FALSE(missing);
  EXPECT_FALSE(stdfs::exists(dir / "c.tar"));
}

}  // namespace
}  // namespace strata::layer
