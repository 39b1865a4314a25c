#include "oci/layout_store.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <future>
#include <optional>
#include <thread>

#include "oci/archive_store.hpp"
#include "oci/copy.hpp"
#include "oci/memory_store.hpp"
#include "support/fault_env.hpp"
#include "support/fifo.hpp"
#include "support/random_image.hpp"
#include "support/proc_locks.hpp"
#include "support/temp_dir.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"

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

// The ingest protocol (hostile round 2, defect 1): a writer that waited for
// the ingest lock while another committed the blob must not write into the
// committed file. Before, the waiter's descriptor was the committed blob
// itself, and its restart() truncated it to 0 bytes under a success.
TEST(LayoutStore, AWriterThatWaitedNeverWritesIntoTheCommittedBlob) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  std::string bytes = testing::random_bytes(8 << 20, 11);
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  auto first = s->blob_writer(d);
  ASSERT_TRUE(first);
  std::unique_ptr<BlobWriter> second;
  std::thread t([&] {
    auto w = s->blob_writer(d);
    if (w) second = std::move(*w);
  });
  // The second writer is blocked on the first's lock (this process's own:
  // no listener hears of it, so /proc/locks says when).
  EXPECT_TRUE(testing::wait_for_lock_waiter(dir / "l/.strata/ingest" / ("sha256-" + std::string(d.digest.hex()))));
  ASSERT_TRUE((*first)->write(as_bytes(bytes)));
  ASSERT_TRUE((*first)->commit());
  first->reset();
  t.join();
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->present());
  // What a copy whose server ignored Range does, then a half write: none of
  // it may reach the committed blob.
  ASSERT_TRUE(second->restart());
  ASSERT_TRUE(second->write(as_bytes(std::string_view(bytes).substr(0, 1 << 20))));
  second->abort();
  EXPECT_EQ(*read_blob(*s, d, 16 << 20), bytes);
  EXPECT_FALSE(std::filesystem::exists(dir / "l/.strata/ingest" / ("sha256-" + std::string(d.digest.hex()))));
}

// Many writers of one blob, many times: each one succeeds (or finds it
// present) and the committed blob is always the blob.
TEST(LayoutStore, ManyConcurrentWritersOfOneBlobAllSucceedAndNeverCorruptIt) {
  testing::TempDir dir;
  std::string bytes = testing::random_bytes(2 << 20, 12);
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  for (int round = 0; round < 8; ++round) {
    auto layout = dir / ("l" + std::to_string(round));
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    std::vector<std::string> errors(12);
    for (int i = 0; i < 12; ++i) {
      threads.emplace_back([&, i] {
        // A store of its own per writer, as separate processes have.
        auto s = LayoutStore::open(layout, LayoutMode::kCreate);
        if (!s) return void(errors[i] = s.error().message());
        auto w = (*s)->blob_writer(d);
        if (!w) return void(errors[i] = w.error().message());
        if (!(*w)->present()) {
          for (std::size_t at = (*w)->offset(); at < bytes.size(); at += 256 << 10) {
            if (auto r = (*w)->write(as_bytes(std::string_view(bytes).substr(at, 256 << 10))); !r)
              return void(errors[i] = r.error().message());
          }
        }
        if (auto c = (*w)->commit(); !c) return void(errors[i] = c.error().message());
        // A late writer after the commit, reading back at once.
        auto back = read_blob(**s, d, 4 << 20);
        if (!back || *back != bytes) return void(errors[i] = "read back differs");
        ++ok;
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& e : errors) EXPECT_EQ(e, "") << "round " << round;
    EXPECT_EQ(ok.load(), 12);
    EXPECT_EQ(sha256_hex(*fs::read_file(layout / "blobs/sha256" / std::string(d.digest.hex()))), d.digest.hex());
  }
}

// A writer killed between linking the blob into blobs/ and dropping its
// ingest name leaves one file with two names: the next writer must not
// resume into it (it is committed), only drop the ingest name.
TEST(LayoutStore, AnIngestNameLeftOnACommittedBlobIsDroppedNotWrittenTo) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  std::string bytes = testing::random_bytes(1 << 20, 13);
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  auto blob = dir / "l/blobs/sha256" / std::string(d.digest.hex());
  { std::ofstream(blob, std::ios::binary) << bytes; }
  auto ingest = dir / "l/.strata/ingest" / ("sha256-" + std::string(d.digest.hex()));
  std::filesystem::create_directories(ingest.parent_path());
  std::filesystem::create_hard_link(blob, ingest);
  auto w = s->blob_writer(d);
  ASSERT_TRUE(w);
  EXPECT_TRUE((*w)->present());
  ASSERT_TRUE((*w)->restart());
  ASSERT_TRUE((*w)->commit());
  EXPECT_FALSE(std::filesystem::exists(ingest));
  EXPECT_EQ(*fs::read_file(blob), bytes);
}

// Commit never replaces a committed blob: a file already under the blob's
// name (another writer's, or a link from another layout) stays, inode and all.
TEST(LayoutStore, CommitKeepsTheBlobAnotherWriterCommittedFirst) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  std::string bytes = testing::random_bytes(1 << 20, 14);
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  auto w = s->blob_writer(d);
  ASSERT_TRUE(w);
  ASSERT_FALSE((*w)->present());
  ASSERT_TRUE((*w)->write(as_bytes(bytes)));
  // Meanwhile the blob arrives another way (a link, an unnamed writer).
  auto blob = dir / "l/blobs/sha256" / std::string(d.digest.hex());
  { std::ofstream(blob, std::ios::binary) << bytes; }
  struct stat before{};
  ASSERT_EQ(::stat(blob.c_str(), &before), 0);
  ASSERT_TRUE((*w)->commit());
  struct stat after{};
  ASSERT_EQ(::stat(blob.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(after.st_nlink, 1u);
  EXPECT_TRUE(std::filesystem::is_empty(dir / "l/.strata/ingest"));
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

// A truncated file under a blob's name is not the blob (has_blob says so):
// a copy of the blob replaces it, and the commit that never replaces a
// committed blob does not keep the damage.
TEST(LayoutStore, ABlobFileOfTheWrongSizeIsReplacedByTheVerifiedBlob) {
  testing::TempDir dir;
  auto s = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  std::string bytes = testing::random_bytes(300000, 15);
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  std::filesystem::create_directories(s->blob_path(d.digest).parent_path());
  std::ofstream(s->blob_path(d.digest), std::ios::binary) << bytes.substr(0, 1000);
  EXPECT_FALSE(*s->has_blob(d));
  ASSERT_TRUE(write_blob(*s, d, bytes));
  EXPECT_EQ(*read_blob(*s, d, 1 << 20), bytes);
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

// A FIFO where a layout keeps a blob or its index.json, or where an archive
// should be: copy and inspect return at once with an error naming the file
// and saying what it is, instead of waiting for a writer forever.
TEST(LayoutStore, AFifoInPlaceOfABlobOrIndexJsonIsRefusedNotWaitedFor) {
  testing::TempDir dir;
  auto src = std::move(*LayoutStore::open(dir / "src", LayoutMode::kCreate));
  auto img = testing::make_image(*src, {3000, 5000}, 7);
  ASSERT_TRUE(src->put_manifest(img.manifest, "v1"));
  auto blob = dir / "src" / "blobs" / "sha256" / std::string(img.layers[1].digest.hex());
  testing::make_fifo(blob);
  auto dst = std::move(*LayoutStore::open(dir / "dst", LayoutMode::kCreate));
  auto copied = testing::without_hanging(blob, [&] { return copy_image(*src, "v1", *dst, "v1", CopyOptions{}); });
  ASSERT_FALSE(copied) << "a FIFO was copied as a blob";
  EXPECT_NE(copied.error().message().find(blob.string() + " is not a regular file (a FIFO)"), std::string::npos)
      << copied.error().message();
  EXPECT_FALSE(*dst->has_blob(img.layers[1]));

  auto index = dir / "src" / "index.json";
  testing::make_fifo(index);
  auto reopened = LayoutStore::open(dir / "src", LayoutMode::kReadOnly);
  ASSERT_TRUE(reopened) << reopened.error().message();
  auto resolved = testing::without_hanging(index, [&] { return (*reopened)->resolve("v1"); });
  ASSERT_FALSE(resolved);
  EXPECT_NE(resolved.error().message().find(index.string() + " is not a regular file (a FIFO)"), std::string::npos)
      << resolved.error().message();

  auto archive = dir / "image.tar";
  testing::make_fifo(archive);
  auto opened = testing::without_hanging(archive, [&] {
    return ArchiveStore::open(archive, ArchiveFormat::kOci, ArchiveMode::kRead);
  });
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message().find(archive.string() + " is not a regular file (a FIFO)"), std::string::npos)
      << opened.error().message();
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

// Reading an archive unpacks it into TMPDIR (what `bundle load X.tar` does
// first): with TMPDIR full, every failure there names the directory, says it
// is full and what to do, and never a path inside the archive.
TEST(ArchiveStore, AFullTmpdirIsNamedWithTheNextStep) {
  testing::TempDir dir;
  const auto file = dir / "b.tar";
  {
    auto archive = ArchiveStore::open(file, ArchiveFormat::kOci, ArchiveMode::kWrite);
    ASSERT_TRUE(archive) << archive.error().message();
    testing::push_image(**archive, "v1", {20000, 3000}, 4);
    ASSERT_TRUE((*archive)->close());
  }
  testing::TempDir tmp;
  std::optional<std::string> old;
  if (const char* v = std::getenv("TMPDIR")) old = v;
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  const testing::Fault full{"ENOSPC", {fs::Op::kOpen, fs::Op::kWrite, fs::Op::kSync, fs::Op::kMakeDir,
                                       fs::Op::kRename, fs::Op::kLink, fs::Op::kTruncate}, ENOSPC};
  std::size_t failed = 0;
  for (std::size_t step = 0; step < 500; ++step) {
    testing::FaultEnv env(full, step);
    Result<std::unique_ptr<ArchiveStore>> r = fail(ErrorCode::kCancelled, "not run");
    {
      fs::ScopedEnv installed(env);
      r = ArchiveStore::open(file, ArchiveFormat::kOci, ArchiveMode::kRead);
    }
    if (!env.fired()) {
      EXPECT_TRUE(r) << r.error().message();
      break;
    }
    ++failed;
    SCOPED_TRACE(env.what_fired());
    ASSERT_FALSE(r);
    const std::string& m = r.error().message();
    EXPECT_NE(m.find("unpacking oci-archive:" + file.string() + ": the temporary directory " + tmp.path().string() +
                     " (TMPDIR) is full"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("free space there or set TMPDIR to a directory with room"), std::string::npos) << m;
    EXPECT_EQ(m.find(file.string() + "/"), std::string::npos) << "a path inside the archive: " << m;
  }
  if (old) ::setenv("TMPDIR", old->c_str(), 1);
  else ::unsetenv("TMPDIR");
  EXPECT_GT(failed, 0u);
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
