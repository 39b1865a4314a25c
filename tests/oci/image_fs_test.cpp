#include "oci/image_fs.hpp"

#include <gtest/gtest.h>

#include "oci/compress.hpp"
#include "oci/tar_writer.hpp"
#include "support/image_layers.hpp"

namespace strata::oci {
namespace {

using namespace testing::layers;

TEST_F(ImageFsTest, ALayerNamingAPathTwiceIsAWarningNotAFailure) {
  add_layer({dir("usr"), file("usr/a", "1")});
  add_layer({dir("usr"), file("usr/b", "1"), dir("usr"), file("usr/b", "2")});
  auto fs = load();
  ASSERT_EQ(fs.warnings().size(), 1u);
  EXPECT_NE(fs.warnings()[0].find("2 entries repeat a path of the same layer (/usr, /usr/b)"), std::string::npos)
      << fs.warnings()[0];
  EXPECT_TRUE(fs.exists("usr/a"));
}

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
  add_layer({file(".wh.d")}, oci::Compression::kZstd);
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

TEST_F(ImageFsTest, MissingParentsBecomeImplicitDirectories) {
  // Parent entries are optional in a layer: one holding only
  // ./var/lib/dpkg/status (as some image builders write it) still has its
  // package database, below implicit 0755 root-owned directories.
  add_layer({file("var/lib/dpkg/status", "Package: base-files\nStatus: install ok installed\n")});
  ImageFsOptions o;
  o.capture = capture_paths({"var/lib/dpkg/status"});
  auto fs = load(o);
  EXPECT_EQ(paths(fs), (std::vector<std::string>{"", "var", "var/lib", "var/lib/dpkg", "var/lib/dpkg/status"}));
  auto status = fs.read_small_file("/var/lib/dpkg/status");
  ASSERT_TRUE(status) << status.error().message();
  EXPECT_EQ(*status, "Package: base-files\nStatus: install ok installed\n");
  for (std::string d : {"var", "var/lib", "var/lib/dpkg"}) {
    auto n = fs.lookup(d);
    ASSERT_TRUE(n) << d << ": " << n.error().message();
    EXPECT_EQ((*n)->type, TarEntryType::kDirectory) << d;
    EXPECT_EQ((*n)->mode, 0755u) << d;
    EXPECT_EQ((*n)->uid, 0u) << d;
    EXPECT_EQ((*n)->gid, 0u) << d;
  }
  auto children = fs.list("var/lib");
  ASSERT_TRUE(children) << children.error().message();
  EXPECT_EQ(*children, std::vector<std::string>{"dpkg"});
  // A later layer naming the directory gives it its attributes and keeps
  // what the implicit one held; a deeper file in a third layer gets its
  // missing parents too.
  add_layer({dir("var/lib/dpkg", 0700)});
  add_layer({file("var/lib/dpkg/info/base-files.list", "/.\n")});
  auto later = load(o);
  EXPECT_EQ((*later.lookup("var/lib/dpkg"))->mode, 0700u);
  EXPECT_TRUE(later.exists("var/lib/dpkg/status"));
  EXPECT_TRUE(later.exists("var/lib/dpkg/info/base-files.list"));
  EXPECT_EQ((*later.lookup("var/lib/dpkg/info"))->type, TarEntryType::kDirectory);
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
  o.summarize = [](std::string_view, std::string_view content) { return "size " + std::to_string(content.size()); };
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

// A dpkg status that is a hardlink (legal in a layer tar: the bytes come
// first under another name) is read with its target's bytes; one of 9 MiB,
// past the old 8 MiB bound, is read whole; one past the bound is refused
// with a message that names the file and its size, not an option to set.
TEST_F(ImageFsTest, ACapturedHardlinkGetsItsTargetsBytesAndALargeStatusIsRead) {
  const std::string stanza = "Package: hello\nStatus: install ok installed\nVersion: 1.0\n\n";
  add_layer({dir("var"), dir("var/lib"), dir("var/lib/dpkg"), file("var/lib/dpkg/status-old", stanza),
             hard("var/lib/dpkg/status", "var/lib/dpkg/status-old"), file("etc-os", "x"),
             hard("lib-link.so.1", "etc-os")});
  ImageFsOptions o;
  o.capture = capture_paths({"var/lib/dpkg/status"});
  o.summarize_paths = [](std::string_view p) { return p.ends_with(".so.1"); };
  o.summarize = [](std::string_view, std::string_view content) { return "size " + std::to_string(content.size()); };
  auto fs = load(o);
  auto status = fs.read_small_file("/var/lib/dpkg/status");
  ASSERT_TRUE(status) << status.error().message();
  EXPECT_EQ(*status, stanza);
  EXPECT_FALSE(fs.lookup("/var/lib/dpkg/status-old").value()->content) << "only what was asked for is kept";
  auto summary = fs.summary("/lib-link.so.1");
  ASSERT_TRUE(summary) << summary.error().message();
  EXPECT_EQ(*summary, "size 1");

  // 9 MiB: over the old bound, under the new one.
  manifest_.layers.clear();
  std::string big;
  while (big.size() < (std::size_t{9} << 20)) big += stanza;
  add_layer({dir("var"), dir("var/lib"), dir("var/lib/dpkg"), file("var/lib/dpkg/status", big)});
  ImageFsOptions defaults;
  defaults.capture = capture_paths({"var/lib/dpkg/status"});
  auto large = load(defaults);
  auto read = large.read_small_file("var/lib/dpkg/status");
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->size(), big.size());

  ImageFsOptions small = defaults;
  small.max_capture_bytes = std::size_t{1} << 20;
  auto refused = load(small).read_small_file("var/lib/dpkg/status");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message().find("ImageFsOptions"), std::string::npos) << refused.error().message();
  EXPECT_NE(refused.error().message().find("/var/lib/dpkg/status in the image is 9.0 MiB, more than the 1.0 MiB"),
            std::string::npos)
      << refused.error().message();
}

// A layer its writer describes (apply_known_layer) gives the filesystem that
// reading the layer gives: replacement of a directory by a file, a
// whiteout, a hardlink sharing its target's summary, a symlink, implicit
// parents; and a file the options want that the writer did not keep is
// refused, never silently left without content.
TEST_F(ImageFsTest, AKnownLayerGivesWhatReadingItBackGives) {
  add_layer({dir("a"), file("a/old", "1"), file("a/gone", "2"), dir("d"), file("d/x", "3")});
  const std::vector<E> top{dir("a"), file("a/.wh.gone"), file("a/status", "db"), file("a/lib.so.1", "ELF"),
                           hard("a/link.so.1", "a/lib.so.1"), sym("a/s", "status"), file("d", "now a file"),
                           file("new/deep/f", "implicit parents")};
  add_layer(top);
  ImageFsOptions o;
  o.capture = capture_paths({"a/status"});
  o.summarize_paths = [](std::string_view p) { return p.ends_with(".so.1"); };
  o.summarize = [](std::string_view p, std::string_view content) {
    return std::string(p) + " " + std::to_string(content.size());
  };
  ImageFilesystem expected = load(o);

  auto known_of = [](const std::vector<E>& entries) {
    std::vector<oci::KnownEntry> out;
    for (const auto& x : entries) {
      oci::KnownEntry k;
      k.entry.path = x.path;
      k.entry.type = x.type;
      k.entry.mode = x.mode;
      if (x.type == TarEntryType::kRegular) k.entry.size = x.content_or_target.size();
      else if (x.type != TarEntryType::kDirectory) k.entry.link_target = x.content_or_target;
      out.push_back(std::move(k));
    }
    return out;
  };
  auto lower = [&] {
    ImageManifest first = manifest_;
    first.layers.resize(1);
    return *ImageFilesystem::load(store_, first, o);
  };
  auto entries = known_of(top);
  const std::string db = "db", elf = "ELF", lib_summary = "a/lib.so.1 3";
  entries[2].content = &db;            // a/status: kept, as a builder keeps what it is asked
  entries[3].summary = &lib_summary;   // a/lib.so.1: its summary
  ImageFilesystem known = lower();
  auto applied = known.apply_known_layer(entries, o, "the test layer");
  ASSERT_TRUE(applied) << applied.error().message();
  EXPECT_EQ(known.layers(), expected.layers());
  EXPECT_EQ(known.nodes(), expected.nodes());
  EXPECT_EQ(*known.summary("a/link.so.1"), "a/lib.so.1 3") << "a hardlink shares its target's summary";

  // Content given where a summary is wanted is summarized as reading would.
  entries[3].summary = nullptr;
  entries[3].content = &elf;
  ImageFilesystem from_content = lower();
  ASSERT_TRUE(from_content.apply_known_layer(entries, o, "the test layer"));
  EXPECT_EQ(from_content.nodes(), expected.nodes());

  // What the options want and the writer did not keep: refused, by name.
  entries[2].content = nullptr;
  ImageFilesystem incomplete = lower();
  auto refused = incomplete.apply_known_layer(entries, o, "the test layer");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(refused.error().message().find("the test layer: /a/status"), std::string::npos) << refused.error().message();
}

// Hardlinks name entries of their own layer by the entry's path: a path
// reached only through a symlink is not one (refused), and an entry written
// again at its own path is the one a later link shares.
TEST_F(ImageFsTest, AHardlinkNamesAnEntryOfItsLayerByItsPath) {
  // (A layer may not write through its own symlink: the lower layer's.)
  add_layer({dir("d"), sym("l", "d"), sym("p", "d")});
  add_layer({file("l/x", "through the link"), hard("h", "d/x")});
  auto refused = ImageFilesystem::load(store_, manifest_, {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("hardlink to \"d/x\", which is not an earlier file of this layer"),
            std::string::npos)
      << refused.error().message();

  manifest_.layers.pop_back();
  add_layer({file("p/f", "first"), dir("p"), file("p/f", "second!"), hard("h", "p/f")});
  auto fs = load();
  EXPECT_EQ(fs.lookup("h").value()->size, 7u) << "the second p/f, written at its own path";
  EXPECT_EQ(fs.lookup("d/f").value()->size, 5u);
}

// Two callers' needs at once: either's captures, each path summarized by the
// caller that asked for it.
TEST_F(ImageFsTest, CombinedNeedsCaptureEitherAndSummarizeByTheAsker) {
  add_layer({dir("lib"), file("lib/libx.so.1", "ELF"), dir("doc"), file("doc/copyright", "text"), file("status", "s"),
             file("release", "r")});
  ImageFsOptions a, b;
  a.capture = capture_paths({"status"});
  a.summarize_paths = [](std::string_view p) { return p.starts_with("lib/"); };
  a.summarize = [](std::string_view, std::string_view) { return std::string("library"); };
  b.capture = capture_paths({"release"});
  b.summarize_paths = [](std::string_view p) { return p.starts_with("doc/"); };
  b.summarize = [](std::string_view, std::string_view) { return std::string("licence"); };
  b.max_summarize_bytes = 1;
  auto both = combine_needs(a, b);
  EXPECT_EQ(both.max_summarize_bytes, a.max_summarize_bytes);
  auto fs = load(both);
  EXPECT_EQ(*fs.read_small_file("status"), "s");
  EXPECT_EQ(*fs.read_small_file("release"), "r");
  EXPECT_EQ(*fs.summary("lib/libx.so.1"), "library");
  EXPECT_EQ(*fs.summary("doc/copyright"), "licence");
}

TEST_F(ImageFsTest, NonLayerMediaTypeIsRefused) {
  manifest_.layers.push_back(store_.put_blob("application/vnd.example+json", "{}"));
  auto fs = ImageFilesystem::load(store_, manifest_);
  ASSERT_FALSE(fs);
  EXPECT_EQ(fs.error().code(), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace strata::oci
