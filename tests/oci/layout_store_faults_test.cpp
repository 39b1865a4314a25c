// The layout store under filesystem faults (support/fault_env.hpp): a full
// disk, an I/O error and a refused rename at every step of a blob commit,
// an index.json write, a tag delete and a layout's creation. After each: a
// clear error naming the file and the errno text, nothing partial under a
// final name, no temporary file of an atomic write left, and the layout
// still valid (it reopens, index.json parses, every blob verifies, the
// images it held are intact) and writable once the fault is gone.
#include <gtest/gtest.h>

#include <map>

#include "oci/layout_store.hpp"
#include "support/fault_env.hpp"
#include "support/random_image.hpp"
#include "support/temp_dir.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"

namespace strata::oci {
namespace {

namespace stdfs = std::filesystem;
using testing::at_every_step;
using testing::FaultEnv;
using testing::names_the_fault;
using testing::standard_faults;

using Tags = std::map<std::string, std::string>;

// Tag → manifest digest, as index.json says.
Tags tags_of(LayoutStore& s) {
  Tags out;
  auto entries = s.entries();
  EXPECT_TRUE(entries) << entries.error().message();
  if (entries)
    for (const auto& e : *entries) out[e.ref_name()] = e.digest.str();
  return out;
}

// What any failure must leave: the layout reopens and index.json parses;
// every file in blobs/ hashes to its name; no temporary file of an atomic
// write is left (unless the fault hit the removal of one); every image in
// index.json reads with its config and layers verified. Returns its tags.
Tags expect_valid_layout(const stdfs::path& dir, const FaultEnv& env) {
  fs::ScopedEnv real(fs::posix_env());
  auto s = LayoutStore::open(dir, LayoutMode::kReadOnly);
  EXPECT_TRUE(s) << s.error().message();
  if (!s) return {};
  for (const auto& f : stdfs::recursive_directory_iterator(dir)) {
    if (!f.is_regular_file()) continue;
    auto rel = f.path().lexically_relative(dir).string();
    if (rel.find(".tmp.") != std::string::npos) {
      EXPECT_EQ(env.fired_op(), fs::Op::kRemove) << "left behind: " << rel << " after " << env.what_fired();
    }
    if (rel.starts_with("blobs/sha256/")) {
      auto bytes = fs::read_file(f.path());
      EXPECT_TRUE(bytes);
      if (bytes) {
        EXPECT_EQ(sha256_hex(*bytes), f.path().filename().string()) << rel << " does not verify";
      }
    }
  }
  auto tags = tags_of(**s);
  for (const auto& [tag, digest] : tags) {
    auto m = (*s)->get_manifest(digest);
    EXPECT_TRUE(m) << m.error().message();
    if (!m) continue;
    auto parsed = parse_manifest(m->bytes, m->descriptor.media_type, "test");
    EXPECT_TRUE(parsed) << tag;
    if (!parsed) continue;
    if (auto* im = std::get_if<ImageManifest>(&*parsed)) {
      EXPECT_TRUE(read_blob(**s, im->config)) << tag;
      for (const auto& l : im->layers) EXPECT_TRUE(read_blob(**s, l, 1 << 20)) << tag;
    }
  }
  return tags;
}

// After an index.json change under `env`: with no fault it succeeded; with
// one it failed naming the fault and left the old index or the new one,
// never a mix (the new one when only the directory's fsync after the rename
// failed), or it succeeded (the fault hit a step whose failure is harmless).
void expect_old_or_new(const Result<void>& r, const FaultEnv& env, const Tags& tags, const Tags& before,
                       const Tags& after) {
  if (!env.fired()) {
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(tags, after);
  } else if (!r) {
    EXPECT_TRUE(names_the_fault(r.error().message(), env));
    EXPECT_TRUE(tags == before || tags == after) << env.what_fired();
  } else {
    EXPECT_EQ(tags, after) << env.what_fired();
  }
}

struct Layout {
  testing::TempDir tmp;
  stdfs::path dir = tmp / "l";
  std::unique_ptr<LayoutStore> store;
  Tags before;
  // A layout holding images tagged a and b, written without faults.
  Layout() {
    fs::ScopedEnv real(fs::posix_env());
    store = std::move(*LayoutStore::open(dir, LayoutMode::kCreate));
    testing::push_image(*store, "a", {3000, 70000}, 1);
    testing::push_image(*store, "b", {5000}, 2);
    before = tags_of(*store);
  }
};

TEST(LayoutStoreFaults, BlobCommitFailsCleanlyAtEveryStep) {
  std::string bytes = testing::random_bytes(200000, 7);
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  for (const auto& fault : standard_faults()) {
    auto steps = at_every_step(fault, [&](FaultEnv& env) {
      Layout l;
      auto r = write_blob(*l.store, d, bytes);
      if (!env.fired()) {
        ASSERT_TRUE(r) << r.error().message();
      } else if (!r) {
        EXPECT_TRUE(names_the_fault(r.error().message(), env));
      }
      EXPECT_EQ(expect_valid_layout(l.dir, env), l.before) << env.what_fired();
      // The fault gone, the same store commits the blob (resuming whatever
      // verified bytes the ingest kept).
      fs::ScopedEnv real(fs::posix_env());
      auto again = write_blob(*l.store, d, bytes);
      ASSERT_TRUE(again) << again.error().message() << " after " << env.what_fired();
      EXPECT_EQ(*read_blob(*l.store, d, 1 << 20), bytes);
    });
    EXPECT_GE(steps, fault.err == ENOSPC || fault.err == EIO ? 5u : 1u) << fault.name;
  }
}

// A blob named after its bytes (Store::unnamed_blob_writer): a fault at any
// step fails naming it and leaves no blob that does not verify and no file
// in the ingest directory; the fault gone, a new writer commits.
TEST(LayoutStoreFaults, UnnamedBlobCommitFailsCleanlyAtEveryStep) {
  std::string bytes = testing::random_bytes(200000, 8);
  auto d = descriptor_for(media::kOciLayerGzip, bytes);
  auto write_unnamed = [&](LayoutStore& s) -> Result<WrittenBlob> {
    STRATA_TRY(auto w, s.unnamed_blob_writer());
    if (!w) return fail(ErrorCode::kUnsupported, "no unnamed writer");
    STRATA_TRY_VOID(w->write(as_bytes(std::string_view(bytes).substr(0, 70000))));
    STRATA_TRY_VOID(w->write(as_bytes(std::string_view(bytes).substr(70000))));
    return w->commit();
  };
  for (const auto& fault : standard_faults()) {
    auto steps = at_every_step(fault, [&](FaultEnv& env) {
      Layout l;
      auto r = write_unnamed(*l.store);
      if (!env.fired()) {
        ASSERT_TRUE(r) << r.error().message();
        EXPECT_EQ(r->digest, d.digest);
      } else if (!r) {
        EXPECT_TRUE(names_the_fault(r.error().message(), env)) << r.error().message();
      }
      EXPECT_EQ(expect_valid_layout(l.dir, env), l.before) << env.what_fired();
      fs::ScopedEnv real(fs::posix_env());
      for (const auto& e : stdfs::directory_iterator(l.dir / ".strata" / "ingest")) {
        ADD_FAILURE() << "left in the ingest directory: " << e.path() << " after " << env.what_fired();
      }
      auto again = write_unnamed(*l.store);
      ASSERT_TRUE(again) << again.error().message() << " after " << env.what_fired();
      EXPECT_EQ(*read_blob(*l.store, d, 1 << 20), bytes);
    });
    EXPECT_GE(steps, fault.err == ENOSPC || fault.err == EIO ? 4u : 0u) << fault.name;
  }
}

TEST(LayoutStoreFaults, IndexWriteFailsCleanlyAtEveryStep) {
  for (const auto& fault : standard_faults()) {
    auto steps = at_every_step(fault, [&](FaultEnv& env) {
      Layout l;
      testing::TestImage img;
      {
        fs::ScopedEnv real(fs::posix_env());
        img = testing::make_image(*l.store, {4000}, 3);
      }
      auto r = l.store->put_manifest(img.manifest, "c");
      auto after = l.before;
      after["c"] = img.manifest.descriptor.digest.str();
      expect_old_or_new(r, env, expect_valid_layout(l.dir, env), l.before, after);
      fs::ScopedEnv real(fs::posix_env());
      ASSERT_TRUE(l.store->put_manifest(img.manifest, "c"));
      EXPECT_EQ(tags_of(*l.store), after);
    });
    EXPECT_GE(steps, 1u) << fault.name;
  }
}

TEST(LayoutStoreFaults, TagDeleteFailsCleanlyAtEveryStep) {
  for (const auto& fault : standard_faults()) {
    auto steps = at_every_step(fault, [&](FaultEnv& env) {
      Layout l;
      auto r = l.store->delete_tag("a");
      auto after = l.before;
      after.erase("a");
      expect_old_or_new(r, env, expect_valid_layout(l.dir, env), l.before, after);
      fs::ScopedEnv real(fs::posix_env());
      auto again = l.store->delete_tag("a");
      EXPECT_TRUE(again || again.error().is(ErrorCode::kNotFound));
      EXPECT_EQ(tags_of(*l.store), after);
    });
    EXPECT_GE(steps, 1u) << fault.name;
  }
}

TEST(LayoutStoreFaults, CreationFailsCleanlyAtEveryStep) {
  for (const auto& fault : standard_faults()) {
    at_every_step(fault, [&](FaultEnv& env) {
      testing::TempDir tmp;
      auto dir = tmp / "new";
      auto s = LayoutStore::open(dir, LayoutMode::kCreate);
      fs::ScopedEnv real(fs::posix_env());
      if (!s) {
        EXPECT_TRUE(names_the_fault(s.error().message(), env));
        // Either no layout at all, or a complete one.
        if (stdfs::exists(dir / "oci-layout")) expect_valid_layout(dir, env);
      } else {
        expect_valid_layout(dir, env);
      }
      // The fault gone, the same directory becomes a layout.
      auto again = LayoutStore::open(dir, LayoutMode::kCreate);
      ASSERT_TRUE(again) << again.error().message() << " after " << env.what_fired();
      EXPECT_TRUE(tags_of(**again).empty());
    });
  }
}

}  // namespace
}  // namespace strata::oci
