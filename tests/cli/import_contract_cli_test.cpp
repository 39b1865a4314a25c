// strata import and strata contract scan through the binary: results on
// stdout, exit codes, reproducibility under SOURCE_DATE_EPOCH.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_test.hpp"

namespace strata::testing {
namespace {

class ImportCli : public CliTest {
 protected:
  void make_tree() {
    std::filesystem::create_directories(dir_ / "root/etc/app");
    std::filesystem::create_directories(dir_ / "root/usr/bin");
    std::ofstream(dir_ / "root/etc/app/conf") << "key=value\n";
    std::ofstream(dir_ / "root/usr/bin/tool") << "#!/bin/sh\necho tool\n";
    std::filesystem::create_symlink("../etc/app/conf", dir_ / "root/usr/conf-link");
  }
};

TEST_F(ImportCli, SameTreeDifferentTarballsSameDigest) {
  make_tree();
  auto root = (dir_ / "root").string();
  ASSERT_EQ(run({"tar", "-C", root, "--sort=name", "--owner=0", "--group=0", "-czf", (dir_ / "a.tar.gz").string(), "."}).code, 0);
  ASSERT_EQ(run({"touch", "-d", "2001-02-03", (dir_ / "root/etc/app/conf").string()}).code, 0);
  ASSERT_EQ(run({"tar", "-C", root, "--format=gnu", "--owner=0", "--group=0", "-cf", (dir_ / "b.tar").string(), "usr", "etc"}).code, 0);
  std::string sde = "SOURCE_DATE_EPOCH=946684800";
  auto a = strata({"import", (dir_ / "a.tar.gz").string(), "--dest", "oci:" + (dir_ / "l").string() + ":a"}, sde);
  auto b = strata({"import", (dir_ / "b.tar").string(), "--dest", "oci:" + (dir_ / "l").string() + ":b"}, sde);
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  auto digest = [](const std::string& out) { return trim_nl(out).substr(trim_nl(out).rfind('@') + 1); };
  // Different order, format, compression, ./ prefixes and mtimes (all after
  // the epoch, so clamped): the same image.
  EXPECT_EQ(digest(a.out), digest(b.out));
  auto inspect_a = strata({"inspect", "--config", "--raw", "oci:" + (dir_ / "l").string() + ":a"});
  auto inspect_b = strata({"inspect", "--config", "--raw", "oci:" + (dir_ / "l").string() + ":b"});
  auto ja = nlohmann::json::parse(inspect_a.out), jb = nlohmann::json::parse(inspect_b.out);
  EXPECT_EQ(ja["created"], "2000-01-01T00:00:00Z");
  EXPECT_EQ(ja["created"], jb["created"]);
  EXPECT_FALSE(digest(a.out).empty());
  // Re-importing the same tarball gives the same bytes.
  auto again = strata({"import", (dir_ / "a.tar.gz").string(), "--dest", "oci:" + (dir_ / "l2").string() + ":a"}, sde);
  EXPECT_EQ(digest(again.out), digest(a.out));
}

TEST_F(ImportCli, HostileTarballFailsWithExitOneNamingTheEntry) {
  auto bad = source_dir() / "testdata/bad/layer";
  std::filesystem::path pick;
  for (const auto& f : std::filesystem::directory_iterator(bad))
    if (f.path().filename().string().find("traversal") != std::string::npos) pick = f.path();
  ASSERT_FALSE(pick.empty()) << "no traversal case in " << bad;
  auto r = strata({"import", pick.string(), "--dest", "oci:" + (dir_ / "x").string() + ":x"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(".."), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  auto malformed = strata({"import", pick.string(), "--dest", "oci:" + (dir_ / "y").string() + ":y"}, "SOURCE_DATE_EPOCH=yesterday");
  EXPECT_EQ(malformed.code, 1);
  EXPECT_NE(malformed.err.find("SOURCE_DATE_EPOCH"), std::string::npos) << malformed.err;
}

TEST_F(ImportCli, GzipWithABadCrcIsRefused) {
  make_tree();
  auto tar = (dir_ / "t.tar").string();
  ASSERT_EQ(run({"tar", "-C", (dir_ / "root").string(), "-cf", tar, "."}).code, 0);
  // Deflate level 0 (stored blocks), so a changed byte of content keeps the
  // deflate stream valid and only the member's CRC-32 tells.
  auto gz = (dir_ / "t.tar.gz").string();
  ASSERT_EQ(run({"python3", "-c",
                 "import sys,zlib,struct;d=open(sys.argv[1],'rb').read();c=zlib.compressobj(0,zlib.DEFLATED,-15);"
                 "b=c.compress(d)+c.flush();i=b.find(b'key=value');b=b[:i]+b'kez'+b[i+3:];"
                 "open(sys.argv[2],'wb').write(b'\\x1f\\x8b\\x08\\x00\\x00\\x00\\x00\\x00\\x00\\xff'+b+"
                 "struct.pack('<II',zlib.crc32(d),len(d)&0xffffffff))",
                 tar, gz})
                .code,
            0);
  ASSERT_NE(run({"gzip", "-t", gz}).code, 0) << "the fixture must fail gzip -t";
  auto r = strata({"import", gz, "--dest", "oci:" + (dir_ / "l").string() + ":bad"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.err.find("CRC"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("t.tar.gz"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(ImportCli, SparseFilesAreBoundedAndAllHoleFilesImport) {
  std::filesystem::create_directories(dir_ / "sparse");
  auto sp = (dir_ / "sparse").string();
  std::ofstream(sp + "/disk.img") << "boot sector";  // then a 10 GiB hole
  ASSERT_EQ(run({"truncate", "-s", "10G", sp + "/disk.img"}).code, 0);
  ASSERT_EQ(run({"tar", "--sparse", "-C", sp, "-cf", (dir_ / "bomb.tar").string(), "disk.img"}).code, 0);
  ASSERT_LT(std::filesystem::file_size(dir_ / "bomb.tar"), 64u << 10);
  auto started = std::chrono::steady_clock::now();
  auto bomb = strata({"import", (dir_ / "bomb.tar").string(), "--dest", "oci:" + (dir_ / "l").string() + ":bomb"},
                     "TMPDIR=" + dir_.path().string());
  EXPECT_EQ(bomb.code, 1) << bomb.out;
  EXPECT_NE(bomb.err.find("decompression bomb"), std::string::npos) << bomb.err;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
  // An all-hole file is what GNU tar extracts as zeros: imported as such.
  std::filesystem::remove(sp + "/disk.img");
  ASSERT_EQ(run({"truncate", "-s", "1M", sp + "/hole"}).code, 0);
  ASSERT_EQ(run({"tar", "--sparse", "-C", sp, "-cf", (dir_ / "hole.tar").string(), "hole"}).code, 0);
  auto layout = "oci:" + (dir_ / "l").string() + ":hole";
  auto hole = strata({"import", (dir_ / "hole.tar").string(), "--dest", layout});
  ASSERT_EQ(hole.code, 0) << hole.err;
  ASSERT_EQ(run({"umoci", "unpack", "--rootless", "--image", (dir_ / "l").string() + ":hole",
                 (dir_ / "bundle").string()})
                .code,
            0);
  EXPECT_EQ(slurp(dir_ / "bundle/rootfs/hole"), std::string(1 << 20, '\0'));
}

TEST_F(ImportCli, ContractScanPrintsADocument) {
  auto repo = (source_dir() / "testdata/repos/cmake-native").string();
  auto yaml = strata({"contract", "scan", repo});
  ASSERT_EQ(yaml.code, 0) << yaml.err;
  EXPECT_NE(yaml.out.find("runtime_floors:"), std::string::npos);
  auto json = strata({"--json", "contract", "scan", repo});
  ASSERT_EQ(json.code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["runtime_floors"]["cmake"]["floor"], "3.20.0");
}

// A directory that cannot be read is a failure (1), not a usage error (2):
// docs/contract.md and docs/CLI.md.
TEST_F(ImportCli, ContractScanOfAMissingDirectoryExitsOne) {
  auto missing = (dir_ / "no-such-repo").string();
  auto r = strata({"contract", "scan", missing});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto usage = strata({"contract", "scan"});
  EXPECT_EQ(usage.code, 2) << usage.err;
}

// Bytes that are not UTF-8 (a Latin-1 package.json, a directory name, a
// --change label) reach every output as U+FFFD, never an internal error.
TEST_F(ImportCli, OutputsSurviveBytesThatAreNotUtf8) {
  auto repo = dir_ / "repo";
  std::filesystem::create_directories(repo / "caf\xe9");
  std::ofstream(repo / "package.json") << "{\"name\":\"caf\xe9\",\"engines\":{\"node\":\">=18\"}}";
  std::ofstream(repo / "caf\xe9" / "package.json") << "{\"engines\":{\"node\":\">=20\"}}";
  std::ofstream(repo / "caf\xe9" / ".nvmrc") << "20\xff\n";
  const std::string fffd = "\xef\xbf\xbd";
  for (const auto& args : std::vector<std::vector<std::string>>{{"contract", "scan", repo.string(), "--format", "json"},
                                                                 {"--json", "contract", "scan", repo.string()}}) {
    auto json = strata(args);
    ASSERT_EQ(json.code, 0) << json.err;
    EXPECT_EQ(json.err.find("internal error"), std::string::npos) << json.err;
    auto j = nlohmann::json::parse(json.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << json.out;
    EXPECT_NE(json.out.find(fffd), std::string::npos) << json.out;
    EXPECT_EQ(json.out.find('\xe9'), std::string::npos);
  }
  auto yaml = strata({"contract", "scan", repo.string()});
  ASSERT_EQ(yaml.code, 0) << yaml.err;
  EXPECT_NE(yaml.out.find(fffd), std::string::npos) << yaml.out;
  EXPECT_EQ(yaml.out.find('\xe9'), std::string::npos) << "the YAML carries a byte that is not UTF-8";

  make_tree();
  auto tar = (dir_ / "t.tar").string();
  ASSERT_EQ(run({"tar", "-C", (dir_ / "root").string(), "-cf", tar, "."}).code, 0);
  auto imported = strata({"--json", "import", tar, "--dest", "oci:" + (dir_ / "l").string() + ":latin1", "--change",
                          "LABEL maintainer=Jos\xe9"});
  ASSERT_EQ(imported.code, 0) << imported.err;
  auto cfg = strata({"inspect", "--config", "--raw", "oci:" + (dir_ / "l").string() + ":latin1"});
  ASSERT_EQ(cfg.code, 0) << cfg.err;
  EXPECT_EQ(nlohmann::json::parse(cfg.out)["config"]["Labels"]["maintainer"], "Jos" + fffd);
}

}  // namespace
}  // namespace strata::testing
