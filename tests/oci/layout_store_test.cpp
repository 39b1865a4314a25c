#include "oci/layout_store.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include "oci/archive_store.hpp"
#include "oci/copy.hpp"
#include "oci/memory_store.hpp"
#include "support/random_image.hpp"
#include "support/temp_dir.hpp"
#include "util/fs.hpp"

namespace strata::oci {
namespace {

TEST(LayoutStore, CreatesAValidEmptyLayout) {
  testing::TempDir dir;
  auto s = LayoutStore::open(dir / "l", LayoutMode::kCreate);
  ASSERT_TRUE(s);
  EXPECT_EQ(*fs::read_file(dir / "l" / "oci-layout"), R"({"imageLayoutVersion":"1.0.0"})");
  EXPECT_TRUE(std::filesystem::is_directory(dir / "l" / "blobs" / "sha256"));
  auto idx = (*s)->entries();
  ASSERT_TRUE(idx);
  EXPECT_TRUE(idx->empty());
}

TEST(LayoutStore, RefusesNonLayoutDirectories) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "x");
  std::ofstream(dir / "x" / "precious.txt") << "do not touch";
  auto s = LayoutStore::open(dir / "x", LayoutMode::kCreate);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("non-empty directory"), std::string::npos);
  auto ro = LayoutStore::open(dir / "missing", LayoutMode::kReadOnly);
  ASSERT_FALSE(ro);
  EXPECT_TRUE(ro.error().is(ErrorCode::kNotFound));
}

TEST(LayoutStore, ResumesAnInterruptedBlobAndVerifiesTheWhole) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  std::string bytes = testing::random_bytes(5 << 20, 9);
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  {
    auto w = s->blob_writer(d);
    ASSERT_TRUE(w);
    ASSERT_TRUE((*w)->write(as_bytes(std::string_view(bytes).substr(0, 2 << 20))));
    // Dropped without commit: like a killed process.
  }
  EXPECT_FALSE(*s->has_blob(d));
  auto w = s->blob_writer(d);
  ASSERT_TRUE(w);
  EXPECT_EQ((*w)->offset(), 2u << 20);
  ASSERT_TRUE((*w)->write(as_bytes(std::string_view(bytes).substr(2 << 20))));
  ASSERT_TRUE((*w)->commit());
  EXPECT_EQ(*read_blob(*s, d, 16 << 20), bytes);
}

// Store::unnamed_blob_writer: the blob is named after its bytes on commit,
// never visible before, and neither an abandoned writer nor a commit leaves
// anything in the ingest directory; a blob already there is kept.
TEST(LayoutStore, UnnamedWriterNamesTheBlobAfterItsBytesOnCommit) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  std::string bytes = testing::random_bytes(20 << 20, 5);  // several writeback strides
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  auto ingest_files = [&] {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir / "l" / ".strata" / "ingest")) n += e.is_regular_file();
    return n;
  };
  auto write_in_pieces = [&](UnnamedBlobWriter& w, std::size_t upto) {
    for (std::size_t at = 0; at < upto; at += 3 << 20) {
      ASSERT_TRUE(w.write(as_bytes(std::string_view(bytes).substr(at, std::min<std::size_t>(3 << 20, upto - at)))));
    }
  };
  {
    auto w = s->unnamed_blob_writer();
    ASSERT_TRUE(w) << w.error().message();
    ASSERT_TRUE(*w) << "an OCI layout on this filesystem names blobs after their bytes";
    write_in_pieces(**w, bytes.size() / 2);
    // Dropped without commit: like a killed process.
  }
  EXPECT_FALSE(*s->has_blob(d));
  EXPECT_EQ(ingest_files(), 0u);

  auto w = std::move(*s->unnamed_blob_writer());
  write_in_pieces(*w, bytes.size());
  auto blob = w->commit();
  ASSERT_TRUE(blob) << blob.error().message();
  EXPECT_EQ(blob->digest, d.digest);
  EXPECT_EQ(blob->size, d.size);
  EXPECT_EQ(*read_blob(*s, d, 32 << 20), bytes);
  EXPECT_EQ(ingest_files(), 0u);
  EXPECT_FALSE(w->write(as_bytes(std::string_view("more"))));

  // The same bytes again: the blob there stays (its inode), the new file goes.
  struct stat before{};
  ASSERT_EQ(::stat(s->blob_path(d.digest).c_str(), &before), 0);
  auto again = std::move(*s->unnamed_blob_writer());
  write_in_pieces(*again, bytes.size());
  auto same = again->commit();
  ASSERT_TRUE(same) << same.error().message();
  EXPECT_EQ(same->digest, d.digest);
  struct stat after{};
  ASSERT_EQ(::stat(s->blob_path(d.digest).c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_nlink, 1u);
  EXPECT_EQ(ingest_files(), 0u);
}

// The hard-link capability (Store::blob_file, Store::link_blob) and the
// copy engine's use of it when asked.
TEST(LayoutStore, LinksABlobAnotherLayoutKeepsAsAFile) {
  testing::TempDir dir;
  auto a = std::move(*LayoutStore::open(dir / "a", LayoutMode::kCreate));
  auto b = std::move(*LayoutStore::open(dir / "b", LayoutMode::kCreate));
  std::string bytes = testing::random_bytes(70000, 4);
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  EXPECT_FALSE(a->blob_file(d));  // absent
  ASSERT_TRUE(write_blob(*a, d, bytes));
  ASSERT_TRUE(a->blob_file(d));
  auto wrong_size = d;
  wrong_size.size = 5;
  EXPECT_FALSE(a->blob_file(wrong_size));

  MemoryStore memory("m");
  ASSERT_TRUE(write_blob(memory, d, bytes));
  EXPECT_FALSE(*b->link_blob(d, memory));  // no file to link

  CopyOptions copy;
  auto plain = oci::copy_blob(*a, *b, d, copy);  // not asked: the bytes are copied
  ASSERT_TRUE(plain) << plain.error().message();
  EXPECT_EQ(*plain, BlobOutcome::kCopied);
  EXPECT_EQ(std::filesystem::hard_link_count(*a->blob_file(d)), 1u);

  auto c = std::move(*LayoutStore::open(dir / "c", LayoutMode::kCreate));
  copy.link_blobs = true;
  auto linked = oci::copy_blob(*a, *c, d, copy);
  ASSERT_TRUE(linked) << linked.error().message();
  EXPECT_EQ(*linked, BlobOutcome::kMounted);
  EXPECT_EQ(std::filesystem::hard_link_count(*a->blob_file(d)), 2u);
  EXPECT_TRUE(std::filesystem::equivalent(*a->blob_file(d), *c->blob_file(d)));
  EXPECT_EQ(*read_blob(*c, d, 1 << 20), bytes);
  auto again = oci::copy_blob(*a, *c, d, copy);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, BlobOutcome::kSkipped);
}

TEST(LayoutStore, PartialBytesThatDoNotVerifyAreDropped) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  std::string bytes = testing::random_bytes(4096, 2);
  auto d = descriptor_for(media::kOciLayer, bytes);
  {
    auto w = s->blob_writer(d);
    ASSERT_TRUE((*w)->write(as_bytes(std::string(2048, 'x'))));  // wrong bytes, interrupted
  }
  auto w = s->blob_writer(d);
  ASSERT_EQ((*w)->offset(), 2048u);
  ASSERT_TRUE((*w)->write(as_bytes(std::string_view(bytes).substr(2048))));
  EXPECT_FALSE((*w)->commit());
  // The poisoned partial is gone; a fresh attempt starts at zero and succeeds.
  auto w2 = s->blob_writer(d);
  EXPECT_EQ((*w2)->offset(), 0u);
  ASSERT_TRUE((*w2)->write(as_bytes(bytes)));
  EXPECT_TRUE((*w2)->commit());
}

TEST(LayoutStore, CorruptedBlobOnDiskIsDetectedOnRead) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  auto img = testing::make_image(*s, {100}, 4);
  ASSERT_TRUE(s->put_manifest(img.manifest, "t"));
  std::ofstream(s->blob_path(img.config.digest), std::ios::trunc) << std::string(img.config.size, ' ');
  auto r = read_blob(*s, img.config);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("digest mismatch"), std::string::npos);
}

TEST(LayoutStore, WritesNoIndexJsonItCannotReadBack) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  auto img = testing::make_image(*s, {10}, 3);
  ASSERT_TRUE(s->put_manifest(img.manifest, "first"));
  // A store collecting overlay-<key> tags: index.json just under 4 MiB
  // (the manifest limit, which index.json reads used to share).
  ImageIndex idx;
  idx.media_type = std::string(media::kOciIndex);
  idx.manifests.push_back(*s->resolve("first"));
  std::size_t bytes = serialize(idx).size();
  for (std::size_t i = 0; bytes < kMaxManifestBytes - 512; ++i) {
    Descriptor d = img.manifest.descriptor;
    char tag[80];
    std::snprintf(tag, sizeof tag, "overlay-%064zx", i);
    d.annotations[std::string(kRefNameAnnotation)] = tag;
    bytes += descriptor_to_json(d).dump().size() + 1;
    idx.manifests.push_back(std::move(d));
  }
  ASSERT_TRUE(fs::write_file_atomic(dir / "l" / "index.json", serialize(idx)));
  ASSERT_TRUE(s->resolve("first"));
  // Two more tags cross 4 MiB: what the store writes, it reads back.
  ASSERT_TRUE(s->put_manifest(img.manifest, "overlay-one-more"));
  ASSERT_TRUE(s->put_manifest(img.manifest, "overlay-two-more"));
  EXPECT_GT(std::filesystem::file_size(dir / "l" / "index.json"), kMaxManifestBytes);
  auto back = s->resolve("overlay-two-more");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->digest, img.manifest.descriptor.digest);
  auto tags = s->list_tags();
  ASSERT_TRUE(tags) << tags.error().message();
  EXPECT_EQ(tags->size(), idx.manifests.size() + 2);
  // At the layout limit the writer refuses, and the layout stays readable.
  auto reread = fs::read_file(dir / "l" / "index.json", kMaxLayoutIndexBytes);
  ASSERT_TRUE(reread);
  auto full = std::get<ImageIndex>(*parse_manifest(*reread, media::kOciIndex, "index.json", kMaxLayoutIndexBytes));
  full.annotations["pad"] = std::string(kMaxLayoutIndexBytes - reread->size() - 200, 'p');
  ASSERT_TRUE(fs::write_file_atomic(dir / "l" / "index.json", serialize(full)));
  ASSERT_LE(std::filesystem::file_size(dir / "l" / "index.json"), kMaxLayoutIndexBytes);
  auto refused = s->put_manifest(img.manifest, "overlay-over-the-limit-" + std::string(200, 'x'));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("index.json"), std::string::npos) << refused.error().message();
  EXPECT_NE(refused.error().message().find("limit"), std::string::npos) << refused.error().message();
  EXPECT_TRUE(s->resolve("overlay-two-more"));
}

TEST(LayoutStore, UntaggedRefNeedsASingleImage) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  auto a = testing::make_image(*s, {1}, 1);
  ASSERT_TRUE(s->put_manifest(a.manifest, "a"));
  EXPECT_EQ(s->resolve("")->digest, a.manifest.descriptor.digest);
  auto b = testing::make_image(*s, {1}, 2);
  ASSERT_TRUE(s->put_manifest(b.manifest, "b"));
  auto r = s->resolve("");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("name one with"), std::string::npos);
}

// Two runs that put the same images in different orders (parallel copies
// finish in any order) write the same index.json, byte for byte: tags in
// name order, then untagged entries by digest.
TEST(LayoutStore, IndexJsonOrderDoesNotDependOnCompletionOrder) {
  testing::TempDir dir;
  MemoryStore src;
  std::vector<testing::TestImage> made;
  for (unsigned i = 0; i < 5; ++i) made.push_back(testing::make_image(src, {100 + i}, 40 + i));
  // (tag, image): two tags on one image, two untagged images.
  const std::vector<std::pair<std::string, std::size_t>> puts{
      {"zeta", 0}, {"alpha", 1}, {"", 2}, {"mid", 3}, {"", 4}, {"alpha-2", 1}};
  auto fill = [&](const std::filesystem::path& at, const std::vector<std::size_t>& order) {
    auto s = std::move(*LayoutStore::open(at, LayoutMode::kCreate));
    for (std::size_t k : order) {
      const auto& [tag, i] = puts[k];
      for (std::size_t l = 0; l < made[i].layers.size(); ++l)
        ASSERT_TRUE(write_blob(*s, made[i].layers[l], made[i].layer_bytes[l]));
      ASSERT_TRUE(copy_blob(src, *s, made[i].config, {}));
      ASSERT_TRUE(s->put_manifest(made[i].manifest, tag.empty() ? std::nullopt : std::optional<std::string_view>(tag)));
    }
  };
  fill(dir / "a", {0, 1, 2, 3, 4, 5});
  fill(dir / "b", {5, 4, 3, 2, 1, 0});
  fill(dir / "c", {2, 0, 4, 5, 1, 3});
  auto a = *fs::read_file(dir / "a" / "index.json", 1 << 20);
  EXPECT_EQ(a, *fs::read_file(dir / "b" / "index.json", 1 << 20));
  EXPECT_EQ(a, *fs::read_file(dir / "c" / "index.json", 1 << 20));
  auto s = std::move(*LayoutStore::open(dir / "a", LayoutMode::kReadOnly));
  auto entries = *s->entries();
  ASSERT_EQ(entries.size(), 6u);
  std::vector<std::string> names;
  for (const auto& e : entries) names.push_back(e.ref_name());
  EXPECT_EQ(names, (std::vector<std::string>{"alpha", "alpha-2", "mid", "zeta", "", ""}));
  EXPECT_LT(entries[4].digest.str(), entries[5].digest.str());
}

TEST(ArchiveStore, OciAndDockerArchivesRoundTripBitExactly) {
  testing::TempDir dir;
  auto src = std::move(*LayoutStore::open(dir / "src", LayoutMode::kCreate));
  auto img = testing::make_image(*src, {1000, 2000}, 5);
  ASSERT_TRUE(src->put_manifest(img.manifest, "v1"));
  for (auto fmt : {ArchiveFormat::kOci, ArchiveFormat::kDocker}) {
    auto file = dir / (fmt == ArchiveFormat::kOci ? "o.tar" : "d.tar");
    std::string tag = fmt == ArchiveFormat::kOci ? "v1" : "docker.io/team/app:v1";
    {
      auto w = std::move(*ArchiveStore::open(file, fmt, ArchiveMode::kWrite));
      ASSERT_TRUE(copy_image(*src, "v1", *w, tag, {}));
      ASSERT_TRUE(w->close());
    }
    auto r = ArchiveStore::open(file, fmt, ArchiveMode::kRead);
    ASSERT_TRUE(r) << r.error().message();
    auto m = (*r)->get_manifest(fmt == ArchiveFormat::kOci ? "v1" : "team/app:v1");
    ASSERT_TRUE(m) << m.error().message();
    EXPECT_EQ(m->bytes, img.manifest.bytes);
    EXPECT_EQ(*read_blob(**r, img.layers[1], 1 << 20), img.layer_bytes[1]);
  }
}

TEST(ArchiveStore, RefusesEscapingMembers) {
  testing::TempDir dir;
  // A tar whose member climbs out of the extraction directory.
  auto evil = dir / "evil.tar";
  std::filesystem::create_directories(dir / "w");
  std::ofstream(dir / "w" / "x") << "x";
  std::string cmd = "tar -C " + (dir / "w").string() + " -cf " + evil.string() +
                    " --transform='s|^x|../../escape|' x 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  auto r = ArchiveStore::open(evil, ArchiveFormat::kOci, ArchiveMode::kRead);
  ASSERT_FALSE(r);
  // Refused by TarReader, which extraction reads through, naming the entry.
  EXPECT_NE(r.error().message().find("\"../../escape\": '..' component (path traversal"), std::string::npos)
      << r.error().message();
  EXPECT_FALSE(std::filesystem::exists(dir.path().parent_path() / "escape"));
}

TEST(ArchiveStore, AFailedWriteLeavesNoArchive) {
  testing::TempDir dir;
  auto file = dir / "never.tar";
  {
    auto w = std::move(*ArchiveStore::open(file, ArchiveFormat::kOci, ArchiveMode::kWrite));
    auto img = testing::make_image(*w, {10}, 1);
    ASSERT_TRUE(w->put_manifest(img.manifest, "x"));
    // No close(): as if the copy failed half way.
  }
  EXPECT_FALSE(std::filesystem::exists(file));
  for (auto& e : std::filesystem::directory_iterator(dir.path())) ADD_FAILURE() << "left behind: " << e.path();
}

}  // namespace
}  // namespace strata::oci
