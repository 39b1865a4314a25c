#include "oci/image_fs.hpp"

#include <gtest/gtest.h>

#include "layer/base_image.hpp"
#include "layer/compress.hpp"
#include "layer/tar_writer.hpp"
#include "support/test_store.hpp"

namespace strata::oci {
namespace {

// A layer spelled as a list of entries, written in the order given (so tests
// can place whiteouts anywhere), with `content` for regular files.
struct E {
  std::string path;
  TarEntryType type = TarEntryType::kRegular;
  std::string content_or_target;
  std::uint32_t mode = 0644;
};

E dir(std::string p, std::uint32_t mode = 0755) { return {std::move(p), TarEntryType::kDirectory, "", mode}; }
E file(std::string p, std::string c = "") { return {std::move(p), TarEntryType::kRegular, std::move(c)}; }
E sym(std::string p, std::string t) { return {std::move(p), TarEntryType::kSymlink, std::move(t), 0777}; }
E hard(std::string p, std::string t) { return {std::move(p), TarEntryType::kHardlink, std::move(t)}; }

std::string raw_tar(const std::vector<E>& entries) {
  std::string out;
  for (const auto& x : entries) {
    TarEntry e;
    e.path = x.path;
    e.type = x.type;
    e.mode = x.mode;
    if (x.type == TarEntryType::kRegular) e.size = x.content_or_target.size();
    else if (x.type != TarEntryType::kDirectory) e.link_target = x.content_or_target;
    auto h = layer::encode_tar_header(e);
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
  void add_layer(const std::vector<E>& entries, layer::Compression c = layer::Compression::kGzip) {
    StringSink out;
    auto sink = layer::CompressingSink::create(c, out);
    ASSERT_TRUE((*sink)->write(as_bytes(raw_tar(entries))));
    ASSERT_TRUE((*sink)->finish());
    manifest_.layers.push_back(store_.put_blob(std::string(layer::layer_media_type(c)), out.str()));
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
  testing::TestStore store_;
  ImageManifest manifest_;
};

TEST_F(ImageFsTest, FileWhiteoutHidesTheLowerFileOnly) {
  add_layer({dir("a"), file("a/f", "1"), file("a/g", "2")});
  add_layer({dir("a"), file("a/.wh.f")});
  auto fs = load();
  EXPECT_FALSE(fs.exists("/a/f"));
  EXPECT_TRUE(fs.exists("/a/g"));
  EXPECT_EQ(paths(fs), (std::vector<std::string>{"", "a", "a/g"}));  // the whiteout itself is hidden
}

TEST_F(ImageFsTest, DirectoryWhiteoutHidesTheWholeTree) {
  add_layer({dir("d"), dir("d/e"), file("d/e/x"), file("d-sibling")});
  add_layer({file(".wh.d")}, layer::Compression::kZstd);
  auto fs = load();
  EXPECT_EQ(paths(fs), (std::vector<std::string>{"", "d-sibling"}));
}

TEST_F(ImageFsTest, OpaqueWhiteoutHidesLowerChildrenWhereverItSits) {
  add_layer({dir("d"), file("d/x"), dir("d/sub"), file("d/sub/y"), file("other")});
  // The opaque marker after this layer's own child: it still only hides lower ones.
  add_layer({dir("d"), file("d/z", "new"), file("d/.wh..wh..opq")});
  auto fs = load();
  EXPECT_EQ(paths(fs), (std::vector<std::string>{"", "d", "d/z", "other"}));
}

TEST_F(ImageFsTest, WhiteoutNeverHidesItsOwnLayer) {
  add_layer({dir("a"), file("a/f", "old"), file("a/g", "old")});
  // Same layer: re-adds f before its whiteout, and g after its whiteout.
  add_layer({dir("a"), file("a/f", "new"), file("a/.wh.f"), file("a/.wh.g"), file("a/g", "new")});
  ImageFsOptions o;
  o.capture = capture_paths({"/a/f", "/a/g"});
  auto fs = load(o);
  EXPECT_EQ(*fs.read_small_file("a/f"), "new");
  EXPECT_EQ(*fs.read_small_file("a/g"), "new");
  // A later layer can hide it.
  add_layer({file("a/.wh.f")});
  auto later = load(o);
  EXPECT_FALSE(later.exists("a/f"));
}

TEST_F(ImageFsTest, DirectoryOverDirectoryTakesAttributesAndKeepsChildren) {
  add_layer({dir("d", 0755), file("d/x")});
  add_layer({dir("d", 0700)});
  auto fs = load();
  EXPECT_EQ((*fs.lookup("d"))->mode, 0700u);
  EXPECT_EQ((*fs.lookup("d"))->layer, 1u);
  EXPECT_TRUE(fs.exists("d/x"));
  // A file over a directory replaces the tree.
  add_layer({file("d", "now a file")});
  auto fs2 = load();
  EXPECT_EQ((*fs2.lookup("d"))->type, TarEntryType::kRegular);
  EXPECT_FALSE(fs2.exists("d/x"));
}

TEST_F(ImageFsTest, SymlinksResolveInsideTheRoot) {
  add_layer({dir("usr"), dir("usr/bin"), file("usr/bin/gcc-12", "ELF"), sym("usr/bin/cc", "/etc/alternatives/cc"),
             sym("bin", "usr/bin"), dir("etc"), dir("etc/alternatives"),
             sym("etc/alternatives/cc", "/usr/bin/gcc-12"), sym("etc/escape", "../../../../usr/bin/gcc-12"),
             sym("loop1", "loop2"), sym("loop2", "loop1")});
  // A later layer writes below the directory symlink: it lands in usr/bin.
  add_layer({dir("bin"), file("bin/tool", "t")});
  ImageFsOptions o;
  o.capture = capture_paths({"usr/bin/*"});
  auto fs = ImageFilesystem::load(store_, manifest_, o);
  // Layer 1 has relative "../../../../" which climbs above the root: refused.
  ASSERT_FALSE(fs);
  EXPECT_NE(fs.error().message().find("layer 1/2"), std::string::npos) << fs.error().message();
  EXPECT_NE(fs.error().message().find("etc/escape"), std::string::npos);

  manifest_.layers.clear();
  add_layer({dir("usr"), dir("usr/bin"), file("usr/bin/gcc-12", "ELF"), sym("usr/bin/cc", "/etc/alternatives/cc"),
             sym("bin", "usr/bin"), dir("etc"), dir("etc/alternatives"),
             sym("etc/alternatives/cc", "/usr/bin/gcc-12"), sym("etc/up", "../usr/bin/gcc-12"),
             sym("loop1", "loop2"), sym("loop2", "loop1")});
  add_layer({file("bin/tool", "t")});
  auto ok = load(o);
  EXPECT_EQ(*ok.resolve("/usr/bin/cc"), "usr/bin/gcc-12");
  EXPECT_EQ(*ok.resolve("/bin/cc"), "usr/bin/gcc-12");
  EXPECT_EQ(*ok.resolve("/bin/cc", ImageFilesystem::Follow::kNo), "usr/bin/cc");
  EXPECT_EQ(*ok.resolve("/etc/up"), "usr/bin/gcc-12");
  EXPECT_EQ(*ok.resolve("/../../usr/./bin/../bin/gcc-12"), "usr/bin/gcc-12");
  EXPECT_EQ(*ok.read_small_file("/bin/cc"), "ELF");
  EXPECT_EQ((*ok.lookup("bin", ImageFilesystem::Follow::kNo))->type, TarEntryType::kSymlink);
  EXPECT_EQ(*ok.read_small_file("/usr/bin/tool"), "t");  // written through the lower symlink
  EXPECT_FALSE(ok.exists("/usr/bin/missing"));
  EXPECT_FALSE(ok.exists("/usr/bin/gcc-12/x"));
  auto loop = ok.lookup("/loop1");
  ASSERT_FALSE(loop);
  EXPECT_NE(loop.error().message().find("too many levels"), std::string::npos);
  EXPECT_EQ(*ok.list("/bin"), (std::vector<std::string>{"cc", "gcc-12", "tool"}));
}

TEST_F(ImageFsTest, SmallFilesAreCapturedOnRequestOnly) {
  add_layer({dir("etc"), file("etc/os-release", "ID=debian\n"), dir("etc/dpkg"), dir("etc/dpkg/dpkg.cfg.d"),
             file("etc/dpkg/dpkg.cfg.d/docker", "path-exclude /usr/share/doc/*\n"), file("etc/big", "0123456789"),
             hard("etc/os-release-link", "etc/os-release")});
  ImageFsOptions o;
  o.capture = capture_paths({"/etc/os-release", "/etc/dpkg/dpkg.cfg.d/*", "/etc/big"});
  o.max_capture_bytes = 64;
  auto fs = load(o);
  EXPECT_EQ(*fs.read_small_file("/etc/os-release"), "ID=debian\n");
  EXPECT_EQ(*fs.read_small_file("/etc/os-release-link"), "ID=debian\n");  // hardlink shares content
  EXPECT_EQ(*fs.read_small_file("/etc/dpkg/dpkg.cfg.d/docker"), "path-exclude /usr/share/doc/*\n");
  ImageFsOptions tiny = o;
  tiny.max_capture_bytes = 5;
  auto fs2 = load(tiny);
  auto big = fs2.read_small_file("/etc/big");
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code(), ErrorCode::kFailedPrecondition);
  auto dir_read = fs.read_small_file("/etc");
  EXPECT_FALSE(dir_read);
}

TEST_F(ImageFsTest, FilesAreSummarizedOnRequestAndTheirContentDropped) {
  add_layer({dir("lib"), file("lib/libx.so.1", "ELF bytes"), file("lib/libhuge.so.1", std::string(100, 'x')),
             file("lib/notes.txt", "text"), hard("lib/libx-link.so.1", "lib/libx.so.1")});
  ImageFsOptions o;
  o.summarize_paths = [](std::string_view p) { return p.ends_with(".so.1"); };
  o.summarize = [](std::string_view content) { return "size " + std::to_string(content.size()); };
  o.max_summarize_bytes = 64;
  auto fs = load(o);
  EXPECT_EQ(*fs.summary("/lib/libx.so.1"), "size 9");
  EXPECT_EQ(*fs.summary("/lib/libx-link.so.1"), "size 9");  // hardlink shares the summary
  EXPECT_FALSE(fs.lookup("/lib/libx.so.1").value()->content) << "summarized content is dropped";
  auto huge = fs.summary("/lib/libhuge.so.1");
  ASSERT_FALSE(huge) << "over max_summarize_bytes";
  EXPECT_EQ(huge.error().code(), ErrorCode::kFailedPrecondition);
  EXPECT_FALSE(fs.summary("/lib/notes.txt"));
}

TEST_F(ImageFsTest, NonLayerMediaTypeIsRefused) {
  manifest_.layers.push_back(store_.put_blob("application/vnd.example+json", "{}"));
  auto fs = ImageFilesystem::load(store_, manifest_);
  ASSERT_FALSE(fs);
  EXPECT_EQ(fs.error().code(), ErrorCode::kUnsupported);
}

// load_base_image's cache of the filesystem: used when intact and holding
// everything the caller asks for; otherwise the layers are read again.
class BaseCacheTest : public ImageFsTest {
 protected:
  void SetUp() override {
    add_layer({dir("etc"), file("etc/os-release", "ID=debian\n"), dir("lib"), file("lib/libx.so.1", "not ELF"),
               file("etc/motd", "hi\n")});
    std::string config = R"({"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}})";
    manifest_.media_type = std::string(media::kOciManifest);
    manifest_.config = store_.put_blob(std::string(media::kOciConfig), config);
    raw_ = make_raw_manifest(manifest_.media_type, serialize(manifest_));
    ASSERT_TRUE(store_.put_manifest(raw_, "base"));
    // The same image without its layer: only a cache can answer for it.
    layerless_.put_blob(std::string(media::kOciConfig), config);
    ASSERT_TRUE(layerless_.put_manifest(raw_, "base"));
    layer::cache_base_filesystems(dir_.path());
  }
  void TearDown() override { layer::cache_base_filesystems({}); }
  Result<layer::BaseImage> load_from(Store& s, ImageFsOptions needs = {}) {
    return layer::load_base_image(s, "base", Platform{"linux", "amd64", "", ""}, std::move(needs));
  }
  ImageFsOptions needs() {
    ImageFsOptions o;
    o.summarize_paths = [](std::string_view p) { return p.starts_with("lib/"); };
    o.summarize = [](std::string_view c) { return std::to_string(c.size()); };
    return o;
  }
  std::filesystem::path cache_file() { return dir_.path() / ("fs-3-" + std::string(raw_.descriptor.digest.hex())); }

  testing::ScratchDir dir_;
  testing::TestStore layerless_;
  RawManifest raw_;
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
  more.capture = capture_paths({"etc/motd"});
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
}  // namespace strata::oci
