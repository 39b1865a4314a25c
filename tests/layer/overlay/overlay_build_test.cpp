// strata build on the fixture archive (testdata/overlay): the overlay runs
// (chroot into the umoci-unpacked image), dpkg/apt see the packages, the
// alternatives and ld.so.cache are what dpkg and ldconfig would leave, the
// build is reproducible and fragments are reused across combinations.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "layer/overlay/overlay_fixture.hpp"
#include "support/json_run.hpp"
#include "support/temp_dir.hpp"
#include "support/unique_paths.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"

namespace strata::testing {
namespace {

namespace stdfs = std::filesystem;

// Runs `strata --json build` into oci:<dir>:<tag>.
JsonRun build(const stdfs::path& home, const stdfs::path& layout, const std::string& tag,
            std::vector<std::string> packages, const std::vector<std::string>& extra = {},
            const std::string& env = "") {
  auto& fx = OverlayFixture::get();
  std::vector<std::string> argv{strata_binary(), "--json", "--home", home.string(), "build", "--base", fx.base_ref(),
                                "--sources", fx.sources().string(), "--platform", "linux/amd64",
                                "--dest", "oci:" + layout.string() + ":" + tag};
  argv.insert(argv.end(), packages.begin(), packages.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_json(argv, env);
}

stdfs::path unpack(const stdfs::path& layout, const std::string& tag, const stdfs::path& bundle) {
  auto r = run({"umoci", "unpack", "--rootless", "--image", layout.string() + ":" + tag, bundle.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  return bundle / "rootfs";
}

const std::vector<std::string> kFull{"greet", "hello-static", "hello-other", "daemon-user", "diverted-tool",
                                     "shared-a", "shared-b"};

// The blob of the image's last layer (the overlay's) in an OCI layout.
stdfs::path top_layer(const stdfs::path& layout, const std::string& tag) {
  auto manifest = nlohmann::json::parse(sh("skopeo inspect --raw oci:" + layout.string() + ":" + tag));
  return layout / "blobs/sha256" / manifest["layers"].back()["digest"].get<std::string>().substr(7);
}

TEST(OverlayBuild, EveryPathOnceDirectoriesFirstAndAWarmBuildReusesEveryPiece) {
  // What Docker's layer store and containers/storage ask of a layer: shared
  // directories (usr/share/doc, usr/bin), a file Replaces moves to another
  // package (shared-b over shared-a), a Multi-Arch: same pair, a replacing
  // package laid down after one it sorts before.
  TempDir t;
  struct Case {
    std::string tag;
    std::vector<std::string> packages;
  };
  for (const auto& c : std::vector<Case>{{"full", kFull},
                                          {"ma", {"libgreet1", "libgreet1:i386", "greet"}},
                                          {"early", {"shared-c", "early-shared"}}}) {
    auto b = build(t / "home", t / "out", c.tag, c.packages);
    ASSERT_EQ(b.run.code, 0) << b.run.err;
    auto layer = top_layer(t / "out", c.tag);
    auto n = read_refusing_duplicates(layer);
    EXPECT_TRUE(n) << c.tag << ": " << n.error().message();
    // Directories come first, then no directory again.
    std::string listing = sh("zcat " + layer.string() + " | tar -t");
    std::istringstream lines(listing);
    bool files_started = false;
    for (std::string name; std::getline(lines, name);) {
      bool is_dir = name.ends_with('/');
      EXPECT_FALSE(is_dir && files_started) << c.tag << ": directory " << name << " after a file";
      files_started = files_started || !is_dir;
    }
    EXPECT_NE(listing.find("usr/share/doc/" + c.packages.front() + "/\n"), std::string::npos) << listing;
  }
  auto root = unpack(t / "out", "full", t / "bundle");
  EXPECT_EQ(sh("cat " + (root / "usr/share/shared/file").string()), "from shared-b\n");
  EXPECT_EQ(sh("chroot " + root.string() + " /usr/bin/greet once"), "hello, once, from libgreet\n");
  EXPECT_EQ(stdfs::hard_link_count(root / "usr/bin/hello-static"), 2u);

  // shared-a's fragment without the file shared-b replaces is cached beside it.
  std::size_t pieces = 0;
  for (const auto& d : stdfs::recursive_directory_iterator(t / "home/fragments")) {
    if (d.path().filename().string().starts_with("without-")) ++pieces;
  }
  EXPECT_GE(pieces, 1u);
  auto warm = build(t / "home", t / "warm", "full", kFull);
  ASSERT_EQ(warm.run.code, 0) << warm.run.err;
  EXPECT_EQ(warm.json["fragments_converted"], 0);
  auto first = build(t / "home", t / "out", "full-again", kFull);
  EXPECT_EQ(warm.digest, first.digest);
  EXPECT_EQ(sh("cmp " + top_layer(t / "warm", "full").string() + " " + top_layer(t / "out", "full").string() +
               " && echo same"),
            "same\n");
}

TEST(OverlayBuild, ProgramsRunAndDatabasesSeeThePackages) {
  TempDir t;
  auto b = build(t / "home", t / "out", "full", kFull);
  ASSERT_EQ(b.run.code, 0) << b.run.err;
  // One summary line per platform on stderr; the actions not reproduced in --json (and with -v).
  // adduser is reproduced (the account is in /etc/passwd below); systemd-sysusers is not.
  const std::string adduser = "daemon-user: postinst creates users (systemd-sysusers); not reproduced";
  EXPECT_EQ(b.run.err.find(adduser), std::string::npos) << b.run.err;
  EXPECT_NE(b.run.err.find("linux/amd64: 8 packages (8 converted, 0 reused); reproduced: dpkg database, alternatives, "
                           "ldconfig, system accounts; 2 script actions not reproduced (strata build --verbose lists them; also in "
                           "--json and the image annotation)\n"),
            std::string::npos) << b.run.err;
  EXPECT_NE(std::find(b.json["not_reproduced"].begin(), b.json["not_reproduced"].end(), adduser),
            b.json["not_reproduced"].end()) << b.json.dump();
  auto verbose = build(t / "home", t / "out", "again", kFull, {"--verbose", "--max-age", "0s"});
  ASSERT_EQ(verbose.run.code, 0) << verbose.run.err;
  EXPECT_NE(verbose.run.err.find("not reproduced: " + adduser + "\n"), std::string::npos) << verbose.run.err;
  EXPECT_EQ(verbose.digest, b.digest);
  auto root = unpack(t / "out", "full", t / "bundle");

  // A dynamically linked program whose library lives in a directory only
  // /etc/ld.so.conf.d names: it runs only if ld.so.cache is right.
  EXPECT_EQ(sh("chroot " + root.string() + " /usr/bin/greet strata"), "hello, strata, from libgreet\n");
  // Through alternatives (highest priority wins) and a merged-/usr path.
  EXPECT_EQ(sh("chroot " + root.string() + " /usr/bin/hello"), "static hello via hello\n");
  EXPECT_EQ(sh("chroot " + root.string() + " /bin/hi"), "static hello via hi\n");
  EXPECT_NE(slurp(root / "etc/passwd").find("\ndaemonuser:"), std::string::npos) << "adduser --system, reproduced";
  EXPECT_EQ(sh("readlink " + (root / "etc/alternatives/hello").string()), "/bin/hello-static\n");
  EXPECT_EQ(sh("readlink " + (root / "usr/bin/hello").string()), "/etc/alternatives/hello\n");
  EXPECT_FALSE(stdfs::exists(root / "etc/alternatives/hello.1.gz")) << "slave whose target is missing";
  EXPECT_TRUE(stdfs::is_symlink(root / "bin")) << "/bin must stay a symlink to usr/bin";
  EXPECT_TRUE(stdfs::exists(root / "usr/bin/hello-static"));
  EXPECT_EQ(stdfs::hard_link_count(root / "usr/bin/hello-static"), 2u);
  EXPECT_EQ(sh("cat " + (root / "var/lib/dpkg/alternatives/hello").string()),
            "auto\n/usr/bin/hello\nhello.1.gz\n/usr/share/man/man1/hello.1.gz\nhi\n/usr/bin/hi\n\n"
            "/bin/hello-static\n50\n/usr/share/man/man1/hello-static.1.gz\n/bin/hello-hard\n"
            "/usr/bin/hello-other\n20\n\n/usr/bin/hello-other\n\n");
  // Path filter, diversion, Replaces.
  EXPECT_FALSE(stdfs::exists(root / "usr/share/doc/hello-static/extra.txt"));
  EXPECT_TRUE(stdfs::exists(root / "usr/share/doc/hello-static/README"));
  EXPECT_FALSE(stdfs::exists(root / "usr/bin/diverted-tool"));
  EXPECT_TRUE(stdfs::exists(root / "usr/bin/diverted-tool.distrib"));
  EXPECT_EQ(sh("cat " + (root / "usr/share/shared/file").string()), "from shared-b\n");

  // dpkg and apt.
  std::string admin = (root / "var/lib/dpkg").string();
  std::string listed = sh("dpkg-query --admindir=" + admin + " -W -f='${Package}:${Architecture} ${db:Status-Abbrev}\\n'");
  for (std::string p : {"base-files:amd64", "greet:amd64", "libgreet1:amd64", "hello-static:amd64", "daemon-user:all"}) {
    EXPECT_NE(listed.find(p + " ii "), std::string::npos) << p << " in\n" << listed;
  }
  EXPECT_NE(sh("dpkg-query --admindir=" + admin + " -L hello-static").find("/bin/hello-static"), std::string::npos);
  EXPECT_NE(sh("dpkg-query --admindir=" + admin + " -L libgreet1:amd64").find("/usr/lib/greet/x86_64-linux-gnu/libgreet.so.1.0"),
            std::string::npos);
  std::string conffiles = sh("dpkg-query --admindir=" + admin + " -W -f='${Conffiles}' hello-static");
  std::string md5 = sh("md5sum < " + (root / "etc/hello.conf").string()).substr(0, 32);
  EXPECT_EQ(conffiles, " /etc/hello.conf " + md5);
  EXPECT_TRUE(stdfs::exists(root / "var/lib/dpkg/info/libgreet1:amd64.md5sums"));
  EXPECT_TRUE(stdfs::exists(root / "var/lib/dpkg/info/hello-static.postinst"));
  std::string states = sh("cat " + (root / "var/lib/apt/extended_states").string());
  EXPECT_NE(states.find("Package: libgreet1\nArchitecture: amd64\nAuto-Installed: 1\n"), std::string::npos) << states;
  EXPECT_EQ(states.find("Package: greet\n"), std::string::npos) << "greet was requested";
  // Verify with dpkg itself: every file of every package has its md5sum.
  EXPECT_EQ(run({"dpkg", "--root=" + root.string(), "--verify", "greet", "libgreet1:amd64"}).out, "");

  // ld.so.cache as glibc reads it.
  std::string cache = sh("ldconfig -p -C " + (root / "etc/ld.so.cache").string());
  EXPECT_NE(cache.find("libgreet.so.1 (libc6,x86-64) => /usr/lib/greet/x86_64-linux-gnu/libgreet.so.1"), std::string::npos)
      << cache;
  EXPECT_NE(cache.find("libc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6"), std::string::npos) << cache;
}

TEST(OverlayBuild, ReproducibleAcrossHomesUmaskTimezoneLocaleAndJobs) {
  TempDir t;
  auto a = build(t / "home-a", t / "a", "x", kFull, {}, "umask 022; TZ=UTC LANG=C");
  auto b = build(t / "home-b", t / "b", "x", kFull, {"--jobs", "1"},
                 "umask 077; TZ=Pacific/Kiritimati LANG=de_DE.UTF-8 LC_ALL=de_DE.UTF-8");
  ASSERT_EQ(a.run.code, 0) << a.run.err;
  ASSERT_EQ(b.run.code, 0) << b.run.err;
  EXPECT_EQ(a.digest, b.digest);
  EXPECT_EQ(a.json["key"], b.json["key"]);
  auto z1 = build(t / "home-a", t / "z1", "x", kFull, {"--compression", "zstd"});
  auto z2 = build(t / "home-c", t / "z2", "x", kFull, {"--compression", "zstd", "--jobs", "3"});
  ASSERT_EQ(z1.run.code, 0) << z1.run.err;
  EXPECT_EQ(z1.digest, z2.digest);
  EXPECT_NE(z1.digest, a.digest);
  auto n1 = build(t / "home-a", t / "n1", "x", kFull, {"--compression", "none"});
  auto n2 = build(t / "home-d", t / "n2", "x", kFull, {"--compression", "none", "--jobs", "3"});
  ASSERT_EQ(n1.run.code, 0) << n1.run.err;
  EXPECT_EQ(n1.digest, n2.digest);
  EXPECT_NE(n1.json["key"], a.json["key"]);  // the key names the compression
  // The plain layer is the gzip layer's content: same diff_id.
  auto config = [&](const stdfs::path& dir) {
    return nlohmann::json::parse(sh("skopeo inspect --config oci:" + dir.string() + ":x"));
  };
  EXPECT_EQ(config(t / "n1")["rootfs"], config(t / "a")["rootfs"]);
}

TEST(OverlayBuild, FragmentsAreReusedAndTheKeyIsACacheHit) {
  TempDir t;
  auto first = build(t / "home", t / "out", "one", {"greet"});
  ASSERT_EQ(first.run.code, 0) << first.run.err;
  EXPECT_EQ(first.json["fragments_converted"], 2);  // greet, libgreet1
  EXPECT_EQ(first.json["cached"], false);
  // Everything cached so far dated long ago: what the next build uses is
  // marked used, so `cache gc` evicts by last use, not by first write.
  auto files_under = [&](const std::string& cache) {
    std::vector<stdfs::path> out;
    for (const auto& e : stdfs::recursive_directory_iterator(t / "home" / cache))
      if (e.is_regular_file()) out.push_back(e.path());
    return out;
  };
  auto mtime = [](const stdfs::path& p) {
    struct stat st{};
    return ::stat(p.c_str(), &st) == 0 ? st.st_mtim.tv_sec : 0;
  };
  for (std::string cache : {"debs", "fragments"}) {
    for (const auto& f : files_under(cache)) {
      const struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
      ASSERT_EQ(::utimensat(AT_FDCWD, f.c_str(), old, 0), 0) << f;
    }
  }
  auto second = build(t / "home", t / "out", "two", {"greet", "hello-static"});
  ASSERT_EQ(second.run.code, 0) << second.run.err;
  EXPECT_EQ(second.json["fragments_converted"], 1);  // only hello-static is new
  EXPECT_EQ(second.json["fragments_reused"], 2);
  std::size_t recent_infos = 0, recent_debs = 0;
  for (const auto& f : files_under("fragments")) recent_infos += f.filename() == "info.bin" && mtime(f) > 1000000000;
  for (const auto& f : files_under("debs")) recent_debs += f.parent_path().filename() == "sha256" && mtime(f) > 1000000000;
  EXPECT_EQ(recent_infos, 3u) << "two reused fragments marked, one new";
  EXPECT_EQ(recent_debs, 3u) << "two cached packages marked, one downloaded";
  auto again = build(t / "home", t / "out", "three", {"hello-static", "greet"});
  ASSERT_EQ(again.run.code, 0) << again.run.err;
  EXPECT_EQ(again.json["cached"], true);
  EXPECT_EQ(again.digest, second.digest);
  auto& fx = OverlayFixture::get();
  auto key = run({strata_binary(), "--home", (t / "home").string(), "key", "--base", fx.base_ref(), "--sources",
                  fx.sources().string(), "--platform", "linux/amd64", "greet", "hello-static"});
  ASSERT_EQ(key.code, 0) << key.err;
  EXPECT_EQ(trim_nl(key.out), second.json["key"].get<std::string>());
  auto tag = sh("cat " + (t / "out/index.json").string());
  EXPECT_NE(tag.find("overlay-" + trim_nl(key.out)), std::string::npos);
  // --max-age 0s: the recorded archive snapshot is older than that, so it rebuilds (same bytes).
  auto rebuilt = build(t / "home", t / "out", "four", {"greet", "hello-static"}, {"--max-age", "0s"});
  ASSERT_EQ(rebuilt.run.code, 0) << rebuilt.run.err;
  EXPECT_EQ(rebuilt.json["cached"], false);
  EXPECT_EQ(rebuilt.digest, second.digest);
}

TEST(OverlayBuild, ABuildFromTheLockFindsTheOverlayItsResolvingBuildMade) {
  // A resolving build tags its overlay with the content key of its lock too
  // (docs/format/overlay.md "Cache keys"), so a --lock build finds it: a
  // cache hit, the same image.
  TempDir t;
  auto first = build(t / "home", t / "out", "x", {"greet"}, {"--lock-out", (t / "greet.lock").string()});
  ASSERT_EQ(first.run.code, 0) << first.run.err;
  EXPECT_NE(sh("cat " + (t / "greet.lock").string()).find("keys: [\"sha256:"), std::string::npos);
  auto from_lock = build(t / "home", t / "out", "y", {}, {"--lock", (t / "greet.lock").string()});
  ASSERT_EQ(from_lock.run.code, 0) << from_lock.run.err;
  EXPECT_NE(from_lock.json["key"], first.json["key"]) << "a content key, not a request key";
  EXPECT_EQ(from_lock.json["cached"], true);
  EXPECT_EQ(from_lock.digest, first.digest);
  auto elsewhere = build(t / "home-2", t / "out-2", "x", {}, {"--lock", (t / "greet.lock").string()});
  ASSERT_EQ(elsewhere.run.code, 0) << elsewhere.run.err;
  EXPECT_EQ(elsewhere.json["cached"], false);
  EXPECT_EQ(elsewhere.digest, first.digest) << "rebuilt from the lock: the same bytes";
}

TEST(OverlayBuild, ADamagedCachedFragmentIsRefusedNotUsed) {
  TempDir t;
  auto first = build(t / "home", t / "a", "x", {"hello-static"});
  ASSERT_EQ(first.run.code, 0) << first.run.err;
  std::vector<stdfs::path> dirs;
  for (const auto& d : stdfs::directory_iterator(t / "home/fragments")) dirs.push_back(d.path());
  ASSERT_EQ(dirs.size(), 1u);
  int n = 0;
  for (std::string file : {"data.tar", "data.tar.gz"}) {
    // Same size, one byte changed: only the recorded CRC-32 can tell.
    stdfs::path p = dirs[0] / file;
    std::string bytes = fs::read_file(p).value();
    std::string damaged = bytes;
    damaged[damaged.size() / 2] ^= 0x20;
    ASSERT_TRUE(fs::write_file_atomic(p, damaged));
    auto bad = build(t / "home", t / "out", "d" + std::to_string(n++), {"hello-static"});
    EXPECT_NE(bad.run.code, 0) << file;
    EXPECT_NE(bad.run.err.find(p.string() + ": cached fragment of hello-static is damaged"), std::string::npos)
        << bad.run.err;
    // The layer was being written as it was read: none of it is left.
    for (const auto& e : stdfs::recursive_directory_iterator(t / "out")) {
      auto rel = e.path().lexically_relative(t / "out").string();
      if (rel.starts_with("blobs/sha256/") && e.is_regular_file()) {
        EXPECT_EQ(sha256_hex(fs::read_file(e.path()).value()), e.path().filename().string()) << rel;
      }
      EXPECT_FALSE(rel.starts_with(".strata/ingest/")) << rel << " left by a failed build";
    }
    ASSERT_TRUE(fs::write_file_atomic(p, bytes));
  }
  stdfs::remove_all(dirs[0]);  // what the message says to do: converted again, same bytes
  auto again = build(t / "home", t / "b", "x", {"hello-static"});
  ASSERT_EQ(again.run.code, 0) << again.run.err;
  EXPECT_EQ(again.digest, first.digest);
}

// Into an OCI layout the layer is written as it is read (the layout names
// the blob after its bytes); into an oci-archive it is hashed first, then
// written. Both give the same layer, bit for bit.
TEST(OverlayBuild, OneLayerWhetherWrittenAsItIsReadOrHashedFirst) {
  TempDir t;
  auto& fx = OverlayFixture::get();
  for (std::string compression : {"gzip", "none"}) {
    auto layout = build(t / "home", t / ("l-" + compression), "x", kFull, {"--compression", compression});
    ASSERT_EQ(layout.run.code, 0) << layout.run.err;
    std::vector<std::string> argv{strata_binary(), "--json", "--home", (t / "home").string(), "build", "--base",
                                  fx.base_ref(), "--sources", fx.sources().string(), "--platform", "linux/amd64",
                                  "--compression", compression, "--dest",
                                  "oci-archive:" + (t / ("a-" + compression + ".tar")).string() + ":x"};
    argv.insert(argv.end(), kFull.begin(), kFull.end());
    auto archive = run_json(argv);
    ASSERT_EQ(archive.run.code, 0) << archive.run.err;
    EXPECT_EQ(archive.digest, layout.digest) << compression;
  }
}

TEST(OverlayBuild, FilesShippedTwiceNeedReplaces) {
  TempDir t;
  auto bad = build(t / "home", t / "out", "bad", {"shared-a", "shared-c"});
  EXPECT_EQ(bad.run.code, 1);
  EXPECT_NE(bad.run.err.find("/usr/share/shared/file is shipped by both shared-a 1.0-1 and shared-c 1.0-1"),
            std::string::npos) << bad.run.err;
}

TEST(OverlayBuild, AReplacingPackageThatSortsFirstIsLaidDownLast) {
  // early-shared Replaces shared-c and sorts before it: the layer order is not
  // the name order hashing started with, so the digests are redone in the
  // final order. The standard tools must agree with them.
  TempDir t;
  auto b = build(t / "home", t / "out", "x", {"shared-c", "early-shared"});
  ASSERT_EQ(b.run.code, 0) << b.run.err;
  auto manifest = nlohmann::json::parse(sh("skopeo inspect --raw oci:" + (t / "out").string() + ":x"));
  std::string blob = (t / "out/blobs/sha256" / manifest["layers"].back()["digest"].get<std::string>().substr(7)).string();
  EXPECT_EQ("sha256:" + sh("sha256sum " + blob).substr(0, 64), manifest["layers"].back()["digest"]);
  auto config = nlohmann::json::parse(sh("skopeo inspect --config oci:" + (t / "out").string() + ":x"));
  EXPECT_EQ("sha256:" + sh("zcat " + blob + " | sha256sum").substr(0, 64), config["rootfs"]["diff_ids"].back());
  std::string listing = sh("zcat " + blob + " | tar -t");
  EXPECT_LT(listing.find("usr/share/doc/shared-c/README"), listing.find("usr/share/doc/early-shared/README"))
      << listing;
  auto root = unpack(t / "out", "x", t / "bundle");
  EXPECT_EQ(sh("cat " + (root / "usr/share/shared/file").string()), "from early-shared\n");
}

TEST(OverlayBuild, LayersAreValidMultiMemberStreamsForStandardTools) {
  TempDir t;
  auto g = build(t / "home", t / "out", "gz", {"greet", "hello-static"});
  auto z = build(t / "home", t / "out", "zst", {"greet", "hello-static"}, {"--compression", "zstd"});
  auto n = build(t / "home", t / "out", "tar", {"greet", "hello-static"}, {"--compression", "none"});
  ASSERT_EQ(g.run.code, 0) << g.run.err;
  ASSERT_EQ(z.run.code, 0) << z.run.err;
  ASSERT_EQ(n.run.code, 0) << n.run.err;
  for (const auto& [tag, cmd] : {std::pair{"gz", "zcat"}, std::pair{"zst", "zstd -dc"}, std::pair{"tar", "cat"}}) {
    auto manifest = nlohmann::json::parse(sh("skopeo inspect --raw oci:" + (t / "out").string() + ":" + tag));
    std::string layer = manifest["layers"].back()["digest"];
    auto blob = t / "out/blobs/sha256" / layer.substr(7);
    std::string listing = sh(std::string(cmd) + " " + blob.string() + " | tar -t");
    EXPECT_NE(listing.find("usr/bin/greet"), std::string::npos) << tag;
    EXPECT_NE(listing.find("var/lib/dpkg/status"), std::string::npos) << tag;
    std::string diff_id = "sha256:" + sh(std::string(cmd) + " " + blob.string() + " | sha256sum").substr(0, 64);
    auto config = nlohmann::json::parse(sh("skopeo inspect --config oci:" + (t / "out").string() + ":" + tag));
    EXPECT_EQ(config["rootfs"]["diff_ids"].back(), diff_id) << tag;
    auto inspect = nlohmann::json::parse(sh("skopeo inspect oci:" + (t / "out").string() + ":" + tag));
    EXPECT_EQ(inspect["Digest"], (tag == std::string("gz") ? g : tag == std::string("zst") ? z : n).digest);
    EXPECT_EQ(inspect["Layers"].size(), 2u);
  }
  // This umoci has no zstd support: extract the layers with tar and run from there.
  for (std::string tag : {"zst", "tar"}) {
    auto manifest = nlohmann::json::parse(sh("skopeo inspect --raw oci:" + (t / "out").string() + ":" + tag));
    EXPECT_EQ(manifest["layers"].back()["mediaType"],
              tag == "zst" ? "application/vnd.oci.image.layer.v1.tar+zstd" : "application/vnd.oci.image.layer.v1.tar");
    auto root = t / ("root-" + tag);
    stdfs::create_directories(root);
    for (const auto& l : manifest["layers"]) {
      std::string d = l["digest"];
      std::string media = l["mediaType"];
      std::string tool = media.ends_with("zstd") ? "zstd -dc " : media.ends_with("gzip") ? "zcat " : "cat ";
      sh(tool + (t / "out/blobs/sha256" / d.substr(7)).string() + " | tar -x -C " + root.string());
    }
    EXPECT_EQ(sh("chroot " + root.string() + " /usr/bin/greet"), "hello, world, from libgreet\n") << tag;
  }
}

TEST(OverlayBuild, SeveralPlatformsBuildFromOneArchiveIntoAnIndex) {
  TempDir t;
  auto& fx = OverlayFixture::get();
  std::string base = multi_arch_base(t / "base", t / "work");
  auto build_both = [&](const std::string& home, const std::string& out, const std::string& jobs) {
    return run({strata_binary(), "--json", "--home", (t / home).string(), "--jobs", jobs, "build", "--base", base,
                "--sources", fx.sources().string(), "--platform", "linux/amd64,linux/arm64", "--dest",
                "oci:" + (t / out).string() + ":both", "libgreet1", "shared-a"});
  };
  auto r = build_both("home", "out", "2");
  ASSERT_EQ(r.code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  std::string layout = (t / "out").string();
  auto index = nlohmann::json::parse(sh("skopeo inspect --raw oci:" + layout + ":both"));
  EXPECT_EQ(index["mediaType"], "application/vnd.oci.image.index.v1+json");
  EXPECT_EQ("sha256:" + sh("skopeo inspect --raw oci:" + layout + ":both | sha256sum").substr(0, 64), out["digest"]);
  ASSERT_EQ(index["manifests"].size(), 2u);
  std::map<std::string, std::string> triplet{{"amd64", "x86_64-linux-gnu"}, {"arm64", "aarch64-linux-gnu"}};
  for (const auto& m : index["manifests"]) {
    std::string arch = m["platform"]["architecture"];
    ASSERT_TRUE(triplet.contains(arch)) << arch;
    std::string digest = m["digest"];
    auto manifest = nlohmann::json::parse(sh("cat " + layout + "/blobs/sha256/" + digest.substr(7)));
    std::string config_digest = manifest["config"]["digest"];
    auto config = nlohmann::json::parse(sh("cat " + layout + "/blobs/sha256/" + config_digest.substr(7)));
    EXPECT_EQ(config["architecture"], arch);
    EXPECT_NE(manifest["annotations"]["dev.strata.overlay.packages"].get<std::string>().find("libgreet1=1.0-1:" + arch),
              std::string::npos) << manifest.dump();
    std::string layer = manifest["layers"].back()["digest"];
    std::string listing = sh("zcat " + layout + "/blobs/sha256/" + layer.substr(7) + " | tar -t");
    EXPECT_NE(listing.find("usr/lib/greet/" + triplet[arch] + "/libgreet.so.1.0"), std::string::npos) << listing;
    EXPECT_NE(listing.find("usr/share/shared/file"), std::string::npos) << listing;
    for (const auto& [other, t3] : triplet) {
      if (other != arch) {
        EXPECT_EQ(listing.find(t3), std::string::npos) << arch << " layer has " << other << " files";
      }
    }
    std::string status = sh("zcat " + layout + "/blobs/sha256/" + layer.substr(7) + " | tar -xO var/lib/dpkg/status");
    EXPECT_NE(status.find("Package: libgreet1\nStatus: install ok installed\n"), std::string::npos);
    EXPECT_NE(status.find("Architecture: " + arch + "\n"), std::string::npos);
  }
  // index.json holds tagged entries only (the index under its key and the
  // --dest tag, each platform's manifest under its own key): no untagged
  // roots. A copy of the index into another layout (children put before
  // their index) leaves the tagged index alone, its manifests readable by
  // digest; skopeo copies it back out.
  auto tagged_only = [](const std::string& dir) {
    auto top = nlohmann::json::parse(sh("cat " + dir + "/index.json"));
    for (const auto& e : top["manifests"]) {
      if (e.contains("annotations") && e["annotations"].contains("org.opencontainers.image.ref.name")) continue;
      // Untagged: only a referrer (an SBOM or provenance of a platform's manifest).
      auto m = nlohmann::json::parse(sh("cat " + dir + "/blobs/sha256/" + e["digest"].get<std::string>().substr(7)));
      EXPECT_TRUE(m.contains("subject")) << "untagged entry in " << dir << "/index.json: " << e.dump();
    }
    return top["manifests"].size();
  };
  tagged_only(layout);
  std::string copied = (t / "copied").string();
  auto c = run({strata_binary(), "--home", (t / "home").string(), "copy", "--all", "oci:" + layout + ":both",
                "oci:" + copied + ":both"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(tagged_only(copied), 1u);
  for (const auto& m : index["manifests"]) {
    std::string digest = m["digest"];
    auto one = run({strata_binary(), "--home", (t / "home").string(), "inspect", "--raw", "oci:" + copied + ":" + digest});
    EXPECT_EQ(one.code, 0) << one.err;
  }
  EXPECT_EQ(run({"skopeo", "copy", "-q", "--all", "oci:" + copied + ":both", "oci:" + (t / "again").string() + ":both"}).code,
            0);
  // Same bytes from another home with other --jobs.
  auto again = build_both("home-2", "out-2", "1");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["digest"], out["digest"]);
}

TEST(OverlayBuild, AMultiArchSameLibraryForTwoArchitectures) {
  TempDir t;
  auto b = build(t / "home", t / "out", "ma", {"libgreet1", "libgreet1:i386"});
  ASSERT_EQ(b.run.code, 0) << b.run.err;
  std::string layout = (t / "out").string();
  auto manifest = nlohmann::json::parse(sh("skopeo inspect --raw oci:" + layout + ":ma"));
  std::string layer = manifest["layers"].back()["digest"];
  std::string blob = layout + "/blobs/sha256/" + layer.substr(7);
  std::string listing = sh("zcat " + blob + " | tar -t");
  EXPECT_NE(listing.find("usr/lib/greet/x86_64-linux-gnu/libgreet.so.1.0"), std::string::npos) << listing;
  EXPECT_NE(listing.find("usr/lib/greet/i386-linux-gnu/libgreet.so.1.0"), std::string::npos) << listing;
  EXPECT_NE(listing.find("var/lib/dpkg/info/libgreet1:amd64.list"), std::string::npos) << listing;
  EXPECT_NE(listing.find("var/lib/dpkg/info/libgreet1:i386.list"), std::string::npos) << listing;
  // dpkg must know the foreign architecture, as after `dpkg --add-architecture i386`.
  EXPECT_EQ(sh("zcat " + blob + " | tar -xO var/lib/dpkg/arch"), "amd64\ni386\n");
}

}  // namespace
}  // namespace strata::testing
