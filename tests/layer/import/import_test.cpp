#include "layer/import/import.hpp"

#include <gtest/gtest.h>

#include "support/source_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <random>

#include "oci/manifest.hpp"
#include "oci/store.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/test_store.hpp"
#include "support/unique_paths.hpp"

namespace strata::layer {
namespace {

using testing::TempDir;
using testing::shell_quote;
using testing::shell;

void set_mtime(const std::filesystem::path& p, std::int64_t t) {
  struct timespec ts[2];
  ts[0].tv_sec = ts[1].tv_sec = t;
  ts[0].tv_nsec = ts[1].tv_nsec = 123456789;
  ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), ts, AT_SYMLINK_NOFOLLOW), 0) << p;
}

// A small root filesystem on disk: dirs, files, symlinks, a hardlink pair
// whose names sort opposite to creation order, a long name.
std::vector<std::string> make_rootfs(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  fs::create_directories(root / "etc/apt/sources.list.d");
  fs::create_directories(root / "usr/bin");
  fs::create_directories(root / "usr/share/doc/pkg");
  fs::create_directories(root / "var/lib/dpkg");
  fs::create_directories(root / "tmp");
  testing::write_file(root / "etc/os-release", "ID=debian\nVERSION_ID=12\n");
  testing::write_file(root / "var/lib/dpkg/status", "Package: base-files\nStatus: install ok installed\n\n");
  testing::write_file(root / "usr/bin/zz-tool", std::string(100000, 'z'));
  fs::create_hard_link(root / "usr/bin/zz-tool", root / "usr/bin/aa-tool");  // sorts before its target
  fs::create_symlink("usr/bin", root / "bin");
  fs::create_symlink("/usr/bin/zz-tool", root / "usr/bin/abs-link");
  testing::write_file(root / ("usr/share/doc/pkg/" + std::string(180, 'n')), "long\n");
  ::chmod((root / "tmp").c_str(), 01777);
  ::chmod((root / "usr/bin/zz-tool").c_str(), 0755);
  std::vector<std::string> paths;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    paths.push_back(it->path().lexically_relative(root).string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

void randomise_mtimes(const std::filesystem::path& root, const std::vector<std::string>& paths, unsigned seed) {
  std::mt19937 rng(seed);
  for (const auto& p : paths) set_mtime(root / p, 1600000000 + static_cast<std::int64_t>(rng() % 200000000));
}

struct Imported {
  ImportResult result;
  testing::TestStore store;
};

Result<ImportResult> run(const std::filesystem::path& tarball, testing::TestStore& store, ImportOptions o = {}) {
  if (!o.tag) o.tag = "t";
  return import_rootfs(tarball, o, store);
}

TEST(Import, DifferentlyMadeTarballsOfTheSameTreeGiveTheSameDigest) {
  TempDir d;
  auto root = d / "root";
  auto paths = make_rootfs(root);
  std::string list_fwd, list_rev;
  for (const auto& p : paths) list_fwd += p + "\n";
  for (auto it = paths.rbegin(); it != paths.rend(); ++it) list_rev += *it + "\n";
  testing::write_file(d / "fwd.list", list_fwd);
  testing::write_file(d / "rev.list", list_rev);

  // Tarball A: GNU format, forward order, owner alice, mtimes from seed 1.
  randomise_mtimes(root, paths, 1);
  auto a = shell("tar --format=gnu --no-recursion --owner=alice:1234 --group=staff:50 -C " +
                 shell_quote(root.string()) + " -cf " + shell_quote((d / "a.tar").string()) + " -T " +
                 shell_quote((d / "fwd.list").string()));
  ASSERT_EQ(a.status, 0);
  // Tarball B: PAX format, reverse order, "./" names, owner bob with the same
  // ids, other mtimes (all newer than the epoch), gzip-compressed.
  randomise_mtimes(root, paths, 2);
  auto b = shell("cd " + shell_quote(root.string()) + " && sed 's,^,./,' " + shell_quote((d / "rev.list").string()) +
                 " | tar --format=pax --no-recursion --owner=bob:1234 --group=wheel:50 -czf " +
                 shell_quote((d / "b.tar.gz").string()) + " -T -");
  ASSERT_EQ(b.status, 0);

  ImportOptions o;
  o.epoch = 1500000000;  // before every mtime: all clamp to it
  o.changes = {"ENV PATH=/usr/sbin:/usr/bin", "CMD [\"/bin/bash\"]"};
  testing::TestStore sa, sb;
  auto ra = run(d / "a.tar", sa, o);
  ASSERT_TRUE(ra) << ra.error().message();
  auto rb = run(d / "b.tar.gz", sb, o);
  ASSERT_TRUE(rb) << rb.error().message();
  EXPECT_EQ(ra->digests.diff_id, rb->digests.diff_id);
  EXPECT_EQ(ra->layer.digest, rb->layer.digest);
  EXPECT_EQ(ra->manifest.digest, rb->manifest.digest);
  EXPECT_EQ(ra->entries, paths.size());

  // Without the epoch the mtimes differ, and so do the digests.
  testing::TestStore sc, sd;
  auto rc = run(d / "a.tar", sc);
  auto rd = run(d / "b.tar.gz", sd);
  ASSERT_TRUE(rc && rd);
  EXPECT_NE(rc->digests.diff_id, rd->digests.diff_id);

  // The layer is sorted, numeric-owned, clamped and its diff_id is the tar's sha256.
  std::string layer = sa.blob(ra->layer.digest);
  testing::write_file(d / "layer.tar.gz", layer);
  auto listing = shell("tar --numeric-owner --full-time -tvzf " + shell_quote((d / "layer.tar.gz").string()));
  ASSERT_EQ(listing.status, 0);
  EXPECT_NE(listing.out.find("hrwxr-xr-x 1234/50"), std::string::npos) << listing.out;
  EXPECT_NE(listing.out.find("usr/bin/zz-tool link to usr/bin/aa-tool"), std::string::npos) << listing.out;
  EXPECT_NE(listing.out.find("drwxrwxrwt 1234/50"), std::string::npos) << listing.out;
  EXPECT_NE(listing.out.find("2017-07-14 02:40:00 bin -> usr/bin"), std::string::npos) << listing.out;
  EXPECT_EQ(listing.out.find("alice"), std::string::npos);
  auto names = shell("tar -tzf " + shell_quote((d / "layer.tar.gz").string()));
  EXPECT_EQ(names.out.substr(0, 9), "bin\netc/\n");
  auto sum = shell("zcat " + shell_quote((d / "layer.tar.gz").string()) + " | sha256sum");
  EXPECT_EQ(sum.out.substr(0, 64), ra->digests.diff_id->hex());

  // Config: created = epoch, the changes, the diff_id.
  auto cfg = oci::read_blob(sa, ra->config);
  ASSERT_TRUE(cfg);
  auto j = nlohmann::json::parse(*cfg);
  EXPECT_EQ(j["created"], "2017-07-14T02:40:00Z");
  EXPECT_EQ(j["config"]["Env"][0], "PATH=/usr/sbin:/usr/bin");
  EXPECT_EQ(j["config"]["Cmd"][0], "/bin/bash");
  EXPECT_EQ(j["rootfs"]["diff_ids"][0], ra->digests.diff_id->str());

  // umoci, an independent implementation, unpacks it.
  sa.write_layout(d / "layout");
  auto u = shell("umoci unpack --rootless --image " + shell_quote((d / "layout").string() + ":t") + " " +
                 shell_quote((d / "bundle").string()) + " 2>&1");
  ASSERT_EQ(u.status, 0) << u.out;
  EXPECT_EQ(testing::read_file(d / "bundle/rootfs/etc/os-release"), "ID=debian\nVERSION_ID=12\n");
  EXPECT_EQ(std::filesystem::read_symlink(d / "bundle/rootfs/bin"), "usr/bin");
  EXPECT_EQ(testing::read_file(d / "bundle/rootfs/usr/bin/aa-tool").size(), 100000u);
  auto sk = shell("skopeo inspect --config " + shell_quote("oci:" + (d / "layout").string() + ":t") + " 2>&1");
  EXPECT_EQ(sk.status, 0) << sk.out;
}

TEST(Import, ZstdAndXzInputsAndOutputs) {
  TempDir d;
  auto paths = make_rootfs(d / "root");
  randomise_mtimes(d / "root", paths, 3);
  ASSERT_EQ(shell("tar -C " + shell_quote((d / "root").string()) + " --zstd -cf " + shell_quote((d / "r.tar.zst").string()) +
                  " .").status, 0);
  ASSERT_EQ(shell("tar -C " + shell_quote((d / "root").string()) + " -cJf " + shell_quote((d / "r.tar.xz").string()) +
                  " .").status, 0);
  ImportOptions o;
  o.epoch = 1500000000;
  o.compression = oci::Compression::kZstd;
  testing::TestStore s1, s2;
  auto r1 = run(d / "r.tar.zst", s1, o);
  auto r2 = run(d / "r.tar.xz", s2, o);
  ASSERT_TRUE(r1) << r1.error().message();
  ASSERT_TRUE(r2) << r2.error().message();
  EXPECT_EQ(r1->manifest.digest, r2->manifest.digest);
  EXPECT_EQ(r1->layer.media_type, oci::media::kOciLayerZstd);
  testing::write_file(d / "l.zst", s1.blob(r1->layer.digest));
  EXPECT_EQ(shell("zstd -q -t " + shell_quote((d / "l.zst").string())).status, 0);
}

TEST(Import, HostileTarballsAreRefused) {
  auto bad = strata::testing::source_dir() / "testdata/bad/layer";
  int seen = 0;
  for (const auto& f : std::filesystem::directory_iterator(bad)) {
    if (f.path().extension() != ".gz") continue;
    ++seen;
    testing::TestStore s;
    auto r = run(f.path(), s);
    ASSERT_FALSE(r) << f.path() << " was imported";
    EXPECT_NE(r.error().message().find(f.path().filename().string()), std::string::npos) << r.error().message();
    EXPECT_EQ(s.blob_count(), 0u) << "nothing is written for a refused tarball";
  }
  EXPECT_GE(seen, 9);
}

TEST(Import, RefusesDuplicatesAndEntriesBelowFiles) {
  TempDir d;
  std::string py =
      "import tarfile,io,sys\n"
      "def add(t,n,data=b'',typ=tarfile.REGTYPE):\n"
      "  i=tarfile.TarInfo(n); i.type=typ; i.size=len(data) if typ==tarfile.REGTYPE else 0\n"
      "  t.addfile(i, io.BytesIO(data) if i.size else None)\n"
      "with tarfile.open(sys.argv[1]+'/dup.tar','w') as t:\n"
      "  add(t,'a',b'1'); add(t,'./a',b'2')\n"
      "with tarfile.open(sys.argv[1]+'/below.tar','w') as t:\n"
      "  add(t,'f',b'1'); add(t,'f/x',b'2')\n"
      "with tarfile.open(sys.argv[1]+'/wh.tar','w') as t:\n"
      "  add(t,'d',typ=tarfile.DIRTYPE); add(t,'d/.wh.x')\n";
  testing::write_file(d / "mk.py", py);
  ASSERT_EQ(shell("python3 " + shell_quote((d / "mk.py").string()) + " " + shell_quote(d.path().string())).status, 0);
  struct Case {
    std::string file, why;
  };
  for (const auto& c : std::vector<Case>{{"dup.tar", "appears twice"}, {"below.tar", "which is a regular file"},
                                         {"wh.tar", "whiteout"}}) {
    testing::TestStore s;
    auto r = run(d / c.file, s);
    ASSERT_FALSE(r) << c.file;
    EXPECT_NE(r.error().message().find(c.why), std::string::npos) << r.error().message();
  }
}

TEST(Import, ATarballRepeatingADirectoryGivesALayerNamingEachPathOnce) {
  // GNU tar of "." then of "./etc" again, as scripts appending to a rootfs do.
  testing::TempDir d;
  auto paths = make_rootfs(d / "root");
  std::string root = shell_quote((d / "root").string()), tarball = shell_quote((d / "rootfs.tar").string());
  ASSERT_EQ(shell("tar -C " + root + " -cf " + tarball + " . && tar -C " + root + " -rf " + tarball + " ./etc ./usr/bin")
                .status,
            0);
  ASSERT_NE(shell("tar -tf " + tarball + " | sort | uniq -d").out, "") << "the input repeats paths";
  testing::TestStore s;
  auto r = run(d / "rootfs.tar", s);
  ASSERT_FALSE(r) << "a repeated file is refused, not guessed";
  ASSERT_EQ(shell("tar -C " + root + " -cf " + tarball + " . && tar -C " + root + " --no-recursion -rf " + tarball +
                  " ./etc ./usr/bin ./usr")
                .status,
            0);
  testing::TestStore s2;
  auto ok = run(d / "rootfs.tar", s2);
  ASSERT_TRUE(ok) << ok.error().message();
  auto n = testing::read_refusing_duplicates(s2, ok->layer);
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_EQ(*n, paths.size());
}

TEST(Import, BadChangeFailsBeforeReadingTheTarball) {
  testing::TestStore s;
  ImportOptions o;
  o.changes = {"RUN rm -rf /"};
  auto r = run("/nonexistent.tar", s, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("unsupported instruction"), std::string::npos) << r.error().message();
}

TEST(Import, SourceDateEpochMustBeDecimal) {
  EXPECT_EQ(*parse_source_date_epoch("1700000000"), 1700000000);
  for (const char* bad : {"", "-1", "17e8", " 1", "1.5", "abc", "99999999999999999999"}) {
    auto r = parse_source_date_epoch(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message().find("SOURCE_DATE_EPOCH"), std::string::npos);
  }
}

}  // namespace
}  // namespace strata::layer
