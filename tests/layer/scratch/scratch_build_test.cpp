// strata build --base scratch on the scratch fixture archive (testdata/scratch):
// the package set is the variant's (Essential, required, apt) plus what was
// asked for and their dependencies; the root has the merged-/usr skeleton,
// accounts, shells, base-files' defaults, the dpkg database and the config
// Debian's images carry; umoci unpacks it, a program runs in it with chroot,
// and two builds in different environments give the same digest.
#include <gtest/gtest.h>

#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <memory>

#include "support/json_run.hpp"
#include "support/served_archive.hpp"
#include "support/source_dir.hpp"
#include "support/temp_dir.hpp"
#include "support/unique_paths.hpp"

namespace strata::testing {
namespace {

namespace stdfs = std::filesystem;

// The signed fixture archive, served over loopback HTTP, once per binary.
class ScratchArchive {
 public:
  static ScratchArchive& get() {
    static ScratchArchive* a = new ScratchArchive;
    return *a;
  }
  const stdfs::path& sources() const { return sources_; }

 private:
  ScratchArchive() {
    char tmpl[] = "/tmp/strata-scratch-XXXXXX";
    root_ = ::mkdtemp(tmpl);
    archive_ = std::make_unique<ServedArchive>(root_ / "archive", source_dir() / "testdata/scratch");
    sources_ = archive_->write_sources(root_ / "scratch.list");
  }
  stdfs::path root_, sources_;
  std::unique_ptr<ServedArchive> archive_;
};

JsonRun build(const stdfs::path& home, const stdfs::path& layout, const std::vector<std::string>& args,
            const std::string& env = "SOURCE_DATE_EPOCH=1700000000") {
  std::vector<std::string> argv{strata_binary(), "--json", "--home", home.string(), "build", "--base", "scratch",
                                "--sources", ScratchArchive::get().sources().string(), "--platform", "linux/amd64",
                                "--dest", "oci:" + layout.string() + ":root"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_json(argv, env);
}

std::vector<std::string> names(const nlohmann::json& j) {
  std::vector<std::string> out;
  for (const auto& p : j["packages"]) out.push_back(p["name"].get<std::string>());
  return out;
}

stdfs::path unpack(const stdfs::path& layout, const stdfs::path& bundle) {
  auto r = run({"umoci", "unpack", "--rootless", "--image", layout.string() + ":root", bundle.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  return bundle / "rootfs";
}

std::string mode_of(const stdfs::path& p) { return sh("stat -c '%a %F' " + shell_quote(p.string())); }

// "uid/gid" of a path as the image's layer records it (umoci --rootless
// gives every file to the caller, so the unpacked tree cannot say).
std::string owner_in_layer(const stdfs::path& layout, const std::string& path) {
  auto manifest = nlohmann::json::parse(run({strata_binary(), "inspect", "oci:" + layout.string() + ":root"}).out);
  std::string digest = manifest["layers"].back()["digest"];
  std::string blob = (layout / "blobs/sha256" / digest.substr(7)).string();
  std::string line = sh("tar --numeric-owner -tvzf " + blob + " " + shell_quote(path));
  auto words = line.find(' ');
  return line.substr(words + 1, line.find(' ', words + 1) - words - 1);
}

TEST(ScratchBuild, PackageSetIsTheVariantsPlusTheRequestAndDependencies) {
  TempDir t;
  auto minbase = build(t / "home", t / "out", {"hello-user"});
  ASSERT_EQ(minbase.run.code, 0) << minbase.run.err;
  EXPECT_EQ(names(minbase.json),
            (std::vector<std::string>{"apt", "base-files", "base-passwd", "debianutils", "extra-tool", "hello-user",
                                      "libc-bin", "libtiny", "required-tool", "tinysh"}));
  auto essential = build(t / "home", t / "out2", {"--variant", "essential"});
  ASSERT_EQ(essential.run.code, 0) << essential.run.err;
  EXPECT_EQ(names(essential.json),
            (std::vector<std::string>{"base-files", "base-passwd", "debianutils", "libtiny", "tinysh"}));
  auto bad = build(t / "home", t / "out3", {"--variant", "buildd"});
  EXPECT_NE(bad.run.code, 0);
  EXPECT_NE(bad.run.err.find("--variant buildd"), std::string::npos) << bad.run.err;
}

TEST(ScratchBuild, RootFilesystemConfigAndDatabase) {
  TempDir t;
  auto b = build(t / "home", t / "out", {"hello-user"});
  ASSERT_EQ(b.run.code, 0) << b.run.err;
  // What is not reproduced: --json lists it, stderr counts it.
  std::string reported;
  for (const auto& u : b.json["not_reproduced"]) reported += u.get<std::string>() + "\n";
  EXPECT_NE(reported.find("hello-user: postinst not run"), std::string::npos) << reported;
  EXPECT_EQ(reported.find("base-passwd: postinst"), std::string::npos) << "reproduced, not reported\n" << reported;
  EXPECT_NE(b.run.err.find("reproduced: dpkg database, alternatives, scratch root; " +
                           std::to_string(b.json["not_reproduced"].size()) + " script actions not reproduced"),
            std::string::npos) << b.run.err;
  auto root = unpack(t / "out", t / "bundle");

  // Its SBOM and provenance are attached, made from what the build wrote
  // (its base is the empty skeleton the layer itself carries): the packages
  // an SBOM derived from the image lists, in the one layer.
  EXPECT_EQ(b.run.err.find("not attached"), std::string::npos) << b.run.err;
  const std::string ref = "oci:" + (t / "out").string() + ":root";
  auto packages_of = [](const std::string& spdx) {
    std::set<std::string> out;
    const auto doc = nlohmann::json::parse(spdx);
    for (const auto& p : doc["packages"])
      if (p["SPDXID"].get<std::string>().starts_with("SPDXRef-Package-deb-"))
        out.insert(p["name"].get<std::string>() + " " + p["versionInfo"].get<std::string>());
    return out;
  };
  auto attached = run({strata_binary(), "--home", (t / "home").string(), "sbom", ref});
  auto derived = run({strata_binary(), "--home", (t / "home").string(), "sbom", "--derive", ref});
  ASSERT_EQ(attached.code, 0) << attached.err;
  ASSERT_EQ(derived.code, 0) << derived.err;
  EXPECT_NE(nlohmann::json::parse(attached.out)["documentNamespace"], nlohmann::json::parse(derived.out)["documentNamespace"])
      << "the attached document, not one derived";
  EXPECT_EQ(packages_of(attached.out), packages_of(derived.out));
  EXPECT_TRUE(packages_of(attached.out).contains("hello-user 1.0-1")) << attached.out.substr(0, 400);
  EXPECT_EQ(run({strata_binary(), "--home", (t / "home").string(), "sbom", "--provenance", ref}).code, 0);

  // Merged /usr, with package files placed through the links.
  for (std::string l : {"bin", "sbin", "lib", "lib64"}) {
    EXPECT_EQ(sh("readlink " + (root / l).string()), "usr/" + l + "\n") << l;
  }
  EXPECT_TRUE(stdfs::is_regular_file(root / "usr/bin/tinysh"));
  EXPECT_TRUE(stdfs::is_regular_file(root / "usr/lib/x86_64-linux-gnu/libtiny.so.1"));
  EXPECT_EQ(sh("chroot " + root.string() + " /bin/sh -c id"), "tinysh -c id\n");
  EXPECT_EQ(mode_of(root / "tmp"), "1777 directory\n");
  EXPECT_EQ(mode_of(root / "root"), "700 directory\n");
  EXPECT_EQ(mode_of(root / "etc/machine-id"), "444 regular empty file\n");

  // Accounts from base-passwd's master files, shadow with the epoch's day.
  EXPECT_EQ(sh("head -1 " + (root / "etc/passwd").string()), "root:x:0:0:root:/root:/bin/tinysh\n");
  EXPECT_EQ(sh("grep ^staff: " + (root / "etc/group").string()), "staff:x:50:alice\n");
  EXPECT_EQ(sh("head -1 " + (root / "etc/shadow").string()), "root:*:19675:0:99999:7:::\n");
  EXPECT_EQ(sh("grep ^staff: " + (root / "etc/gshadow").string()), "staff:*::alice\n");
  EXPECT_EQ(mode_of(root / "etc/shadow"), "640 regular file\n");
  EXPECT_EQ(owner_in_layer(t / "out", "etc/shadow"), "0/42");
  EXPECT_EQ(owner_in_layer(t / "out", "etc/gshadow"), "0/42");
  EXPECT_EQ(sh("getent -s files passwd _apt 2>/dev/null || grep ^_apt: " + (root / "etc/passwd").string()).substr(0, 5),
            "_apt:");

  // update-shells: template, declared shells, then their merged-/usr twins.
  EXPECT_EQ(sh("cat " + (root / "etc/shells").string()),
            "# /etc/shells: valid login shells\n/bin/sh\n/bin/tinysh\n/usr/bin/sh\n/usr/bin/tinysh\n");

  // base-files' postinst.
  EXPECT_EQ(sh("cat " + (root / "etc/motd").string()), "welcome to the scratch fixture\n");
  EXPECT_EQ(sh("cat " + (root / "root/.bashrc").string()), "# ~/.bashrc\n");
  EXPECT_EQ(mode_of(root / "var/mail"), "2775 directory\n");
  EXPECT_EQ(owner_in_layer(t / "out", "var/mail"), "0/8");
  EXPECT_EQ(mode_of(root / "var/log/wtmp"), "664 regular empty file\n");
  EXPECT_EQ(owner_in_layer(t / "out", "var/log/wtmp"), "0/43");
  EXPECT_EQ(sh("readlink " + (root / "usr/local/man").string()), "share/man\n");
  EXPECT_EQ(sh("readlink " + (root / "etc/dpkg/origins/default").string()), "debian\n");

  // Other fresh-install defaults; the rest of those scripts is reported.
  EXPECT_EQ(sh("cat " + (root / "etc/nsswitch.conf").string()), "passwd: files\ngroup: files\n");
  EXPECT_NE(reported.find("libc-bin: postinst not run; only its update-alternatives calls, the ldconfig cache, "
                          "and the fresh-install files /etc/nsswitch.conf are reproduced"),
            std::string::npos) << reported;

  // Alternatives from a postinst, through /bin → usr/bin.
  EXPECT_EQ(sh("readlink " + (root / "usr/bin/which").string()), "/etc/alternatives/which\n");
  EXPECT_EQ(sh("readlink " + (root / "etc/alternatives/which").string()), "/bin/which.debianutils\n");

  // dpkg database and apt's view.
  std::string admin = (root / "var/lib/dpkg").string();
  std::string listed = sh("dpkg-query --admindir=" + admin + " -W -f='${Package} ${db:Status-Abbrev}\\n'");
  for (std::string p : {"base-files", "base-passwd", "debianutils", "tinysh", "libtiny", "apt", "hello-user"}) {
    EXPECT_NE(listed.find(p + " ii "), std::string::npos) << p << " in\n" << listed;
  }
  EXPECT_NE(sh("dpkg-query --admindir=" + admin + " -L tinysh").find("/bin/tinysh"), std::string::npos);
  EXPECT_EQ(sh("cat " + (root / "var/lib/dpkg/arch").string()), "amd64\n");
  EXPECT_TRUE(stdfs::exists(root / "var/lib/dpkg/available"));
  std::string states = sh("cat " + (root / "var/lib/apt/extended_states").string());
  EXPECT_NE(states.find("Package: libtiny\n"), std::string::npos) << states;
  EXPECT_EQ(states.find("Package: tinysh\n"), std::string::npos) << states;
  std::string sources = sh("cat " + (root / "etc/apt/sources.list.d/strata.sources").string());
  EXPECT_NE(sources.find("Suites: stable\nComponents: main\nSigned-By: "), std::string::npos) << sources;

  // Config as Debian's images have it; no base digest for a scratch base.
  auto config = nlohmann::json::parse(sh("cat " + (t / "bundle/config.json").string()));
  auto inspect = nlohmann::json::parse(
      run({strata_binary(), "inspect", "--config", "oci:" + (t / "out").string() + ":root"}).out);
  EXPECT_EQ(inspect["config"]["Env"],
            nlohmann::json::array({"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}));
  EXPECT_EQ(inspect["config"]["Cmd"], nlohmann::json::array({"/bin/bash"}));
  EXPECT_EQ(inspect["created"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(inspect["rootfs"]["diff_ids"].size(), 1u);
  auto manifest = nlohmann::json::parse(run({strata_binary(), "inspect", "oci:" + (t / "out").string() + ":root"}).out);
  EXPECT_FALSE(manifest["annotations"].contains("org.opencontainers.image.base.digest"));
  EXPECT_FALSE(manifest["annotations"].contains("org.opencontainers.image.base.name")) << "no base, by name or digest";
  EXPECT_NE(manifest["annotations"]["dev.strata.overlay.unreproduced"].get<std::string>().find("hello-user"),
            std::string::npos);
  (void)config;
}

TEST(ScratchBuild, EveryPathOnceWithTheScriptsDirectoryModes) {
  // base-files ships /tmp and /root, and the effects make them 1777 and
  // 0700 again: one entry each, as Docker and podman require.
  TempDir t;
  auto b = build(t / "home", t / "out", {"extra-tool"});
  ASSERT_EQ(b.run.code, 0) << b.run.err;
  auto manifest = nlohmann::json::parse(run({strata_binary(), "inspect", "oci:" + (t / "out").string() + ":root"}).out);
  std::string digest = manifest["layers"].back()["digest"];
  auto n = read_refusing_duplicates(t / "out/blobs/sha256" / digest.substr(7));
  ASSERT_TRUE(n) << n.error().message();
  std::string listing = sh("tar -tvzf " + (t / "out/blobs/sha256" / digest.substr(7)).string() + " tmp/ root/");
  EXPECT_NE(listing.find("drwxrwxrwt"), std::string::npos) << listing;
  EXPECT_NE(listing.find("drwx------"), std::string::npos) << listing;
}

TEST(ScratchBuild, ReproducibleAcrossHomesUmaskAndTimezone) {
  TempDir t;
  auto a = build(t / "home-a", t / "a", {"hello-user"}, "SOURCE_DATE_EPOCH=1700000000 TZ=UTC");
  auto b = run({"/bin/sh", "-c",
                "umask 077; SOURCE_DATE_EPOCH=1700000000 TZ=Pacific/Kiritimati LC_ALL=C.UTF-8 " +
                    shell_quote(strata_binary()) + " --json --jobs 1 --home " + shell_quote((t / "home-b").string()) +
                    " build --base scratch --sources " + shell_quote(ScratchArchive::get().sources().string()) +
                    " --platform linux/amd64 --dest oci:" + shell_quote((t / "b").string()) + ":root hello-user"});
  ASSERT_EQ(a.run.code, 0) << a.run.err;
  ASSERT_EQ(b.code, 0) << b.err;
  auto bj = nlohmann::json::parse(b.out);
  EXPECT_EQ(a.digest, bj["digest"].get<std::string>());
  EXPECT_FALSE(a.json["cached"].get<bool>());
  EXPECT_FALSE(bj["cached"].get<bool>());
  // The same request again is a cache hit with the same digest.
  auto again = build(t / "home-a", t / "a", {"hello-user"}, "SOURCE_DATE_EPOCH=1700000000");
  ASSERT_EQ(again.run.code, 0) << again.run.err;
  EXPECT_TRUE(again.json["cached"].get<bool>());
  EXPECT_EQ(again.digest, a.digest);
  // Uncompressed: another key and digest, the same tar (diff_ids) as the gzip root.
  auto plain = run({"/bin/sh", "-c",
                    "SOURCE_DATE_EPOCH=1700000000 " + shell_quote(strata_binary()) + " --json --home " +
                        shell_quote((t / "home-a").string()) + " build --base scratch --sources " +
                        shell_quote(ScratchArchive::get().sources().string()) +
                        " --platform linux/amd64 --compression none --dest oci:" + shell_quote((t / "p").string()) +
                        ":root hello-user"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(nlohmann::json::parse(plain.out)["digest"].get<std::string>(), a.digest);
  auto rootfs = [&](const std::string& dir) {
    return nlohmann::json::parse(run({"skopeo", "inspect", "--config", "oci:" + (t / dir).string() + ":root"}).out)["rootfs"];
  };
  EXPECT_EQ(rootfs("p"), rootfs("a"));
}

}  // namespace
}  // namespace strata::testing
