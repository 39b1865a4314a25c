// plan_layer: every path once, with what dpkg would leave unpacking the
// packages in layer order; fragment_without: a fragment without some paths,
// hardlink sets re-rooted, cached beside it.
#include "layer/overlay/layer_plan.hpp"

#include <gtest/gtest.h>

#include "oci/crc32.hpp"
#include "oci/tar_writer.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/unique_paths.hpp"

namespace strata::layer {
namespace {

using oci::TarEntryType;

oci::TarEntry dir(std::string path, std::uint32_t mode = 0755, std::uint64_t uid = 0, std::int64_t mtime = 100) {
  oci::TarEntry e;
  e.path = std::move(path);
  e.type = TarEntryType::kDirectory;
  e.mode = mode;
  e.uid = uid;
  e.mtime = mtime;
  return e;
}

FragmentInfo package(std::string name, std::vector<oci::TarEntry> dirs, std::vector<FragmentEntry> files) {
  FragmentInfo f;
  f.package = std::move(name);
  f.version = "1";
  for (const auto& d : dirs) f.entries.push_back({d.path, TarEntryType::kDirectory, "", ""});
  for (auto& e : files) f.entries.push_back(std::move(e));
  f.directories = std::move(dirs);
  return f;
}

FragmentEntry file(std::string path) { return {std::move(path), TarEntryType::kRegular, "", ""}; }
FragmentEntry symlink(std::string path, std::string target) {
  return {std::move(path), TarEntryType::kSymlink, std::move(target), ""};
}

std::vector<std::string> paths(const std::vector<oci::TarEntry>& v) {
  std::vector<std::string> out;
  for (const auto& e : v) out.push_back(e.path);
  return out;
}

TEST(LayerPlan, SharedDirectoriesOnceWithTheFirstPackagesMetadataAndReplacedFilesOnce) {
  auto a = package("a", {dir("usr", 0755, 0, 10), dir("usr/share", 0755), dir("usr/share/x", 0700, 5, 11)},
                   {file("usr/share/x/f"), file("usr/share/x/only-a")});
  auto b = package("b", {dir("usr", 0775, 1, 20), dir("usr/share", 0755), dir("usr/share/x", 0755, 0, 21)},
                   {file("usr/share/x/f")});
  EffectFile status = effect_file("var/lib/dpkg/status", "x", 0644, 1);
  EffectFile tmp;
  tmp.entry = dir("usr/share/x", 01777, 0, 1);  // a script's directory overrides the packages'
  auto plan = plan_layer({&a, &b}, {status, tmp});
  ASSERT_TRUE(plan) << plan.error().message();
  EXPECT_EQ(paths(plan->directories), (std::vector<std::string>{"usr", "usr/share", "usr/share/x"}));
  EXPECT_EQ(plan->directories[0].mode, 0755u) << "dpkg leaves an existing directory alone: the first package's";
  EXPECT_EQ(plan->directories[0].mtime, 10);
  EXPECT_EQ(plan->directories[2].mode, 01777u);
  ASSERT_EQ(plan->drop.size(), 2u);
  EXPECT_EQ(plan->drop[0], (std::set<std::string>{"usr/share/x/f"})) << "b, later, replaces it";
  EXPECT_TRUE(plan->drop[1].empty());
  ASSERT_EQ(plan->effect_files.size(), 1u);
  EXPECT_EQ(plan->effect_files[0].entry.path, "var/lib/dpkg/status");
}

TEST(LayerPlan, AnEffectsFileDropsThePackagesAndASymlinkOverADirectoryIsLeftOut) {
  auto a = package("a", {dir("etc"), dir("usr/lib/x")}, {file("etc/nsswitch.conf")});
  auto b = package("b", {}, {symlink("usr/lib/x", "y")});
  auto plan = plan_layer({&a, &b}, {effect_file("etc/nsswitch.conf", "files", 0644, 1)});
  ASSERT_TRUE(plan) << plan.error().message();
  EXPECT_EQ(plan->drop[0], (std::set<std::string>{"etc/nsswitch.conf"}));
  EXPECT_EQ(plan->drop[1], (std::set<std::string>{"usr/lib/x"}));
  ASSERT_EQ(plan->notes.size(), 1u);
  EXPECT_NE(plan->notes[0].find("the directory of a 1 stays"), std::string::npos) << plan->notes[0];
}

TEST(LayerPlan, ADirectoryAgainstAFileIsRefusedAsDpkgWould) {
  auto a = package("a", {dir("opt/x")}, {});
  auto b = package("b", {}, {file("opt/x")});
  auto plan = plan_layer({&a, &b}, {});
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message().find("/opt/x is a directory in a 1 and a regular file in b 1"), std::string::npos)
      << plan.error().message();
  auto reversed = plan_layer({&b, &a}, {});
  ASSERT_FALSE(reversed);
  EXPECT_NE(reversed.error().message().find("/opt/x is a regular file in b 1 and a directory in a 1"),
            std::string::npos)
      << reversed.error().message();
  EffectFile d;
  d.entry = dir("opt/x");
  EXPECT_FALSE(plan_layer({&b}, {d}));
  EXPECT_FALSE(plan_layer({&a}, {effect_file("opt/x", "", 0644, 1)}));
}

// A fragment on disk: `entries` written in order, the info's sizes and CRC-32s set.
Fragment fragment_on_disk(const testing::TempDir& d, const std::vector<std::pair<oci::TarEntry, std::string>>& entries) {
  oci::StringSink out;
  oci::TarWriter w(out);
  Fragment f;
  f.info.package = "p";
  for (const auto& [e, content] : entries) {
    EXPECT_TRUE(e.type == TarEntryType::kRegular ? w.add_file(e, content) : w.add(e));
    f.info.entries.push_back({e.path, e.type, e.link_target, ""});
  }
  EXPECT_TRUE(w.finish(oci::TarWriter::Trailer::kOmit));
  std::filesystem::create_directories(d / "frag");
  f.tar = d / "frag/data.tar";
  f.compressed = d / "frag/data.tar.gz";
  testing::write_file(f.tar, out.str());
  testing::write_file(f.compressed, "unused");
  f.info.tar_size = out.str().size();
  return f;
}

TEST(FragmentWithout, TheFirstKeptMemberOfAHardlinkSetCarriesTheContentAndThePieceIsCached) {
  testing::TempDir d;
  auto reg = [](std::string p, std::size_t size) {
    oci::TarEntry e;
    e.path = std::move(p);
    e.mode = 0755;
    e.size = size;
    e.mtime = 7;
    return e;
  };
  auto link = [](std::string p, std::string t) {
    oci::TarEntry e;
    e.path = std::move(p);
    e.type = TarEntryType::kHardlink;
    e.link_target = std::move(t);
    e.mode = 0755;
    e.mtime = 7;
    return e;
  };
  Fragment f = fragment_on_disk(d, {{reg("usr/bin/a", 5), "hello"},
                                    {link("usr/bin/b", "usr/bin/a"), ""},
                                    {link("usr/bin/c", "usr/bin/a"), ""},
                                    {reg("usr/bin/d", 1), "d"}});
  auto piece = fragment_without(f, {"usr/bin/a", "usr/bin/d"}, oci::Compression::kGzip);
  ASSERT_TRUE(piece) << piece.error().message();
  EXPECT_TRUE(piece->converted);
  EXPECT_EQ(piece->tar.parent_path().parent_path(), d / "frag");
  std::string listing = testing::shell("tar -tvf " + piece->tar.string() + " 2>&1").out;
  EXPECT_NE(listing.find("usr/bin/b"), std::string::npos) << listing;
  EXPECT_NE(listing.find("usr/bin/c link to usr/bin/b"), std::string::npos) << listing;
  EXPECT_EQ(listing.find("usr/bin/a"), std::string::npos) << listing;
  EXPECT_EQ(listing.find("usr/bin/d"), std::string::npos) << listing;
  EXPECT_EQ(testing::shell("zcat " + piece->compressed.string() + " | cmp - " + piece->tar.string()).status, 0);
  EXPECT_EQ(testing::shell("tar -xOf " + piece->tar.string() + " usr/bin/b").out, "hello");
  EXPECT_EQ(piece->info.tar_crc32, oci::crc32_update(0, testing::read_file(piece->tar)));

  auto again = fragment_without(f, {"usr/bin/d", "usr/bin/a"}, oci::Compression::kGzip);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_FALSE(again->converted) << "taken from the cache";
  EXPECT_EQ(again->tar, piece->tar);
  EXPECT_EQ(again->info.compressed_size, piece->info.compressed_size);

  auto nothing_left = fragment_without(f, {"usr/bin/a", "usr/bin/b", "usr/bin/c", "usr/bin/d"}, oci::Compression::kGzip);
  ASSERT_TRUE(nothing_left) << nothing_left.error().message();
  EXPECT_EQ(nothing_left->info.tar_size, 0u);
  EXPECT_EQ(nothing_left->info.compressed_size, 0u) << "an empty piece is written as nothing";
}

}  // namespace
}  // namespace strata::layer
