// The runtimes users have take strata's images (interop): podman (from an OCI
// layout), Docker (`docker load` of a docker-archive) and containerd (`ctr
// images import` of an oci-archive) each store an overlay built from the
// overlay fixture archive and a scratch image built from the scratch fixture
// archive (and the overlay again with an uncompressed layer, `--compression
// none`), and run one of their programs. Docker's layer store and
// containers/storage refuse a layer that names a path twice, so this is
// where a layer strata writes would fail first.
//
// Every store is private: podman with its own --root/--runroot/--tmpdir,
// vfs, runc and cgroupfs (crun refuses this host's hybrid cgroups) and a
// containers.conf without default ulimits (setrlimit is not permitted here);
// dockerd and containerd as daemons of the test with their own root, state
// and socket in a temporary directory, stopped by PID. Nothing is left
// behind: containers run with --rm, mounts under the directory are undone,
// the directory is removed.
//
// strata also writes the images straight into Docker's and podman's stores
// through their APIs (docker-daemon:, podman:, against the private dockerd
// and a private `podman system service`), the runtimes run them, and strata
// reads them back. What the stores keep bit-exactly is the config (image ID
// = config digest) and the layers' uncompressed contents (diff IDs): Docker
// 20.10's classic store and podman's containers/storage keep neither the
// manifest nor the compressed layers, so the read-back is compared by config
// digest and diff IDs, not by manifest digest.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <memory>
#include <thread>

#include "layer/overlay/overlay_fixture.hpp"
#include "oci/copy.hpp"
#include "oci/digest.hpp"
#include "oci/layout_store.hpp"
#include "oci/open_store.hpp"
#include "oci/reference.hpp"
#include "support/json_run.hpp"
#include "support/served_archive.hpp"
#include "support/source_dir.hpp"
#include "support/temp_dir.hpp"

namespace strata::testing {
namespace {

namespace stdfs = std::filesystem;

const std::vector<std::string> kImages = {"overlay", "scratch", "plain"};

// The images, built once per binary, in every form the runtimes read.
struct Images {
  stdfs::path layout;  // oci:<layout>:NAME for each of kImages
  stdfs::path archives;

  stdfs::path docker_archive(const std::string& name) const { return archives / (name + ".docker.tar"); }
  stdfs::path oci_archive(const std::string& name) const { return archives / (name + ".oci.tar"); }
  static std::string docker_ref(const std::string& name) { return "strata-test/" + name + ":latest"; }
};

const Images& images() {
  static Images* built = [] {
    auto* im = new Images;
    auto& fx = OverlayFixture::get();
    // podman names an image from its layout's path, which must be lowercase.
    static stdfs::path root = "/tmp/strata-runtimes-" + std::to_string(::getpid());
    std::atexit([] {
      std::error_code ec;
      stdfs::remove_all(root, ec);
    });
    im->layout = root / "img";
    im->archives = root / "archives";
    stdfs::create_directories(im->archives);
    std::string home = (root / "home").string();
    auto ok = [](const RunResult& r, const std::string& what) {
      if (r.code != 0) {
        ADD_FAILURE() << what << ": " << r.err;
        std::abort();
      }
    };
    ok(run({strata_binary(), "-q", "--home", home, "build", "--base", fx.base_ref(), "--sources",
            fx.sources().string(), "--platform", "linux/amd64", "--dest", "oci:" + im->layout.string() + ":overlay",
            "greet", "hello-static", "hello-other", "diverted-tool", "shared-a", "shared-b"}),
       "strata build (overlay)");
    ok(run({strata_binary(), "-q", "--home", home, "build", "--base", fx.base_ref(), "--sources",
            fx.sources().string(), "--platform", "linux/amd64", "--compression", "none", "--dest",
            "oci:" + im->layout.string() + ":plain", "greet", "hello-static"}),
       "strata build --compression none");
    static ServedArchive scratch(root / "scratch-archive", source_dir() / "testdata/scratch");
    auto sources = scratch.write_sources(root / "scratch.list");
    ok(run({strata_binary(), "-q", "--home", home, "build", "--base", "scratch", "--sources", sources.string(),
            "--platform", "linux/amd64", "--dest", "oci:" + im->layout.string() + ":scratch"},
           "SOURCE_DATE_EPOCH=1700000000"),
       "strata build --base scratch");
    for (std::string name : kImages) {
      std::string from = "oci:" + im->layout.string() + ":" + name;
      ok(run({strata_binary(), "-q", "copy", from,
              "docker-archive:" + im->docker_archive(name).string() + ":" + Images::docker_ref(name)}),
         "strata copy to docker-archive");
      ok(run({strata_binary(), "-q", "copy", from, "oci-archive:" + im->oci_archive(name).string() + ":" + name}),
         "strata copy to oci-archive");
    }
    return im;
  }();
  return *built;
}

// A program each image runs, and what it prints.
struct Program {
  std::string image;
  std::vector<std::string> argv;
  std::string out;
};
std::vector<Program> programs(const std::string& runtime) {
  return {{"overlay", {"/usr/bin/greet", runtime}, "hello, " + runtime + ", from libgreet\n"},
          {"overlay", {"/usr/bin/hello"}, "static hello via hello\n"},
          {"scratch", {"/bin/tinysh", "in", runtime}, "tinysh in " + runtime + "\n"},
          {"plain", {"/usr/bin/greet", runtime}, "hello, " + runtime + ", from libgreet\n"}};
}

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Undoes every mount below `dir` (deepest first), then removes it.
void remove_tree(const stdfs::path& dir) {
  std::vector<std::string> mounts;
  std::ifstream in("/proc/self/mounts");
  for (std::string dev, where, rest; in >> dev >> where && std::getline(in, rest);) {
    if (where.starts_with(dir.string() + "/")) mounts.push_back(where);
  }
  std::sort(mounts.rbegin(), mounts.rend());
  for (const auto& m : mounts) ::umount2(m.c_str(), MNT_DETACH);
  std::error_code ec;
  stdfs::remove_all(dir, ec);
}

// A daemon of this test: started with its output in `log`, stopped by PID.
class Daemon {
 public:
  Daemon(const std::vector<std::string>& argv, const stdfs::path& log) : name_(argv.front()), log_(log) {
    start(argv, O_TRUNC);
  }
  // Starts `argv` again once the daemon is gone (stop(), kill_now()),
  // appending to its log.
  void start_again(const std::vector<std::string>& argv) {
    if (pid_ <= 0) start(argv, O_APPEND);
  }
  ~Daemon() { stop(); }
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Waits until `ready` succeeds (up to 60 s) or the daemon exits.
  bool wait_ready(const std::vector<std::string>& ready) {
    for (int i = 0; i < 300; ++i) {
      if (run(ready).code == 0) return true;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }
  std::string log() const { return slurp(log_); }

  // SIGKILL: the daemon dies as in a crash.
  void kill_now() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  // SIGTERM, then SIGKILL after 30 s.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 300; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << name_ << " ignored SIGTERM; killed\n" << log();
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  void start(const std::vector<std::string>& argv, int mode) {
    pid_ = ::fork();
    if (pid_ == 0) {
      int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | mode | O_CLOEXEC, 0644);
      int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (fd < 0 || null < 0) ::_exit(126);
      ::dup2(null, 0);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
  }

  std::string name_;
  stdfs::path log_;
  pid_t pid_ = -1;
};

// A private temporary directory for one runtime, cleaned up at the end.
class RuntimeDir {
 public:
  RuntimeDir() {
    char tmpl[] = "/tmp/strata-runtime-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  ~RuntimeDir() { remove_tree(dir_); }
  stdfs::path operator/(const std::string& s) const { return dir_ / s; }
  const stdfs::path& path() const { return dir_; }

 private:
  stdfs::path dir_;
};

void expect_tool(const std::string& tool) {
  ASSERT_EQ(run({"sh", "-c", "command -v " + tool}).code, 0)
      << tool << " is not installed (scripts/setup.sh test installs podman runc containerd docker.io)";
}

TEST(Runtimes, PodmanStoresAndRunsTheOverlayAndTheScratchImage) {
  expect_tool("podman");
  expect_tool("runc");
  const Images& im = images();
  RuntimeDir d;
  std::ofstream(d / "containers.conf") << "[containers]\ndefault_ulimits = []\n";
  std::string env = "CONTAINERS_CONF=" + shell_quote((d / "containers.conf").string());
  std::vector<std::string> podman{"podman",           "--root",          (d / "root").string(),
                                  "--runroot",        (d / "run").string(), "--tmpdir",
                                  (d / "tmp").string(), "--storage-driver", "vfs",
                                  "--cgroup-manager", "cgroupfs",        "--runtime",
                                  "runc",             "--events-backend", "file"};
  for (const std::string& name : kImages) {
    std::string ref = "oci:" + im.layout.string() + ":" + name;
    auto pulled = run(cat(podman, {"pull", "-q", ref}), env);
    EXPECT_EQ(pulled.code, 0) << name << ": podman pull " << ref << "\n" << pulled.err;
  }
  for (const auto& p : programs("podman")) {
    auto r = run(cat(cat(podman, {"run", "--rm", "--network", "none", "oci:" + im.layout.string() + ":" + p.image}),
                     p.argv),
                 env);
    EXPECT_EQ(r.code, 0) << p.image << " " << p.argv.front() << "\n" << r.err;
    EXPECT_EQ(r.out, p.out) << p.image << " " << p.argv.front() << "\n" << r.err;
  }
}

TEST(Runtimes, DockerLoadsAndRunsTheOverlayAndTheScratchImage) {
  expect_tool("dockerd");
  std::string docker = stdfs::exists("/usr/bin/docker") ? "/usr/bin/docker" : "docker";  // docker.io's client
  expect_tool(docker);
  const Images& im = images();
  RuntimeDir d;
  std::ofstream(d / "daemon.json") << "{}\n";
  std::string host = "unix://" + (d / "docker.sock").string();
  Daemon dockerd({"dockerd", "--config-file", (d / "daemon.json").string(), "--data-root", (d / "data").string(),
                  "--exec-root", (d / "exec").string(), "--pidfile", (d / "dockerd.pid").string(), "-H", host,
                  "--iptables=false", "--ip6tables=false", "--bridge=none", "--storage-driver", "vfs",
                  "--exec-opt", "native.cgroupdriver=cgroupfs"},
                 d / "dockerd.log");
  std::string env = "DOCKER_CONFIG=" + shell_quote((d / "client").string());
  std::vector<std::string> cli{docker, "-H", host};
  ASSERT_TRUE(dockerd.wait_ready(cat(cli, {"version"}))) << dockerd.log();
  for (const std::string& name : kImages) {
    auto loaded = run(cat(cli, {"load", "-i", im.docker_archive(name).string()}), env);
    EXPECT_EQ(loaded.code, 0) << name << ": docker load\n" << loaded.out << loaded.err;
    EXPECT_NE(loaded.out.find("Loaded image: " + Images::docker_ref(name)), std::string::npos) << loaded.out;
  }
  for (const auto& p : programs("docker")) {
    auto r = run(cat(cat(cli, {"run", "--rm", "--network", "none", Images::docker_ref(p.image)}), p.argv), env);
    EXPECT_EQ(r.code, 0) << p.image << " " << p.argv.front() << "\n" << r.err;
    EXPECT_EQ(r.out, p.out) << p.image << " " << p.argv.front() << "\n" << r.err;
  }
  dockerd.stop();
}

// A containerd of the test: its own root, state and sockets in `d`, the CRI
// plugin off (Kubernetes' namespace is still a namespace like any other).
struct PrivateContainerd {
  explicit PrivateContainerd(const RuntimeDir& d)
      : sock((d / "containerd.sock").string()),
        config(d / "config.toml"),
        log(d / "containerd.log"),
        daemon(
            [&] {
              std::ofstream(d / "config.toml")
                  << "version = 2\nroot = \"" << (d / "root").string() << "\"\nstate = \"" << (d / "state").string()
                  << "\"\ndisabled_plugins = [\"io.containerd.grpc.v1.cri\"]\n[grpc]\n  address = \"" << sock
                  << "\"\n[ttrpc]\n  address = \"" << sock << ".ttrpc\"\n[debug]\n  address = \""
                  << (d / "debug.sock").string() << "\"\n";
              return std::vector<std::string>{"containerd", "--config", (d / "config.toml").string()};
            }(),
            d / "containerd.log") {}
  // A new containerd on the same root and sockets (after kill_now()).
  void restart() {
    daemon.stop();
    daemon.start_again({"containerd", "--config", config.string()});
  }
  std::vector<std::string> ctr(const std::string& ns = "strata-test") const { return {"ctr", "-a", sock, "-n", ns}; }
  // strata with this containerd as its containerd: store.
  std::vector<std::string> strata(const std::vector<std::string>& args, const std::string& ns = "strata-test") const {
    return cat({strata_binary(), "--containerd-address", sock, "--containerd-namespace", ns}, args);
  }
  // Runs each image's programs with ctr, the image of each named by `ref`.
  void run_programs(const std::function<std::string(const std::string&)>& ref) const {
    int n = 0;
    for (const auto& p : programs("containerd")) {
      auto r = run(cat(ctr(), cat({"run", "--rm", "--snapshotter", "native", ref(p.image), "p" + std::to_string(n++)},
                                  p.argv)));
      EXPECT_EQ(r.code, 0) << p.image << " " << p.argv.front() << "\n" << r.err;
      EXPECT_EQ(r.out, p.out) << p.image << " " << p.argv.front() << "\n" << r.err;
    }
  }
  // The digests of the namespace's content store.
  std::set<std::string> content(const std::string& ns = "strata-test") const {
    std::set<std::string> out;
    std::istringstream lines(run(cat(ctr(ns), {"content", "ls", "-q"})).out);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) out.insert(line);
    }
    return out;
  }
  std::string sock;
  stdfs::path config, log;
  Daemon daemon;
};

// What an image is, as the runtime stores keep it: the config's digest (of
// its exact bytes), its diff IDs, and the manifest's layer digests.
struct StoredFacts {
  std::string config_digest;
  std::vector<std::string> diff_ids;
  std::vector<std::string> layers;
};
StoredFacts stored_facts(const std::string& ref, const std::string& home, const std::string& env) {
  StoredFacts f;
  auto m = run({strata_binary(), "-q", "--home", home, "inspect", "--raw", ref}, env);
  EXPECT_EQ(m.code, 0) << "strata inspect --raw " << ref << "\n" << m.err;
  auto c = run({strata_binary(), "-q", "--home", home, "inspect", "--raw", "--config", ref}, env);
  EXPECT_EQ(c.code, 0) << "strata inspect --raw --config " << ref << "\n" << c.err;
  if (m.code != 0 || c.code != 0) return f;
  const auto manifest = nlohmann::json::parse(m.out, nullptr, false);
  const auto config = nlohmann::json::parse(c.out, nullptr, false);
  f.config_digest = oci::Digest::sha256_of(c.out).str();
  std::string named;
  if (manifest.contains("config")) named = manifest["config"].value("digest", "");
  EXPECT_EQ(named, f.config_digest) << ref;
  if (manifest.contains("layers")) {
    const auto layers = manifest["layers"];
    for (const auto& l : layers) f.layers.push_back(l.value("digest", ""));
  }
  if (config.contains("rootfs")) {
    const auto ids = config["rootfs"].value("diff_ids", nlohmann::json::array());
    for (const auto& id : ids) f.diff_ids.push_back(id.get<std::string>());
  }
  return f;
}

// A copy of the scratch image whose last layer has one byte changed (its
// size kept), in a layout of its own: a load of it must fail and leave the
// runtime's store as it was.
std::string broken_image(const Images& im, const stdfs::path& dir, const std::string& home) {
  std::string ref = "oci:" + (dir / "broken").string() + ":x";
  auto copied = run({strata_binary(), "-q", "--home", home, "copy", "oci:" + im.layout.string() + ":scratch", ref});
  EXPECT_EQ(copied.code, 0) << copied.err;
  const auto f = stored_facts(ref, home, "");
  EXPECT_FALSE(f.layers.empty());
  if (f.layers.empty()) return ref;
  stdfs::path blob = dir / "broken/blobs/sha256" / f.layers.back().substr(7);
  std::string bytes = slurp(blob);
  bytes[bytes.size() / 2] ^= 0x20;
  // A new file renamed over it: were the blob a hard link to the fixture's, that stays intact.
  std::ofstream(blob.string() + ".new", std::ios::binary) << bytes;
  stdfs::rename(blob.string() + ".new", blob);
  return ref;
}

// Writes each image with strata into a runtime store (`transport`:
// "docker-daemon:" or "podman:", reached through `env`), runs its programs
// with `cli`, reads each back and checks what the store keeps; then a load
// that fails part-way leaves nothing. `layers_are_diffs`: the store exports
// each layer uncompressed, so its digest is the diff ID.
void store_run_and_read_back(const std::string& runtime, const std::string& transport, const std::string& env,
                             const std::vector<std::string>& cli, const std::string& cli_env, const RuntimeDir& d,
                             bool layers_are_diffs) {
  const Images& im = images();
  const std::string home = (d / "home").string();
  for (const std::string& name : kImages) {
    auto r = run({strata_binary(), "-q", "--home", home, "copy", "oci:" + im.layout.string() + ":" + name,
                  transport + Images::docker_ref(name)},
                 env);
    EXPECT_EQ(r.code, 0) << name << ": strata copy to " << transport << "\n" << r.err;
  }
  auto tags = run({strata_binary(), "-q", "--home", home, "tags", transport + "strata-test/overlay"}, env);
  EXPECT_EQ(tags.code, 0) << tags.err;
  EXPECT_EQ(tags.out, "latest\n");
  for (const auto& p : programs(runtime)) {
    auto r = run(cat(cat(cli, {"run", "--rm", "--network", "none", "docker.io/" + Images::docker_ref(p.image)}), p.argv),
                 cli_env);
    EXPECT_EQ(r.code, 0) << p.image << " " << p.argv.front() << "\n" << r.err;
    EXPECT_EQ(r.out, p.out) << p.image << " " << p.argv.front() << "\n" << r.err;
  }
  for (const std::string& name : kImages) {
    SCOPED_TRACE(name);
    const auto sent = stored_facts("oci:" + im.layout.string() + ":" + name, home, "");
    const std::string stored = transport + Images::docker_ref(name);
    const std::string back = "oci:" + (d / "back").string() + ":" + name;
    auto copied = run({strata_binary(), "-q", "--home", home, "copy", stored, back}, env);
    ASSERT_EQ(copied.code, 0) << "strata copy " << stored << "\n" << copied.err;
    const auto read = stored_facts(back, home, "");
    EXPECT_EQ(read.config_digest, sent.config_digest);
    EXPECT_EQ(read.diff_ids, sent.diff_ids);
    EXPECT_EQ(read.layers.size(), sent.diff_ids.size());
    if (layers_are_diffs) {
      EXPECT_EQ(read.layers, sent.diff_ids);
    }
    // inspect reads the store itself.
    const auto inspected = stored_facts(stored, home, env);
    EXPECT_EQ(inspected.config_digest, sent.config_digest);
    EXPECT_EQ(inspected.diff_ids, sent.diff_ids);
  }
  // A load that stops part-way (a blob that does not verify) leaves the store as it was.
  auto images_before = run(cat(cli, {"images", "-q", "--no-trunc"}), cli_env);
  ASSERT_EQ(images_before.code, 0) << images_before.err;
  const std::string broken = broken_image(im, d.path(), home);
  auto failed = run({strata_binary(), "-q", "--home", home, "copy", broken, transport + "strata-test/broken:latest"}, env);
  EXPECT_EQ(failed.code, 1) << failed.out;
  EXPECT_EQ(failed.err.find('\n'), failed.err.size() - 1) << failed.err;
  EXPECT_NE(failed.err.find("nothing was loaded"), std::string::npos) << failed.err;
  auto images_after = run(cat(cli, {"images", "-q", "--no-trunc"}), cli_env);
  // The same images (the store lists images created in the same second in any order).
  auto sorted_lines = [](const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  EXPECT_EQ(sorted_lines(images_after.out), sorted_lines(images_before.out));
  EXPECT_NE(run(cat(cli, {"image", "inspect", "docker.io/strata-test/broken:latest"}), cli_env).code, 0);
  std::error_code ec;
  EXPECT_TRUE(stdfs::is_empty(d / "home/tmp", ec)) << "strata left staging in " << (d / "home/tmp");
}

TEST(Runtimes, DockerDaemonStoreTakesRunsAndGivesBackStrataImages) {
  expect_tool("dockerd");
  std::string docker = stdfs::exists("/usr/bin/docker") ? "/usr/bin/docker" : "docker";
  expect_tool(docker);
  RuntimeDir d;
  std::ofstream(d / "daemon.json") << "{}\n";
  std::string host = "unix://" + (d / "docker.sock").string();
  Daemon dockerd({"dockerd", "--config-file", (d / "daemon.json").string(), "--data-root", (d / "data").string(),
                  "--exec-root", (d / "exec").string(), "--pidfile", (d / "dockerd.pid").string(), "-H", host,
                  "--iptables=false", "--ip6tables=false", "--bridge=none", "--storage-driver", "vfs",
                  "--exec-opt", "native.cgroupdriver=cgroupfs"},
                 d / "dockerd.log");
  std::string cli_env = "DOCKER_CONFIG=" + shell_quote((d / "client").string());
  std::vector<std::string> cli{docker, "-H", host};
  ASSERT_TRUE(dockerd.wait_ready(cat(cli, {"version"}))) << dockerd.log();
  store_run_and_read_back("docker", "docker-daemon:", "DOCKER_HOST=" + shell_quote(host), cli, cli_env, d, true);
  dockerd.stop();
}

TEST(Runtimes, PodmanStoreTakesRunsAndGivesBackStrataImages) {
  expect_tool("podman");
  expect_tool("runc");
  expect_tool("curl");
  RuntimeDir d;
  std::ofstream(d / "containers.conf") << "[containers]\ndefault_ulimits = []\n";
  std::string cli_env = "CONTAINERS_CONF=" + shell_quote((d / "containers.conf").string());
  std::vector<std::string> podman{"podman",           "--root",          (d / "root").string(),
                                  "--runroot",        (d / "run").string(), "--tmpdir",
                                  (d / "tmp").string(), "--storage-driver", "vfs",
                                  "--cgroup-manager", "cgroupfs",        "--runtime",
                                  "runc",             "--events-backend", "file"};
  const std::string sock = (d / "podman.sock").string();
  // The API service on the same private store the podman CLI below uses.
  Daemon service(cat(cat({"env", "CONTAINERS_CONF=" + (d / "containers.conf").string()}, podman),
                     {"system", "service", "--time=0", "unix://" + sock}),
                 d / "podman-service.log");
  ASSERT_TRUE(service.wait_ready({"curl", "-sf", "--unix-socket", sock, "http://localhost/_ping"})) << service.log();
  store_run_and_read_back("podman", "podman:", "CONTAINER_HOST=" + shell_quote("unix://" + sock), podman, cli_env, d,
                          false);
  service.stop();
}

TEST(Runtimes, ContainerdImportsAndRunsTheOverlayAndTheScratchImage) {
  expect_tool("containerd");
  expect_tool("ctr");
  const Images& im = images();
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  std::map<std::string, std::string> refs;
  for (const std::string& name : kImages) {
    std::string ref = "strata-test/" + name + ":latest";
    auto imported = run(cat(c.ctr(), {"images", "import", "--snapshotter", "native", "--index-name", ref,
                                      im.oci_archive(name).string()}));
    EXPECT_EQ(imported.code, 0) << name << ": ctr images import\n" << imported.out << imported.err;
    refs[name] = ref;
  }
  c.run_programs([&](const std::string& image) { return refs[image]; });
  c.daemon.stop();
}

// containerd: strata writes each image into containerd's store itself (no
// archive, no ctr import): ctr runs it, strata reads it back bit-exactly (the
// same manifest digest), and no lease outlives the write.
TEST(Runtimes, StrataWritesStraightIntoContainerdWhichRunsTheImages) {
  expect_tool("containerd");
  expect_tool("ctr");
  const Images& im = images();
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  for (const std::string& name : kImages) {
    auto wrote = run_json(c.strata({"--json", "copy", "oci:" + im.layout.string() + ":" + name,
                                    "containerd:strata-test/" + name + ":latest"}));
    ASSERT_EQ(wrote.run.code, 0) << name << "\n" << wrote.run.err;
    auto listed = run(cat(c.ctr(), {"images", "ls", "-q"}));
    EXPECT_NE(listed.out.find("docker.io/strata-test/" + name + ":latest\n"), std::string::npos) << listed.out;
    // Read back: the manifest containerd holds is the one strata wrote.
    auto back = run_json(c.strata({"--json", "copy", "containerd:strata-test/" + name + ":latest",
                                   "oci:" + (d / "back").string() + ":" + name}));
    ASSERT_EQ(back.run.code, 0) << back.run.err;
    EXPECT_EQ(back.digest, wrote.digest) << name;
    EXPECT_FALSE(wrote.digest.empty());
  }
  c.run_programs([](const std::string& image) { return "docker.io/strata-test/" + image + ":latest"; });
  EXPECT_EQ(run(cat(c.ctr(), {"leases", "ls", "-q"})).out, "") << "a write's lease outlived it";
  c.daemon.stop();
}

// A second image on the same base writes only what the store lacks: the
// copy writes exactly the blobs new to containerd's content store (each
// present one is answered by Info, never sent), and the content store grows
// by exactly them and the manifest. Garbage collection keeps every blob of
// both images: the manifests carry containerd's child labels.
TEST(Runtimes, ASecondImageOnTheSameBaseWritesOnlyItsNewBlobsToContainerd) {
  expect_tool("containerd");
  const Images& im = images();
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  auto first = run_json(c.strata({"--json", "copy", "oci:" + im.layout.string() + ":overlay", "containerd:strata-test/overlay:1"}));
  ASSERT_EQ(first.run.code, 0) << first.run.err;
  std::set<std::string> before = c.content();
  auto inspected = run({strata_binary(), "inspect", "oci:" + im.layout.string() + ":plain"});
  ASSERT_EQ(inspected.code, 0) << inspected.err;
  const auto plain = nlohmann::json::parse(inspected.out);
  std::set<std::string> wanted{plain["config"]["digest"].get<std::string>()};
  for (const auto& l : plain["layers"]) wanted.insert(l["digest"].get<std::string>());
  std::set<std::string> shared;
  for (const auto& w : wanted) {
    if (before.contains(w)) shared.insert(w);
  }
  ASSERT_FALSE(shared.empty()) << "the two images share no base layer; the fixture changed";
  auto second = run_json(c.strata({"--json", "copy", "oci:" + im.layout.string() + ":plain", "containerd:strata-test/plain:1"}));
  ASSERT_EQ(second.run.code, 0) << second.run.err;
  EXPECT_EQ(second.json["blobsCopied"].get<std::size_t>(), wanted.size() - shared.size());
  EXPECT_EQ(second.json["blobsSkipped"].get<std::size_t>(), shared.size());
  std::set<std::string> after = c.content();
  std::set<std::string> added;
  for (const auto& a : after) {
    if (!before.contains(a)) added.insert(a);
  }
  std::set<std::string> expected_added{second.digest};
  for (const auto& w : wanted) {
    if (!shared.contains(w)) expected_added.insert(w);
  }
  EXPECT_EQ(added, expected_added);
  // A synchronous collection (ending a lease of our own with --sync) keeps both images whole.
  ASSERT_EQ(run(cat(c.ctr(), {"leases", "create", "--id", "gc-now"})).code, 0);
  ASSERT_EQ(run(cat(c.ctr(), {"leases", "rm", "--sync", "gc-now"})).code, 0);
  EXPECT_EQ(c.content(), after) << "the collector took content of a written image";
  c.daemon.stop();
}

// A copy of testdata's hello-umoci layout in `dir`, with beside its manifest
// (tag 1.0) an index of it (tag idx) and a referrer of it (untagged, as
// `--referrers` finds it). Returns the manifest's, the index's and the
// referrer's digests.
struct HelloLayout {
  std::string manifest, index, referrer;
};
HelloLayout hello_layout(const stdfs::path& dir) {
  stdfs::copy(source_dir() / "testdata/images/hello-umoci", dir, stdfs::copy_options::recursive);
  auto put = [&](const std::string& bytes) {
    const std::string d = oci::Digest::sha256_of(bytes).str();
    std::ofstream(dir / "blobs/sha256" / d.substr(7), std::ios::binary) << bytes;
    return d;
  };
  auto index_json = nlohmann::json::parse(std::ifstream(dir / "index.json"));
  HelloLayout h;
  h.manifest = index_json["manifests"][0]["digest"].get<std::string>();
  const auto manifest_size = index_json["manifests"][0]["size"].get<std::int64_t>();
  const nlohmann::json of_manifest = {{"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                                      {"digest", h.manifest},
                                      {"size", manifest_size}};
  nlohmann::json child = of_manifest;
  child["platform"] = {{"architecture", "amd64"}, {"os", "linux"}};
  const std::string index = nlohmann::json{{"schemaVersion", 2},
                                           {"mediaType", "application/vnd.oci.image.index.v1+json"},
                                           {"manifests", nlohmann::json::array({child})}}
                                .dump();
  h.index = put(index);
  const std::string empty = put("{}");
  const nlohmann::json empty_desc = {{"mediaType", "application/vnd.oci.empty.v1+json"}, {"digest", empty}, {"size", 2}};
  const std::string referrer = nlohmann::json{{"schemaVersion", 2},
                                              {"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                                              {"artifactType", "application/vnd.example.signature"},
                                              {"config", empty_desc},
                                              {"layers", nlohmann::json::array({empty_desc})},
                                              {"subject", of_manifest}}
                                   .dump();
  h.referrer = put(referrer);
  index_json["manifests"].push_back({{"mediaType", "application/vnd.oci.image.index.v1+json"},
                                     {"digest", h.index},
                                     {"size", index.size()},
                                     {"annotations", {{"org.opencontainers.image.ref.name", "idx"}}}});
  index_json["manifests"].push_back({{"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                                     {"digest", h.referrer},
                                     {"size", referrer.size()},
                                     {"artifactType", "application/vnd.example.signature"}});
  std::ofstream(dir / "index.json") << index_json.dump();
  return h;
}

// A collection now (of every namespace): ending a lease of our own with --sync.
void collect_garbage(const PrivateContainerd& c) {
  ASSERT_EQ(run(cat(c.ctr(), {"leases", "create", "--id", "gc-now"})).code, 0);
  ASSERT_EQ(run(cat(c.ctr(), {"leases", "rm", "--sync", "gc-now"})).code, 0);
}

// Content another tool stored without containerd's labels (here `ctr content
// ingest` of an index's manifest) is not "present" for strata: the copy of
// the index labels it, so the collector keeps its config and layers; a copy
// to NAME@sha256:… of content another record holds creates that record; and
// `--referrers` keeps the referrer by a label on its subject. Each of these
// lost content or the record once the write's lease ended.
TEST(Runtimes, ContentAlreadyInContainerdKeepsItsChildrenItsRecordAndItsReferrers) {
  expect_tool("containerd");
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  const HelloLayout h = hello_layout(d / "hello");
  const std::string layout = "oci:" + (d / "hello").string();

  // The index's manifest, held by another record and without labels, as
  // another tool may store it (written by strata, then its labels removed:
  // unreferenced content `ctr content ingest` leaves may go at containerd's
  // first collection after its start, before strata runs).
  ASSERT_EQ(run(c.strata({"-q", "copy", layout + ":1.0", "containerd:theirs:1"}, "idx")).code, 0);
  auto unlabelled = run(cat(c.ctr("idx"), {"content", "label", h.manifest, "containerd.io/gc.ref.content.config=",
                                           "containerd.io/gc.ref.content.l.0="}));
  ASSERT_EQ(unlabelled.code, 0) << unlabelled.err;
  auto labels = run(cat(c.ctr("idx"), {"content", "ls"}));
  ASSERT_EQ(labels.out.find("gc.ref.content.config"), std::string::npos) << labels.out;
  auto multi = run(c.strata({"-q", "copy", "--all", layout + ":idx", "containerd:multi:1"}, "idx"));
  ASSERT_EQ(multi.code, 0) << multi.err;
  collect_garbage(c);
  auto check = run(cat(c.ctr("idx"), {"images", "check"}));
  EXPECT_EQ(check.code, 0) << check.err;
  EXPECT_NE(check.out.find("complete (2/2)"), std::string::npos) << check.out << check.err;

  // NAME@digest over content that hello:1 already holds.
  ASSERT_EQ(run(c.strata({"-q", "copy", layout + ":1.0", "containerd:hello:1"}, "pin")).code, 0);
  auto pinned = run(c.strata({"-q", "copy", layout + ":1.0", "containerd:other@" + h.manifest}, "pin"));
  ASSERT_EQ(pinned.code, 0) << pinned.err;
  auto names = run(cat(c.ctr("pin"), {"images", "ls", "-q"}));
  EXPECT_NE(names.out.find("docker.io/library/other@" + h.manifest), std::string::npos) << names.out;

  // A referrer has no record: its subject keeps it.
  auto signed_copy = run(c.strata({"-q", "copy", "--referrers", layout + ":1.0", "containerd:signed:1"}, "ref"));
  ASSERT_EQ(signed_copy.code, 0) << signed_copy.err;
  collect_garbage(c);
  EXPECT_TRUE(c.content("ref").contains(h.referrer)) << "the collector took the referrer";
  EXPECT_EQ(run(cat(c.ctr("ref"), {"leases", "ls", "-q"})).out, "");
  c.daemon.stop();
}

// mirror's `images:` into containerd: each entry its record (one named by
// digest too), one lease per repository ended at the end, and each line
// names the image once, as copy prints it (it printed
// "containerd:NAME@sha256:X@sha256:X" for a destination named by digest).
TEST(Runtimes, MirrorWritesImagesIntoContainerdAndPrintsEachOnce) {
  expect_tool("containerd");
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  const HelloLayout h = hello_layout(d / "hello");
  const std::string layout = "oci:" + (d / "hello").string();
  std::ofstream(d / "mirror.yaml") << "images:\n"
                                   << "  - source: " << layout << ":idx\n    destination: containerd:mirrored:idx\n    all: true\n"
                                   << "  - source: " << layout << ":1.0\n    destination: containerd:mirrored@" << h.manifest << "\n";
  auto r = run(c.strata({"mirror", "--config", (d / "mirror.yaml").string()}));
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::set<std::string> printed;
  for (std::string line; std::getline(lines, line);) printed.insert(line);
  EXPECT_EQ(printed, (std::set<std::string>{layout + ":idx containerd:mirrored:idx@" + h.index,
                                            layout + ":1.0 containerd:mirrored@" + h.manifest}))
      << r.out;
  auto names = run(cat(c.ctr(), {"images", "ls", "-q"}));
  EXPECT_EQ(names.out, "docker.io/library/mirrored:idx\ndocker.io/library/mirrored@" + h.manifest + "\n");
  EXPECT_EQ(run(cat(c.ctr(), {"leases", "ls", "-q"})).out, "");
  c.daemon.stop();
}

// bundle load --dest containerd: gives each image its record: one the bundle
// pins by digest alone gets "NAME@sha256:…" (it got none, and the lease
// ending left nothing holding it), and each line names the image once.
TEST(Runtimes, BundleLoadIntoContainerdRecordsAnImagePinnedByDigest) {
  expect_tool("containerd");
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  const HelloLayout h = hello_layout(d / "hello");
  const std::string layout = "oci:" + (d / "hello").string();
  std::ofstream(d / "bundle.yaml") << "images:\n"
                                   << "  - source: " << layout << ":idx\n    destination: docker://reg.example/team/multi:1\n    all: true\n"
                                   << "  - source: " << layout << ":1.0\n    destination: docker://reg.example/team/hello@" << h.manifest << "\n";
  const std::string home = (d / "home").string();
  auto created = run({strata_binary(), "-q", "--home", home, "bundle", "create", "--out", (d / "bundle").string(), "--mirror",
                      (d / "bundle.yaml").string()});
  ASSERT_EQ(created.code, 0) << created.err;
  auto loaded = run(c.strata({"--home", home, "bundle", "load", (d / "bundle").string(), "--dest", "containerd:"}));
  ASSERT_EQ(loaded.code, 0) << loaded.err;
  std::istringstream lines(loaded.out);
  std::set<std::string> printed;
  for (std::string line; std::getline(lines, line);) printed.insert(line);
  EXPECT_EQ(printed, (std::set<std::string>{
                         "reg.example/team/multi:1 containerd:reg.example/team/multi:1@" + h.index,
                         "reg.example/team/hello@" + h.manifest + " containerd:reg.example/team/hello@" + h.manifest}))
      << loaded.out;
  collect_garbage(c);
  auto names = run(cat(c.ctr(), {"images", "ls", "-q"}));
  EXPECT_EQ(names.out, "reg.example/team/hello@" + h.manifest + "\nreg.example/team/multi:1\n");
  auto check = run(cat(c.ctr(), {"images", "check"}));
  EXPECT_EQ(check.code, 0) << check.err;
  EXPECT_EQ(run(cat(c.ctr(), {"leases", "ls", "-q"})).out, "");
  c.daemon.stop();
}

// An image record whose target size lies (`ctr images import` takes it from
// an archive's index.json) is read as one line naming the record, the two
// sizes and what to do; it said "containerd sent bytes 0+345 where 0 of 100
// was due", and nothing about the record.
TEST(Runtimes, AnImageRecordWhoseSizeLiesIsNamedWithTheNextStep) {
  expect_tool("containerd");
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  const stdfs::path lie = d / "lie";
  stdfs::copy(source_dir() / "testdata/images/hello-umoci", lie, stdfs::copy_options::recursive);
  auto index = nlohmann::json::parse(std::ifstream(lie / "index.json"));
  const std::string manifest = index["manifests"][0]["digest"].get<std::string>();
  const auto size = index["manifests"][0]["size"].get<std::int64_t>();
  for (const std::int64_t told : {size - 100, size + 100}) {
    index["manifests"][0]["size"] = told;
    index["manifests"][0]["annotations"] = {{"io.containerd.image.name", "docker.io/library/lie:1"},
                                            {"org.opencontainers.image.ref.name", "1"}};
    std::ofstream(lie / "index.json") << index.dump();
    const std::string tar = (d / "lie.tar").string();
    ASSERT_EQ(run({"tar", "-C", lie.string(), "-cf", tar, "oci-layout", "index.json", "blobs"}).code, 0);
    auto imported = run(cat(c.ctr(), {"images", "import", tar}));
    ASSERT_EQ(imported.code, 0) << imported.err;
    auto r = run(c.strata({"inspect", "containerd:lie:1"}));
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_EQ(r.err, "strata: containerd:docker.io/library/lie (containerd at " + c.sock +
                         ", namespace strata-test): the image record docker.io/library/lie:1 says " + manifest + " is " +
                         std::to_string(told) + " bytes, but containerd holds " + std::to_string(size) +
                         "; write the image there again, or remove the record (ctr -n strata-test images rm "
                         "docker.io/library/lie:1)\n");
    ASSERT_EQ(run(cat(c.ctr(), {"images", "rm", "docker.io/library/lie:1"})).code, 0);
  }
  c.daemon.stop();
}

// A containerd store opened for writing takes its lease when it first
// writes, not when it is opened: build and provision open their destination
// before the work (to fail early), and a build longer than the lease
// (STRATA_CONTAINERD_LEASE_SECONDS, an hour by default) had its lease
// collected before the delivery, which then failed ("lease does not exist").
// Here the store waits past a 1 s lease and a collection before it writes.
TEST(Runtimes, AContainerdWriteLeasesFromItsFirstWriteNotFromTheOpen) {
  expect_tool("containerd");
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  ASSERT_EQ(::setenv("STRATA_CONTAINERD_LEASE_SECONDS", "1", 1), 0);
  oci::OpenOptions options;
  options.home = d / "home";
  options.containerd_address = c.sock;
  options.containerd_namespace = "strata-test";
  auto ref = oci::parse_image_ref("containerd:late:1");
  ASSERT_TRUE(ref) << ref.error().message();
  auto opened = oci::open_store(*ref, oci::Access::kWrite, options);
  ::unsetenv("STRATA_CONTAINERD_LEASE_SECONDS");
  ASSERT_TRUE(opened) << opened.error().message();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // past the lease's expiry
  collect_garbage(c);
  auto src = oci::LayoutStore::open(source_dir() / "testdata/images/hello-umoci", oci::LayoutMode::kReadOnly);
  ASSERT_TRUE(src) << src.error().message();
  auto copied = oci::copy_image(**src, "1.0", *opened->store, std::string_view("1"), oci::CopyOptions{});
  ASSERT_TRUE(copied) << copied.error().message();
  ASSERT_TRUE(opened->store->close());
  EXPECT_EQ(run(cat(c.ctr(), {"images", "ls", "-q"})).out, "docker.io/library/late:1\n");
  EXPECT_EQ(run(cat(c.ctr(), {"leases", "ls", "-q"})).out, "");
  c.daemon.stop();
}

// containerd's socket named by a relative path (as CONTAINERD_ADDRESS or the
// option) is reached: gRPC took "unix://containerd.sock" for a host, logged
// its own lines, and strata said after 10 s that the socket did not speak
// gRPC.
TEST(Runtimes, AContainerdSocketNamedByARelativePathIsReached) {
  expect_tool("containerd");
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  const std::string hello = "oci:" + (source_dir() / "testdata/images/hello-umoci").string() + ":1.0";
  const std::string relative = stdfs::path(c.sock).filename().string();
  const std::string in_dir = "cd " + shell_quote(stdfs::path(c.sock).parent_path().string()) + " && ";
  std::string copy;
  for (const auto& a : std::vector<std::string>{strata_binary(), "-q", "--containerd-namespace", "strata-test", "copy",
                                                hello, "containerd:relative:1"}) {
    copy += shell_quote(a) + " ";
  }
  auto option = run({"sh", "-c", in_dir + copy + "--containerd-address " + shell_quote(relative)});
  EXPECT_EQ(option.code, 0) << option.err;
  EXPECT_EQ(option.err, "");
  auto variable = run({"sh", "-c", in_dir + "CONTAINERD_ADDRESS=" + shell_quote("unix://" + relative) + " " + copy});
  EXPECT_EQ(variable.code, 0) << variable.err;
  EXPECT_EQ(variable.err, "");
  EXPECT_EQ(run(cat(c.ctr(), {"images", "ls", "-q"})).out, "docker.io/library/relative:1\n");
  c.daemon.stop();
}

// `strata build` reads its base from containerd and delivers the overlay
// there: the runtime's store gets the image alone (the cache-key tags and use
// records stay in strata's local store), and ctr runs it.
TEST(Runtimes, BuildReadsItsBaseFromContainerdAndDeliversOnlyTheImageThere) {
  expect_tool("containerd");
  auto& fx = OverlayFixture::get();
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  std::string home = (d / "home").string();
  auto base = run(c.strata({"-q", "copy", fx.base_ref(), "containerd:strata-test/base:1"}));
  ASSERT_EQ(base.code, 0) << base.err;
  auto built = run(c.strata({"-q", "--home", home, "build", "--base", "containerd:strata-test/base:1", "--sources",
                             fx.sources().string(), "--platform", "linux/amd64", "--dest",
                             "containerd:strata-test/greet:1", "greet"}));
  ASSERT_EQ(built.code, 0) << built.err;
  EXPECT_EQ(run(cat(c.ctr(), {"images", "ls", "-q"})).out,
            "docker.io/strata-test/base:1\ndocker.io/strata-test/greet:1\n");
  auto r = run(cat(c.ctr(), {"run", "--rm", "--snapshotter", "native", "docker.io/strata-test/greet:1", "g1",
                             "/usr/bin/greet", "containerd"}));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "hello, containerd, from libgreet\n") << r.err;
  // The overlay is cached where strata keeps its own: a second build is a hit, delivered again.
  auto again = run(c.strata({"--home", home, "build", "--base", "containerd:strata-test/base:1", "--sources",
                             fx.sources().string(), "--platform", "linux/amd64", "--dest",
                             "containerd:strata-test/greet:2", "greet"}));
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("cache"), std::string::npos) << again.err;
  EXPECT_EQ(run(cat(c.ctr(), {"images", "ls", "-q"})).out,
            "docker.io/strata-test/base:1\ndocker.io/strata-test/greet:1\ndocker.io/strata-test/greet:2\n");
  EXPECT_EQ(run(cat(c.ctr(), {"leases", "ls", "-q"})).out, "");
  c.daemon.stop();
}

// Kubernetes' namespace: the image is listed there with the label CRI marks
// the images it manages with.
TEST(Runtimes, AnImageWrittenToK8sIoCarriesTheCriLabel) {
  expect_tool("containerd");
  const Images& im = images();
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  auto wrote = run(c.strata({"-q", "copy", "oci:" + im.layout.string() + ":overlay", "containerd:strata-test/overlay:k8s"},
                            "k8s.io"));
  ASSERT_EQ(wrote.code, 0) << wrote.err;
  auto listed = run(cat(c.ctr("k8s.io"), {"images", "ls"}));
  ASSERT_EQ(listed.code, 0) << listed.err;
  bool found = false;
  std::istringstream lines(listed.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("docker.io/strata-test/overlay:k8s ")) {
      found = true;
      EXPECT_NE(line.find("io.cri-containerd.image=managed"), std::string::npos) << line;
    }
  }
  EXPECT_TRUE(found) << listed.out;
  c.daemon.stop();
}

// An image of one incompressible 256 MiB layer in oci:<d>/img:big: a write
// of it to containerd lasts long enough to be interrupted.
std::string big_image(const RuntimeDir& d) {
  stdfs::create_directories(d / "rootfs");
  EXPECT_EQ(run({"sh", "-c", "head -c 268435456 /dev/urandom > " + shell_quote((d / "rootfs/blob").string())}).code, 0);
  EXPECT_EQ(run({"tar", "-C", (d / "rootfs").string(), "-cf", (d / "root.tar").string(), "."}).code, 0);
  auto imported = run({strata_binary(), "-q", "--home", (d / "home").string(), "import", (d / "root.tar").string(),
                       "--dest", "oci:" + (d / "img").string() + ":big", "--platform", "linux/amd64", "--compression", "none"});
  EXPECT_EQ(imported.code, 0) << imported.err;
  stdfs::remove_all(d / "rootfs");
  stdfs::remove(d / "root.tar");
  return "oci:" + (d / "img").string() + ":big";
}

// Starts `argv` with its output in `out`; the child's PID.
pid_t spawn(const std::vector<std::string>& argv, const stdfs::path& out, const std::string& env_name = "",
            const std::string& env_value = "") {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (!env_name.empty()) ::setenv(env_name.c_str(), env_value.c_str(), 1);
    int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

// Waits until containerd reports one of strata's writes under way.
bool write_under_way(const PrivateContainerd& c) {
  for (int i = 0; i < 3000; ++i) {
    if (run(cat(c.ctr(), {"content", "active"})).out.find("strata-sha256:") != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// containerd dying in the middle of a write: strata fails with one line
// naming the socket and what to check, and the restarted containerd holds no
// image record of it.
TEST(Runtimes, ContainerdDyingMidWriteIsOneLineNamingTheSocketAndLeavesNoImage) {
  expect_tool("containerd");
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  std::string big = big_image(d);
  pid_t pid = spawn(c.strata({"copy", big, "containerd:strata-test/big:1"}), d / "strata.out");
  bool seen = write_under_way(c);
  c.daemon.kill_now();
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(seen) << "the write finished before containerd could be killed";
  std::string err = slurp(d / "strata.out");
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 1) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "not one line:\n" << err;
  EXPECT_NE(err.find(c.sock), std::string::npos) << err;
  EXPECT_NE(err.find("containerd"), std::string::npos) << err;
  c.restart();
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  EXPECT_EQ(run(cat(c.ctr(), {"images", "ls", "-q"})).out, "") << "a write cut short left an image record";
  c.daemon.stop();
}

// strata killed in the middle of a write: no image record, a lease that
// keeps the partial content only until it expires, and after it expires
// (and the collector runs) neither the lease nor the content is left.
TEST(Runtimes, AWriteKilledMidwayLeavesNoImageAndNoLeaseOnceItExpires) {
  expect_tool("containerd");
  RuntimeDir d;
  PrivateContainerd c(d);
  ASSERT_TRUE(c.daemon.wait_ready(cat(c.ctr(), {"version"}))) << c.daemon.log();
  std::string big = big_image(d);
  auto started = std::chrono::steady_clock::now();
  pid_t pid = spawn(c.strata({"copy", big, "containerd:strata-test/big:1"}), d / "strata.err",
                    "STRATA_CONTAINERD_LEASE_SECONDS", "10");
  // Kill it once containerd reports the ingest under way.
  bool seen = write_under_way(c);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(seen) << "the write finished before it could be killed";
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(run(cat(c.ctr(), {"images", "ls", "-q"})).out, "") << "a killed write left an image record";
  auto leases = run(cat(c.ctr(), {"leases", "ls"})).out;
  EXPECT_NE(leases.find("containerd.io/gc.expire="), std::string::npos)
      << "the write ran under no expiring lease (killed after "
      << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count()
      << " ms):\n"
      << leases << slurp(d / "strata.err");
  std::this_thread::sleep_until(started + std::chrono::seconds(11));
  ASSERT_EQ(run(cat(c.ctr(), {"leases", "create", "--id", "gc-now"})).code, 0);
  ASSERT_EQ(run(cat(c.ctr(), {"leases", "rm", "--sync", "gc-now"})).code, 0);
  EXPECT_EQ(run(cat(c.ctr(), {"leases", "ls", "-q"})).out, "") << "the expired lease is still there";
  EXPECT_TRUE(c.content().empty()) << "content of the killed write survived its lease";
  EXPECT_EQ(run(cat(c.ctr(), {"content", "active"})).out.find("strata-sha256:"), std::string::npos)
      << "the killed write's ingest survived its lease";
  c.daemon.stop();
}

}  // namespace
}  // namespace strata::testing
