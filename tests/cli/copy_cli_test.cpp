// The strata binary end to end on local stores, and interop with umoci and
// skopeo: what they write strata reads, what strata writes they read, and the
// digests agree.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "support/fault_proxy.hpp"
#include "support/random_image.hpp"
#include "support/registry_server.hpp"
#include "support/cli_test.hpp"
#include "support/layout_check.hpp"
#include "oci/layout_store.hpp"

namespace strata::testing {
namespace {

class CopyCli : public CliTest {
 protected:
  std::string hello() const { return "oci:" + (source_dir() / "testdata/images/hello-umoci").string() + ":1.0"; }
};

TEST_F(CopyCli, MainJobDigestsAgreeAcrossStores) {
  auto a = strata({"copy", hello(), "local:strata/hello:1.0"});
  ASSERT_EQ(a.code, 0) << a.err;
  auto digest = trim_nl(a.out).substr(trim_nl(a.out).rfind('@') + 1);
  EXPECT_EQ(trim_nl(a.out), "local:strata/hello:1.0@" + digest);
  auto b = strata({"copy", "local:strata/hello:1.0", "oci:" + (dir_ / "layout").string() + ":hello"});
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_TRUE(trim_nl(b.out).ends_with("@" + digest));
  auto c = strata({"copy", "local:strata/hello:1.0", "docker-archive:" + (dir_ / "h.tar").string() + ":strata/hello:1.0"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_TRUE(trim_nl(c.out).ends_with("@" + digest));
  auto back = strata({"inspect", "--raw", "docker-archive:" + (dir_ / "h.tar").string() + ":strata/hello:1.0"});
  ASSERT_EQ(back.code, 0) << back.err;
  EXPECT_EQ(oci::Digest::sha256_of(back.out).str(), digest);
}

TEST_F(CopyCli, UmociAndSkopeoReadWhatStrataWrites) {
  auto layout = (dir_ / "layout").string();
  ASSERT_EQ(strata({"copy", hello(), "oci:" + layout + ":hello"}).code, 0);
  auto unpack = run({"umoci", "unpack", "--rootless", "--image", layout + ":hello", (dir_ / "bundle").string()});
  ASSERT_EQ(unpack.code, 0) << unpack.err;
  EXPECT_EQ(slurp(dir_ / "bundle/rootfs/usr/share/hello/greeting.txt"), "hello from strata testdata\n");
  auto ours = strata({"inspect", "--raw", "oci:" + layout + ":hello"});
  auto theirs = run({"skopeo", "inspect", "--raw", "oci:" + layout + ":hello"});
  ASSERT_EQ(theirs.code, 0) << theirs.err;
  EXPECT_EQ(ours.out, theirs.out);
  // skopeo copies strata's layout; strata reads skopeo's copy with the same digest.
  auto sk = run({"skopeo", "copy", "--quiet", "oci:" + layout + ":hello", "oci:" + (dir_ / "sk").string() + ":x"});
  ASSERT_EQ(sk.code, 0) << sk.err;
  auto again = strata({"inspect", "--raw", "oci:" + (dir_ / "sk").string() + ":x"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out, ours.out);
  // skopeo reads strata's archives.
  auto oa = (dir_ / "o.tar").string();
  ASSERT_EQ(strata({"copy", "oci:" + layout + ":hello", "oci-archive:" + oa + ":hello"}).code, 0);
  auto ski = run({"skopeo", "inspect", "--raw", "oci-archive:" + oa + ":hello"});
  ASSERT_EQ(ski.code, 0) << ski.err;
  EXPECT_EQ(ski.out, ours.out);
  auto da = (dir_ / "d.tar").string();
  ASSERT_EQ(strata({"copy", "oci:" + layout + ":hello", "docker-archive:" + da + ":team/hello:1"}).code, 0);
  // skopeo finds the image by the tag in manifest.json's RepoTags.
  auto skd = run({"skopeo", "inspect", "--config", "docker-archive:" + da + ":team/hello:1"});
  ASSERT_EQ(skd.code, 0) << skd.err;
  EXPECT_NE(skd.out.find("GREETING=hello"), std::string::npos) << skd.out;
  EXPECT_NE(run({"skopeo", "inspect", "docker-archive:" + da + ":team/other:1"}).code, 0);
  // ...and strata reads skopeo's docker-archive (legacy manifest.json form).
  auto skopeo_da = (dir_ / "skopeo-d.tar").string();
  ASSERT_EQ(run({"skopeo", "copy", "--quiet", "oci:" + layout + ":hello", "docker-archive:" + skopeo_da + ":sk/hello:2"}).code, 0);
  auto cfg_ours = strata({"inspect", "--config", "--raw", "oci:" + layout + ":hello"});
  auto cfg_theirs = strata({"inspect", "--config", "--raw", "docker-archive:" + skopeo_da + ":sk/hello:2"});
  ASSERT_EQ(cfg_theirs.code, 0) << cfg_theirs.err;
  EXPECT_EQ(nlohmann::json::parse(cfg_theirs.out)["config"]["Env"], nlohmann::json::parse(cfg_ours.out)["config"]["Env"]);
}

// A registry lists tags in its own order (docker-registry: its storage's
// directory order): tags prints them sorted by bytes, text and --json alike.
TEST_F(CopyCli, TagsAreSortedLexicographically) {
  auto reg = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg) << reg.error().message();
  const std::string repo = "docker://" + (*reg)->host_port() + "/team/app";
  for (std::string tag : {"zeta", "v1.9", "alpha", "v1.10", "Beta", "10", "q", "m"}) {
    auto copied = strata({"--insecure-registry", (*reg)->host_port(), "copy", hello(), repo + ":" + tag});
    ASSERT_EQ(copied.code, 0) << copied.err;
  }
  auto text = strata({"--insecure-registry", (*reg)->host_port(), "tags", repo});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(text.out, "10\nBeta\nalpha\nm\nq\nv1.10\nv1.9\nzeta\n");
  auto json = strata({"--json", "--insecure-registry", (*reg)->host_port(), "tags", repo});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out),
            nlohmann::json::array({"10", "Beta", "alpha", "m", "q", "v1.10", "v1.9", "zeta"}));
}

TEST_F(CopyCli, ExitCodesAndMessagesNameTheInput) {
  auto usage = strata({"copy", "only-one-arg"});
  EXPECT_EQ(usage.code, 2);
  auto bad = strata({"inspect", "oci:" + (dir_ / "nowhere").string()});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find((dir_ / "nowhere").string()), std::string::npos) << bad.err;
  auto badref = strata({"inspect", "Upper/Case"});
  EXPECT_EQ(badref.code, 1);
  EXPECT_NE(badref.err.find("Upper/Case"), std::string::npos);
  auto notag = strata({"inspect", hello().substr(0, hello().size() - 4) + ":nope"});
  EXPECT_EQ(notag.code, 1);
  EXPECT_NE(notag.err.find("nope"), std::string::npos);
  auto help = strata({"copy", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("Examples:"), std::string::npos);
}

TEST_F(CopyCli, JsonOutputIsOneDocument) {
  auto r = strata({"--json", "copy", hello(), "oci:" + (dir_ / "j").string() + ":t"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["blobsCopied"], 2);  // one layer and the config
  auto again = strata({"--json", "copy", hello(), "oci:" + (dir_ / "j").string() + ":t"});
  auto j2 = nlohmann::json::parse(again.out);
  EXPECT_EQ(j2["alreadyPresent"], true);
  EXPECT_EQ(j2["digest"], j["digest"]);
}

// SIGKILL in the middle of a copy into a layout: the layout stays readable by
// strata and umoci, and the rerun resumes instead of starting over.
TEST_F(CopyCli, KilledCopyLeavesAReadableLayoutAndResumes) {
  auto src = std::move(*oci::LayoutStore::open(dir_ / "big", oci::LayoutMode::kCreate));
  const std::size_t layer = 96u << 20;
  auto img = make_image(*src, {layer, layer}, 77);
  ASSERT_TRUE(src->put_manifest(img.manifest, "big"));
  auto dst = dir_ / "dst";
  std::string cmd = shell_quote(strata_binary()) + " --home " + shell_quote((dir_ / "home").string()) +
                    " --jobs 1 copy oci:" + (dir_ / "big").string() + ":big oci:" + dst.string() + ":big >/dev/null 2>&1";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), nullptr);
    _exit(127);
  }
  // Kill once some bytes of the first blob have landed in the ingest area.
  bool killed = false;
  for (int i = 0; i < 20000 && !killed; ++i) {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(dst / ".strata" / "ingest", ec); !ec && it != std::filesystem::directory_iterator(); ++it) {
      if (std::filesystem::file_size(it->path(), ec) > (8u << 20)) {
        ::kill(pid, SIGKILL);
        killed = true;
        break;
      }
    }
    if (!killed) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(killed) << "the copy finished before it could be killed";
  ASSERT_TRUE(WIFSIGNALED(status));
  // Readable by strata and umoci, with no image yet.
  auto tags = strata({"tags", "oci:" + dst.string()});
  EXPECT_EQ(tags.code, 0) << tags.err;
  EXPECT_EQ(tags.out, "");
  auto ls = run({"umoci", "ls", "--layout", dst.string()});
  EXPECT_EQ(ls.code, 0) << ls.err;
  // The rerun completes and moves fewer bytes than the whole image.
  auto rerun = strata({"--json", "copy", "oci:" + (dir_ / "big").string() + ":big", "oci:" + dst.string() + ":big"});
  ASSERT_EQ(rerun.code, 0) << rerun.err;
  auto j = nlohmann::json::parse(rerun.out);
  EXPECT_LT(j["bytesCopied"].get<std::uint64_t>(), 2 * layer);
  EXPECT_EQ(j["digest"], img.manifest.descriptor.digest.str());
  auto ours = strata({"inspect", "--raw", "oci:" + dst.string() + ":big"});
  EXPECT_EQ(ours.out, img.manifest.bytes);
}

// Another process holds a blob's ingest lock: the copy says it is waiting
// (on stderr, through its progress), then finishes once the lock is free.
TEST_F(CopyCli, WaitingForAnotherProcessesIngestLockIsReported) {
  auto dst = dir_ / "dst";
  ASSERT_TRUE(oci::LayoutStore::open(dst, oci::LayoutMode::kCreate));
  std::vector<int> held;
  for (const auto& b : std::filesystem::directory_iterator(source_dir() / "testdata/images/hello-umoci/blobs/sha256")) {
    auto ingest = dst / ".strata" / "ingest" / ("sha256-" + b.path().filename().string());
    std::filesystem::create_directories(ingest.parent_path());
    int fd = ::open(ingest.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);
    held.push_back(fd);
  }
  auto log = dir_ / "copy.log";
  auto pid = spawn_process({strata_binary(), "--home", (dir_ / "home").string(), "copy", hello(), "oci:" + dst.string() + ":h"},
                           log);
  ASSERT_TRUE(pid) << pid.error().message();
  auto said = wait_for_log(log, "waiting for another process", *pid, std::chrono::seconds(20));
  EXPECT_TRUE(said) << said.error().message();
  for (int fd : held) ::close(fd);
  int status = 0;
  ASSERT_EQ(::waitpid(*pid, &status, 0), *pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << slurp(log);
  EXPECT_NE(slurp(log).find("ingest"), std::string::npos) << slurp(log);
  auto back = strata({"inspect", "--raw", "oci:" + dst.string() + ":h"});
  EXPECT_EQ(back.code, 0) << back.err;
}

// Hostile round 2, defect 1: twelve processes copying one image (an 8 MiB
// layer) into one layout at once, several times. Before, 7-10 of 12 failed
// ("cannot rename …/ingest…: No such file or directory") and a committed
// blob could be overwritten by a waiter's bytes; now every copy exits 0 and
// every blob hashes to its name.
TEST_F(CopyCli, TwelveConcurrentCopiesIntoOneLayoutAllSucceedAndCorruptNothing) {
  auto src = dir_ / "src";
  {
    auto store = oci::LayoutStore::open(src, oci::LayoutMode::kCreate);
    ASSERT_TRUE(store);
    push_image(**store, "big", {8 << 20, 64 << 10, 1 << 20}, 31);
  }
  for (int round = 0; round < 4; ++round) {
    auto dst = dir_ / ("dst" + std::to_string(round));
    std::vector<pid_t> pids;
    std::vector<std::filesystem::path> logs;
    for (int i = 0; i < 12; ++i) {
      logs.push_back(dir_ / ("copy-" + std::to_string(round) + "-" + std::to_string(i) + ".log"));
      auto pid = spawn_process({strata_binary(), "--home", (dir_ / "home").string(), "copy",
                                "oci:" + src.string() + ":big", "oci:" + dst.string() + ":t" + std::to_string(i)},
                               logs.back());
      ASSERT_TRUE(pid) << pid.error().message();
      pids.push_back(*pid);
    }
    for (std::size_t i = 0; i < pids.size(); ++i) {
      int status = 0;
      ASSERT_EQ(::waitpid(pids[i], &status, 0), pids[i]);
      ASSERT_TRUE(WIFEXITED(status)) << slurp(logs[i]);
      EXPECT_EQ(WEXITSTATUS(status), 0) << "round " << round << ": " << slurp(logs[i]);
    }
    auto check = check_layout(dst);
    EXPECT_TRUE(check.problems.empty()) << "round " << round << ": " << check.problems.front();
    EXPECT_TRUE(check.unreferenced().empty()) << "round " << round;
    EXPECT_EQ(check.reachable.size(), 5u);  // manifest, config, three layers
  }
}

// Reading the local store takes no writer's lease: a gc holding it does not
// hold up `inspect local:…` (timeout(1) turns a wait into a failure).
TEST_F(CopyCli, ReadingTheLocalStoreDoesNotWaitForAGc) {
  auto empty = strata({"inspect", "local:strata/none:1"});
  EXPECT_EQ(empty.code, 1);
  EXPECT_NE(empty.err.find("holds no images yet"), std::string::npos) << empty.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "home/images"));  // a read creates nothing
  ASSERT_EQ(strata({"copy", hello(), "local:strata/hello:1.0"}).code, 0);
  int fd = ::open((dir_ / "home/images/.strata/gc.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);  // as `strata cache gc` holds it
  auto read = run({"timeout", "20", strata_binary(), "--home", (dir_ / "home").string(), "inspect", "--raw",
                   "local:strata/hello:1.0"});
  ::close(fd);
  EXPECT_EQ(read.code, 0) << read.err;
}

// --connect-timeout and --low-speed-timeout (or STRATA_CONNECT_TIMEOUT and
// STRATA_LOW_SPEED_TIMEOUT): a registry that accepts connections and never
// answers fails the command within them.
TEST_F(CopyCli, AStalledRegistryFailsWithinTheTimeoutsGiven) {
  auto proxy = FaultProxy::start("127.0.0.1:9", dir_.path());  // the stall never forwards
  ASSERT_TRUE(proxy) << proxy.error().message();
  (*proxy)->script(R"([{"action":"stall","seconds":30,"times":1000}])");
  auto host = (*proxy)->host_port();
  auto started = std::chrono::steady_clock::now();
  auto r = strata({"--connect-timeout", "1", "--low-speed-timeout", "1", "--insecure-registry", host, "inspect",
                   "docker://" + host + "/stalled/app:1"});
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("timeout"), std::string::npos) << r.err;
  EXPECT_LT(took, std::chrono::seconds(10)) << r.err;
  started = std::chrono::steady_clock::now();
  auto env = run({strata_binary(), "--home", (dir_ / "home").string(), "--insecure-registry", host, "inspect",
                  "docker://" + host + "/stalled/app:1"},
                 "STRATA_CONNECT_TIMEOUT=1 STRATA_LOW_SPEED_TIMEOUT=1");
  EXPECT_EQ(env.code, 1) << env.err;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10)) << env.err;
  EXPECT_EQ(strata({"--low-speed-timeout", "0", "tags", "oci:" + (dir_ / "none").string()}).code, 2);
  EXPECT_EQ(strata({"--connect-timeout", "soon", "tags", "oci:" + (dir_ / "none").string()}).code, 2);
}

}  // namespace
}  // namespace strata::testing
