// docker-daemon: and podman: when the daemon is not what strata needs: no
// socket at the path, an API too old, a daemon that dies mid-load. Each is
// one line naming the socket and the next step, exit code 1, and nothing
// left behind (strata's staging under $STRATA_HOME/tmp is gone; the dying
// "daemon" never received the end of the body, so a real one would have
// loaded nothing). The daemons here are a python3 stand-in on a unix
// socket; tests/layer/overlay/runtimes_test.cpp drives the real ones.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "oci/daemon/daemon_store.hpp"
#include "oci/digest.hpp"
#include "support/cli_test.hpp"

namespace strata::testing {
namespace {

namespace stdfs = std::filesystem;
using oci::daemon::Daemon;

// A stand-in daemon: answers GET /_ping with the headers given. On a load
// (POST …/images/load) with `die_after` > 0 it reads that many body bytes
// and exits without answering, as a daemon killed mid-stream does; with -1
// it reads the chunked body to its end or to EOF, logs whether the end
// came, and answers with Docker's message stream carrying an error; with -2
// it exits once the whole body came. Every request line goes to LOG.
constexpr const char* kServer = R"PY(
import os, socket, sys
sock_path, log_path, headers, die_after = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
log = open(log_path, "a", buffering=1)
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(sock_path + ".tmp")
os.rename(sock_path + ".tmp", sock_path)
srv.listen(8)

def read_chunked(f):
    while True:
        line = f.readline()
        if not line.endswith(b"\r\n"):
            return False
        try:
            n = int(line.strip().split(b";")[0], 16)
        except ValueError:
            return False
        if n == 0:
            return f.readline() == b"\r\n"
        if len(f.read(n)) < n or f.readline() != b"\r\n":
            return False

while True:
    conn, _ = srv.accept()
    f = conn.makefile("rb")
    while True:
        line = f.readline()
        if not line:
            break
        request = line.decode().strip()
        log.write("request " + request + "\n")
        while True:
            h = f.readline().decode()
            if h in ("\r\n", "\n", ""):
                break
        if request.startswith("GET /_ping"):
            extra = "".join(h + "\r\n" for h in headers.split("|") if h)
            conn.sendall(("HTTP/1.1 200 OK\r\n" + extra + "Content-Length: 2\r\n\r\nOK").encode())
        elif "/images/load" in request and die_after > 0:
            f.read(die_after)
            os._exit(0)
        elif "/images/load" in request:
            ended = read_chunked(f)
            log.write("body ended %s\n" % ended)
            if not ended:
                break
            if die_after == -2:
                os._exit(0)
            body = b'{"errorDetail":{"message":"stand-in refuses\\nthis image"},"error":"stand-in refuses"}\r\n'
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        else:
            conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    conn.close()
)PY";

class DaemonCli : public CliTest {
 protected:
  void TearDown() override { stop(); }

  // Starts the stand-in at DIR/daemon.sock; returns its unix:// address.
  std::string serve(const std::string& headers, int die_after = 1024) {
    std::ofstream(dir_ / "server.py") << kServer;
    sock_ = dir_ / "daemon.sock";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execlp("python3", "python3", (dir_ / "server.py").c_str(), sock_.c_str(), (dir_ / "server.log").c_str(),
               headers.c_str(), std::to_string(die_after).c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 100 && !stdfs::exists(sock_); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(stdfs::exists(sock_)) << "the stand-in daemon did not start";
    return "unix://" + sock_.string();
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  std::string server_log() const { return slurp(dir_ / "server.log"); }

  std::string hello() const { return "oci:" + (source_dir() / "testdata/images/hello-umoci").string() + ":1.0"; }
  // What strata left in its staging area.
  std::vector<std::string> leftovers() const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(dir_ / "home/tmp", ec)) out.push_back(e.path().filename());
    return out;
  }
  static void expect_one_line(const RunResult& r) {
    EXPECT_EQ(r.code, 1) << r.err;
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line:\n" << r.err;
  }

  stdfs::path sock_;
  pid_t pid_ = -1;
};

TEST_F(DaemonCli, NoDockerSocketNamesThePathAndHowToStartDocker) {
  const std::string sock = (dir_ / "none.sock").string();
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"copy", hello(), "docker-daemon:strata-test/hello:1.0"},
           {"inspect", "docker-daemon:strata-test/hello:1.0"}}) {
    auto r = strata(args, "DOCKER_HOST=unix://" + sock);
    expect_one_line(r);
    EXPECT_NE(r.err.find("docker-daemon:strata-test/hello"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cannot reach Docker at " + sock + ": no such socket"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("start dockerd"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("DOCKER_HOST"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(DaemonCli, NoPodmanSocketNamesThePathAndTheServiceCommand) {
  const std::string sock = (dir_ / "none.sock").string();
  auto r = strata({"copy", hello(), "podman:strata-test/hello:1.0"}, "CONTAINER_HOST=unix://" + sock);
  expect_one_line(r);
  EXPECT_NE(r.err.find("at " + sock + ": no such socket"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("podman system service --time=0 unix://" + sock), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("CONTAINER_HOST"), std::string::npos) << r.err;
}

TEST_F(DaemonCli, ASocketNobodyListensOnIsNamedSo) {
  auto host = serve("Api-Version: 1.41");
  stop();  // the socket file stays, nothing accepts
  auto r = strata({"inspect", "docker-daemon:strata-test/hello:1.0"}, "DOCKER_HOST=" + host);
  expect_one_line(r);
  EXPECT_NE(r.err.find(sock_.string() + ": nothing listens there"), std::string::npos) << r.err;
}

// A socket strata may not use (here: in a directory only root enters, strata
// run as nobody) says who may.
TEST_F(DaemonCli, PermissionDeniedSaysWhoMayUseTheSocket) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run strata as another user";
  auto host = serve("Api-Version: 1.41");
  stdfs::permissions(dir_.path(), stdfs::perms::owner_all, stdfs::perm_options::replace);
  auto r = run({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", strata_binary(), "--home",
                (dir_ / "home").string(), "inspect", "docker-daemon:strata-test/hello:1.0"},
               "DOCKER_HOST=" + host);
  expect_one_line(r);
  EXPECT_NE(r.err.find("cannot reach Docker at " + sock_.string() + ": permission denied"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("member of the group that owns the socket"), std::string::npos) << r.err;
  EXPECT_EQ(server_log(), "");
}

TEST_F(DaemonCli, AnOldDockerApiIsRefusedBeforeAnythingIsSent) {
  auto host = serve("Api-Version: 1.23");
  auto r = strata({"copy", hello(), "docker-daemon:strata-test/hello:1.0"}, "DOCKER_HOST=" + host);
  expect_one_line(r);
  EXPECT_NE(r.err.find("Docker at " + sock_.string() + " speaks API 1.23; strata needs 1.40 or later"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("upgrade Docker"), std::string::npos) << r.err;
  EXPECT_EQ(server_log(), "request GET /_ping HTTP/1.1\n");
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(DaemonCli, AnOldPodmanOrADockerInItsPlaceIsRefused) {
  auto host = serve("Api-Version: 1.40|Libpod-Api-Version: 3.4.4");
  auto r = strata({"copy", hello(), "podman:strata-test/hello:1.0"}, "CONTAINER_HOST=" + host);
  expect_one_line(r);
  EXPECT_NE(r.err.find("speaks libpod API 3.4.4; strata needs 4.0.0 or later"), std::string::npos) << r.err;
  stop();
  std::error_code ec;
  stdfs::remove(sock_, ec);
  host = serve("Api-Version: 1.41");
  r = strata({"copy", hello(), "podman:strata-test/hello:1.0"}, "CONTAINER_HOST=" + host);
  expect_one_line(r);
  EXPECT_NE(r.err.find(sock_.string() + " answers as Docker, not podman"), std::string::npos) << r.err;
}

// The daemon dies after 1 KiB of a body of over 4 MiB (a layer of random
// bytes; more than the socket's buffers hold): strata had not sent the end
// of the body, so it can say nothing was loaded.
TEST_F(DaemonCli, ADaemonThatDiesMidLoadFailsInOneLineNamingTheSocket) {
  {
    std::string noise(4 << 20, '\0');
    std::uint64_t x = 88172645463325252ull;
    for (char& c : noise) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      c = static_cast<char>(x);
    }
    stdfs::create_directories(dir_ / "rootfs");
    std::ofstream(dir_ / "rootfs/noise", std::ios::binary) << noise;
    ASSERT_EQ(run({"tar", "-C", (dir_ / "rootfs").string(), "-cf", (dir_ / "rootfs.tar").string(), "."}).code, 0);
    auto imported = strata({"import", (dir_ / "rootfs.tar").string(), "--dest", "oci:" + (dir_ / "big").string() + ":1"});
    ASSERT_EQ(imported.code, 0) << imported.err;
  }
  const std::string big = "oci:" + (dir_ / "big").string() + ":1";
  for (Daemon d : {Daemon::kDocker, Daemon::kPodman}) {
    SCOPED_TRACE(d == Daemon::kDocker ? "docker" : "podman");
    std::error_code ec;
    stdfs::remove(dir_ / "server.log", ec);
    stdfs::remove(sock_, ec);
    auto host = serve(d == Daemon::kDocker ? "Api-Version: 1.41" : "Api-Version: 1.41|Libpod-Api-Version: 4.3.1", 1024);
    const std::string dest = d == Daemon::kDocker ? "docker-daemon:strata-test/hello:1.0" : "podman:strata-test/hello:1.0";
    auto r = strata({"copy", big, dest}, (d == Daemon::kDocker ? "DOCKER_HOST=" : "CONTAINER_HOST=") + host);
    expect_one_line(r);
    EXPECT_NE(r.err.find(" at " + sock_.string() + " closed the connection during the load"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("nothing was loaded"), std::string::npos) << r.err;
    const std::string log = server_log();
    EXPECT_NE(log.find(d == Daemon::kDocker ? "request POST /v1.41/images/load?quiet=1 HTTP/1.1"
                                            : "request POST /v4.3.1/libpod/images/load HTTP/1.1"),
              std::string::npos)
        << log;
    EXPECT_TRUE(leftovers().empty());
    stop();
  }
}

// A blob that does not verify as it is sent (the source's file changed after
// the copy linked it) stops the body before its end: the daemon never gets
// a whole tar, so it loads nothing.
TEST_F(DaemonCli, ABlobThatFailsVerificationEndsTheBodyBeforeItsEnd) {
  const std::string layout = (dir_ / "layout").string();
  ASSERT_EQ(strata({"copy", hello(), "oci:" + layout + ":1.0"}).code, 0);
  // The layer, one byte changed, its size kept.
  const stdfs::path layer = dir_ / "layout/blobs/sha256/ebea1588c20807a73c01e6eff386dd4abdd56e2a1f9a28f70b29b12ca8dd47f5";
  std::string bytes = slurp(layer);
  ASSERT_FALSE(bytes.empty());
  bytes[bytes.size() / 2] ^= 0x20;
  // A new file renamed over it: were the blob a hard link to testdata's, that stays intact.
  std::ofstream(layer.string() + ".new", std::ios::binary) << bytes;
  stdfs::rename(layer.string() + ".new", layer);
  auto host = serve("Api-Version: 1.41", -1);
  auto r = strata({"copy", "oci:" + layout + ":1.0", "docker-daemon:strata-test/hello:1.0"}, "DOCKER_HOST=" + host);
  expect_one_line(r);
  EXPECT_NE(r.err.find("nothing was loaded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ebea1588c208"), std::string::npos) << r.err;
  stop();
  const std::string log = server_log();
  EXPECT_NE(log.find("body ended False"), std::string::npos) << log;
  EXPECT_TRUE(leftovers().empty());
}

// --referrers into a daemon's store: the referrer went into the load as an
// image of its own and podman refused the whole load over it ("more than one
// image in oci", "rootFS is not set"). It is refused by strata, before
// anything is sent, in one line with the next step.
TEST_F(DaemonCli, ReferrersAreRefusedBeforeTheLoad) {
  const stdfs::path layout = dir_ / "layout";
  ASSERT_EQ(strata({"copy", hello(), "oci:" + layout.string() + ":1.0"}).code, 0);
  auto put = [&](const std::string& bytes) {
    const std::string d = oci::Digest::sha256_of(bytes).str();
    std::ofstream(layout / "blobs/sha256" / d.substr(7), std::ios::binary) << bytes;
    return d;
  };
  const std::string empty = put("{}");
  const std::string referrer =
      put(R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",)"
          R"("artifactType":"application/vnd.example.signature","config":{"mediaType":"application/vnd.oci.empty.v1+json",)"
          R"("digest":")" + empty + R"(","size":2},"layers":[],"subject":{"mediaType":"application/vnd.oci.image.manifest.v1+json",)"
          R"("digest":"sha256:8ddddd16031038addd230b8af18ff15b34c42490d7e7ee5743ce7ddb3bc7fc9c","size":345}})");
  std::string index = slurp(layout / "index.json");
  const auto end = index.rfind(']');
  ASSERT_NE(end, std::string::npos) << index;
  index.insert(end, R"(,{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":")" + referrer +
                        R"(","size":)" + std::to_string(slurp(layout / "blobs/sha256" / referrer.substr(7)).size()) +
                        R"(,"artifactType":"application/vnd.example.signature"})");
  std::ofstream(layout / "index.json") << index;
  auto host = serve("Api-Version: 1.41", -1);
  auto r = strata({"copy", "--referrers", "oci:" + layout.string() + ":1.0", "docker-daemon:strata-test/hello:1.0"},
                  "DOCKER_HOST=" + host);
  expect_one_line(r);
  EXPECT_NE(r.err.find("docker-daemon:strata-test/hello: Docker's store keeps no referrers (" + referrer +
                       " refers to another image); copy without --referrers"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(server_log().find("/images/load"), std::string::npos) << server_log();
  EXPECT_TRUE(leftovers().empty());
  // Without --referrers the image goes to the load.
  auto plain = strata({"copy", "oci:" + layout.string() + ":1.0", "docker-daemon:strata-test/hello:1.0"},
                      "DOCKER_HOST=" + host);
  EXPECT_NE(plain.err.find("stand-in refuses"), std::string::npos) << plain.err;
}

// A daemon that got the whole image and then went away may have loaded it:
// strata does not claim it did not.
TEST_F(DaemonCli, ADaemonGoneAfterTheWholeBodyMayHaveLoadedIt) {
  auto host = serve("Api-Version: 1.41", -2);
  auto r = strata({"copy", hello(), "docker-daemon:strata-test/hello:1.0"}, "DOCKER_HOST=" + host);
  expect_one_line(r);
  EXPECT_NE(r.err.find("Docker at " + sock_.string() + " did not answer the load of the whole image"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("it may or may not have loaded it: look with `docker images docker.io/strata-test/hello`"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("nothing was loaded"), std::string::npos) << r.err;
  EXPECT_NE(server_log().find("body ended True"), std::string::npos) << server_log();
  EXPECT_TRUE(leftovers().empty());
}

// Docker answers a load it refuses with 200 and an error in its message
// stream: that is the failure, in one line.
TEST_F(DaemonCli, AnErrorInDockersMessageStreamIsTheFailure) {
  auto host = serve("Api-Version: 1.41", -1);
  auto r = strata({"copy", hello(), "docker-daemon:strata-test/hello:1.0"}, "DOCKER_HOST=" + host);
  expect_one_line(r);
  EXPECT_NE(r.err.find("refused the load: stand-in refuses this image"), std::string::npos) << r.err;
  // DOCKER_API_VERSION pins the version spoken, as for Docker's client.
  auto pinned = strata({"copy", hello(), "docker-daemon:strata-test/hello:1.0"},
                       "DOCKER_API_VERSION=1.40 DOCKER_HOST=" + host);
  expect_one_line(pinned);
  auto bad = strata({"copy", hello(), "docker-daemon:strata-test/hello:1.0"},
                    "DOCKER_API_VERSION=1.12 DOCKER_HOST=" + host);
  expect_one_line(bad);
  EXPECT_NE(bad.err.find("DOCKER_API_VERSION=1.12 is not an API version strata speaks"), std::string::npos) << bad.err;
  stop();
  const std::string log = server_log();
  EXPECT_NE(log.find("request POST /v1.41/images/load?quiet=1 HTTP/1.1\nbody ended True"), std::string::npos) << log;
  EXPECT_NE(log.find("request POST /v1.40/images/load?quiet=1 HTTP/1.1\nbody ended True"), std::string::npos) << log;
  EXPECT_TRUE(leftovers().empty());
}

TEST(DaemonEndpoint, HostVariablesAndVersions) {
  ::setenv("DOCKER_HOST", "tcp://127.0.0.1:2375", 1);
  auto tcp = oci::daemon::daemon_endpoint(Daemon::kDocker, "docker-daemon:x");
  ASSERT_TRUE(tcp) << tcp.error().message();
  EXPECT_EQ(tcp->base_url, "http://127.0.0.1:2375");
  EXPECT_TRUE(tcp->socket.empty());
  ::setenv("DOCKER_HOST", "ssh://me@host", 1);
  auto ssh = oci::daemon::daemon_endpoint(Daemon::kDocker, "docker-daemon:x");
  ASSERT_FALSE(ssh);
  EXPECT_NE(ssh.error().message().find("does not speak ssh://"), std::string::npos) << ssh.error().message();
  ::unsetenv("DOCKER_HOST");
  auto def = oci::daemon::daemon_endpoint(Daemon::kDocker, "docker-daemon:x");
  ASSERT_TRUE(def);
  EXPECT_EQ(def->socket, "/var/run/docker.sock");
  ::setenv("CONTAINER_HOST", "unix:///run/x/podman.sock", 1);
  auto pm = oci::daemon::daemon_endpoint(Daemon::kPodman, "podman:x");
  ASSERT_TRUE(pm);
  EXPECT_EQ(pm->socket, "/run/x/podman.sock");
  ::unsetenv("CONTAINER_HOST");

  EXPECT_EQ(oci::daemon::negotiate_api_version(Daemon::kDocker, "1.41"), "1.41");
  EXPECT_EQ(oci::daemon::negotiate_api_version(Daemon::kDocker, "1.52"), "1.45");
  EXPECT_EQ(oci::daemon::negotiate_api_version(Daemon::kDocker, "1.39"), std::nullopt);
  EXPECT_EQ(oci::daemon::negotiate_api_version(Daemon::kDocker, "bogus"), std::nullopt);
  EXPECT_EQ(oci::daemon::negotiate_api_version(Daemon::kPodman, "4.3.1"), "4.3.1");
  EXPECT_EQ(oci::daemon::negotiate_api_version(Daemon::kPodman, "3.4.4"), std::nullopt);
}

}  // namespace
}  // namespace strata::testing
