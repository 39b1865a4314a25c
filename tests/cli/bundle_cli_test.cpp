// strata bundle create / load through the binary, on a real registry and the
// signed fixture archive: the same inputs give the same bytes, a load puts
// the images where their names say with the digests they had and seeds the
// .deb cache, a second load moves nothing, a damaged bundle is refused, a
// load SIGKILLed anywhere leaves nothing half-written and the next finishes,
// and the whole air gap rehearsed: the far side in a network namespace with
// no route out (`unshare -n`), a fresh registry and home there, and an
// offline build of the connected side's overlay digest. Also `--sources`
// with `--lock`: the lock's .debs from a mirror, checked by its hashes.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "layer/apt/lock_file.hpp"
#include "layer/overlay/overlay_fixture.hpp"
#include "oci/archive_store.hpp"
#include "oci/copy.hpp"
#include "oci/layout_store.hpp"
#include "support/cli_test.hpp"
#include "support/registry_server.hpp"
#include "util/sha.hpp"

namespace strata::testing {
namespace {

namespace stdfs = std::filesystem;

std::string digest_of(const std::string& out) {
  auto line = trim_nl(out);
  return line.substr(line.rfind('@') + 1);
}

// Every file of the .deb cache holds what its name says; no temporary file
// is left under debs/sha256.
std::vector<std::string> cache_problems(const stdfs::path& home) {
  std::vector<std::string> problems;
  std::error_code ec;
  for (const auto& e : stdfs::directory_iterator(home / "debs" / "sha256", ec)) {
    auto name = e.path().filename().string();
    if (sha256_hex(slurp(e.path())) != name) problems.push_back(e.path().string() + " does not hold its hash");
  }
  return problems;
}

class BundleCli : public CliTest {
 protected:
  void SetUp() override {
    auto started = RegistryServer::start(RegistryServer::Mode::kPlain);
    ASSERT_TRUE(started) << started.error().message();
    registry_ = std::move(*started);
    host_ = registry_->host_port();
    base_ = "docker://" + host_ + "/strata/base:1";
    auto pushed = strata({"--insecure-registry", host_, "copy", fx_.base_ref(), base_});
    ASSERT_EQ(pushed.code, 0) << pushed.err;
    base_digest_ = digest_of(pushed.out);
    lock_ = (dir_ / "greet.lock").string();
    auto resolved = strata({"resolve", "--base", fx_.base_ref(), "--sources", fx_.sources().string(), "--platform",
                            "linux/amd64", "greet", "--lock-out", lock_});
    ASSERT_EQ(resolved.code, 0) << resolved.err;
    mirror_ = (dir_ / "mirror.yaml").string();
    std::ofstream(mirror_) << "images:\n  - source: " << base_
                           << "\n    destination: docker://registry.site/strata/base:1\n";
  }

  // strata with the registry allowed over plain HTTP and a home of its own.
  RunResult at(const std::string& home, std::vector<std::string> args, const std::string& env = "") {
    args.insert(args.begin(), {strata_binary(), "--home", (dir_ / home).string(), "--insecure-registry", host_});
    return run(args, env);
  }

  RunResult create(const std::string& home, const stdfs::path& out) {
    return at(home, {"--json", "bundle", "create", "--out", out.string(), "--mirror", mirror_, "--lock", lock_});
  }

  std::vector<std::string> lock_hashes() {
    auto lock = layer::read_lock_file(lock_);
    EXPECT_TRUE(lock);
    std::vector<std::string> out;
    for (const auto& p : lock->packages) out.push_back(p.sha256);
    return out;
  }

  OverlayFixture& fx_ = OverlayFixture::get();
  std::unique_ptr<RegistryServer> registry_;
  std::string host_, base_, base_digest_, lock_, mirror_;
};

TEST_F(BundleCli, TheSameInputsGiveTheSameBytesAndALoadMovesThemOnce) {
  auto one = create("h1", dir_ / "one.tar");
  ASSERT_EQ(one.code, 0) << one.err;
  // Another home (the .debs downloaded again), options in another order.
  auto two = at("h2", {"bundle", "create", "--lock", lock_, "--json", "--mirror", mirror_, "--out",
                       (dir_ / "two.tar").string()});
  ASSERT_EQ(two.code, 0) << two.err;
  auto j1 = nlohmann::json::parse(one.out), j2 = nlohmann::json::parse(two.out);
  EXPECT_EQ(j1["sha256"], sha256_hex(slurp(dir_ / "one.tar")));
  EXPECT_EQ(j1["sha256"], j2["sha256"]);
  EXPECT_EQ(slurp(dir_ / "one.tar"), slurp(dir_ / "two.tar"));
  EXPECT_EQ(j1["digest"], j2["digest"]);
  ASSERT_EQ(j1["images"].size(), 1u);
  EXPECT_EQ(j1["images"][0]["name"], "registry.site/strata/base:1");
  EXPECT_EQ(j1["images"][0]["digest"], base_digest_);
  EXPECT_EQ(j1["debs"], lock_hashes().size());
  EXPECT_FALSE(stdfs::exists(dir_ / "one.tar.partial"));
  // A directory bundle holds the same layout the tar does.
  auto dir = create("h1", dir_ / "dir");
  ASSERT_EQ(dir.code, 0) << dir.err;
  EXPECT_EQ(nlohmann::json::parse(dir.out)["digest"], j1["digest"]);
  EXPECT_FALSE(stdfs::exists(dir_ / "dir" / ".strata"));
  // The same layout written as an oci-archive (every tag copied into it) is
  // the tar bundle, byte for byte: one writer of a layout as a tar.
  {
    auto layout = oci::LayoutStore::open(dir_ / "dir", oci::LayoutMode::kReadOnly);
    ASSERT_TRUE(layout) << layout.error().message();
    auto archive = oci::ArchiveStore::open(dir_ / "archive.tar", oci::ArchiveFormat::kOci, oci::ArchiveMode::kWrite);
    ASSERT_TRUE(archive) << archive.error().message();
    auto tags = (*layout)->list_tags();
    ASSERT_TRUE(tags) << tags.error().message();
    ASSERT_EQ(tags->size(), 2u);  // the image and the bundle index
    oci::CopyOptions all;
    all.all = true;
    for (const auto& tag : *tags) {
      auto copied = oci::copy_image(**layout, tag, **archive, tag, all);
      ASSERT_TRUE(copied) << tag << ": " << copied.error().message();
    }
    auto closed = (*archive)->close();
    ASSERT_TRUE(closed) << closed.error().message();
  }
  EXPECT_TRUE(slurp(dir_ / "archive.tar") == slurp(dir_ / "one.tar"))
      << run({"sh", "-c", "cmp -l " + (dir_ / "archive.tar").string() + " " + (dir_ / "one.tar").string() +
                              " | head; tar -tvf " + (dir_ / "archive.tar").string() + "; tar -tvf " +
                              (dir_ / "one.tar").string()})
             .out;
  // An existing output is refused, naming it.
  auto again = create("h1", dir_ / "one.tar");
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.err.find("one.tar exists"), std::string::npos) << again.err;
  // Other tools read the bundle as a layout.
  auto skopeo = run({"skopeo", "inspect", "--raw", "oci:" + (dir_ / "dir").string() + ":strata-bundle"});
  EXPECT_EQ(skopeo.code, 0) << skopeo.err;
  EXPECT_EQ("sha256:" + sha256_hex(skopeo.out), j1["digest"]);

  // The far side: a fresh registry and home.
  auto far = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(far);
  const std::string far_host = (*far)->host_port();
  auto load = at("far", {"--insecure-registry", far_host, "--json", "bundle", "load", (dir_ / "one.tar").string(),
                         "--dest", "docker://" + far_host, "--locks-out", (dir_ / "locks").string()});
  ASSERT_EQ(load.code, 0) << load.err;
  auto l = nlohmann::json::parse(load.out);
  ASSERT_EQ(l["images"].size(), 1u);
  EXPECT_EQ(l["images"][0]["destination"], "docker://" + far_host + "/strata/base:1");
  EXPECT_EQ(l["images"][0]["digest"], base_digest_);
  EXPECT_EQ(l["images"][0]["alreadyPresent"], false);
  EXPECT_EQ(l["debs"]["seeded"], lock_hashes().size());
  EXPECT_EQ(slurp(dir_ / "locks" / "greet.lock"), slurp(lock_));
  auto inspect = at("far", {"--insecure-registry", far_host, "inspect", "--raw", "docker://" + far_host + "/strata/base:1"});
  ASSERT_EQ(inspect.code, 0) << inspect.err;
  EXPECT_EQ("sha256:" + sha256_hex(inspect.out), base_digest_);
  for (const auto& h : lock_hashes()) EXPECT_TRUE(stdfs::exists(dir_ / "far" / "debs" / "sha256" / h)) << h;
  EXPECT_TRUE(cache_problems(dir_ / "far").empty());
  // Loaded again: nothing moves.
  auto noop = at("far", {"--insecure-registry", far_host, "--json", "bundle", "load", (dir_ / "one.tar").string(),
                         "--locks-out", (dir_ / "locks").string(), "--dest", "docker://" + far_host});
  ASSERT_EQ(noop.code, 0) << noop.err;
  auto n = nlohmann::json::parse(noop.out);
  EXPECT_EQ(n["images"][0]["alreadyPresent"], true);
  EXPECT_EQ(n["debs"]["seeded"], 0);
  EXPECT_EQ(n["debs"]["present"], lock_hashes().size());
  EXPECT_EQ(n["locks_written"].size(), 0u);
  // Into a layout, from the directory bundle: tagged with the full name.
  auto layout = at("far", {"bundle", "load", (dir_ / "dir").string(), "--dest", "oci:" + (dir_ / "images").string()});
  ASSERT_EQ(layout.code, 0) << layout.err;
  EXPECT_EQ(trim_nl(layout.out), "registry.site/strata/base:1 oci:" + (dir_ / "images").string() +
                                     ":registry.site/strata/base:1@" + base_digest_);
}

// A mirror config's repositories are expanded as `strata mirror` expands
// them: every tag the filters keep, named by the destination prefix.
TEST_F(BundleCli, ARepositoryEntryBundlesItsFilteredTags) {
  for (std::string tag : {"2", "3-rc1"}) {
    auto pushed = strata({"--insecure-registry", host_, "copy", base_, "docker://" + host_ + "/strata/base:" + tag});
    ASSERT_EQ(pushed.code, 0) << pushed.err;
  }
  std::ofstream(mirror_) << "repositories:\n  - source: docker://" << host_ << "/strata/base\n"
                         << "    destination: docker://registry.site\n    tags:\n      exclude: ['-rc']\n"
                         << "images:\n  - source: " << base_ << "\n    destination: docker://registry.site/other/base:9\n";
  // A user's own layout where the staging directory would go is refused, not removed.
  ASSERT_EQ(strata({"copy", fx_.base_ref(), "oci:" + (dir_ / "mine.partial").string() + ":kept"}).code, 0);
  auto refused = create("h1", dir_ / "mine");
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("is not a bundle being written"), std::string::npos) << refused.err;
  EXPECT_TRUE(stdfs::exists(dir_ / "mine.partial" / "oci-layout"));
  auto made = create("h1", dir_ / "repo.tar");
  ASSERT_EQ(made.code, 0) << made.err;
  auto j = nlohmann::json::parse(made.out);
  std::vector<std::string> names;
  for (const auto& i : j["images"]) names.push_back(i["name"]);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"registry.site/other/base:9", "registry.site/strata/base:1",
                                              "registry.site/strata/base:2"}));
  for (const auto& i : j["images"]) EXPECT_EQ(i["digest"], base_digest_);
  // Loaded into two repositories of one registry: the second gets the blobs
  // the first received (mounted), each image whole.
  auto far = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(far);
  const std::string far_host = (*far)->host_port();
  auto load = at("far", {"--insecure-registry", far_host, "--json", "bundle", "load", (dir_ / "repo.tar").string(),
                         "--dest", "docker://" + far_host});
  ASSERT_EQ(load.code, 0) << load.err;
  for (std::string ref : {"/other/base:9", "/strata/base:1", "/strata/base:2"}) {
    auto got = at("far", {"--insecure-registry", far_host, "inspect", "--raw", "docker://" + far_host + ref});
    ASSERT_EQ(got.code, 0) << ref << ": " << got.err;
    EXPECT_EQ("sha256:" + sha256_hex(got.out), base_digest_) << ref;
  }
}

TEST_F(BundleCli, ADamagedBundleIsRefusedAndSeedsNothing) {
  ASSERT_EQ(create("h1", dir_ / "b").code, 0);
  const auto hashes = lock_hashes();
  ASSERT_FALSE(hashes.empty());
  // One byte of one .deb flipped, its size kept.
  const auto blob = dir_ / "b" / "blobs" / "sha256" / hashes[0];
  std::string bytes = slurp(blob);
  bytes[bytes.size() / 2] ^= 0x20;
  stdfs::permissions(blob, stdfs::perms::owner_write, stdfs::perm_options::add);
  std::ofstream(blob, std::ios::binary | std::ios::trunc) << bytes;
  auto load = at("far", {"bundle", "load", (dir_ / "b").string(), "--dest", "oci:" + (dir_ / "images").string()});
  EXPECT_EQ(load.code, 1);
  EXPECT_NE(load.err.find("bundle .deb "), std::string::npos) << load.err;
  EXPECT_NE(load.err.find(hashes[0]), std::string::npos) << load.err;
  EXPECT_FALSE(stdfs::exists(dir_ / "far" / "debs" / "sha256" / hashes[0]));
  EXPECT_TRUE(stdfs::is_empty(dir_ / "far" / "debs" / "ingest"));
  EXPECT_TRUE(cache_problems(dir_ / "far").empty());
  // A directory that is not a bundle is named as such.
  auto image = at("far", {"bundle", "load", fx_.images().string()});
  EXPECT_EQ(image.code, 1);
  EXPECT_NE(image.err.find("not a bundle"), std::string::npos) << image.err;
}

// `BUNDLE@sha256:…`, as create prints it, loads only that bundle: another
// index (a different bundle under the same name) is refused before anything
// moves, and a malformed pin names what is wrong.
TEST_F(BundleCli, APinnedLoadTakesOnlyTheBundleCreatePrinted) {
  auto made = at("h1", {"bundle", "create", "--out", (dir_ / "b.tar").string(), "--lock", lock_});
  ASSERT_EQ(made.code, 0) << made.err;
  auto pinned = trim_nl(made.out).substr(trim_nl(made.out).rfind('\n') + 1);
  ASSERT_TRUE(pinned.starts_with((dir_ / "b.tar").string() + "@sha256:")) << made.out;
  // Another bundle under the same name: the mirror's image added.
  stdfs::rename(dir_ / "b.tar", dir_ / "first.tar");
  ASSERT_EQ(create("h1", dir_ / "b.tar").code, 0);
  auto other = at("far", {"bundle", "load", pinned, "--dest", "oci:" + (dir_ / "images").string()});
  EXPECT_EQ(other.code, 1);
  EXPECT_NE(other.err.find("not " + digest_of(made.out) + " as asked"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("nothing was loaded"), std::string::npos) << other.err;
  EXPECT_FALSE(stdfs::exists(dir_ / "images"));
  EXPECT_FALSE(stdfs::exists(dir_ / "far" / "debs" / "sha256" / lock_hashes()[0]));
  // The bundle it names loads.
  stdfs::rename(dir_ / "first.tar", dir_ / "b.tar");
  auto ok = at("far", {"bundle", "load", pinned});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(stdfs::exists(dir_ / "far" / "debs" / "sha256" / lock_hashes()[0]));
  auto bad = at("far", {"bundle", "load", (dir_ / "b.tar").string() + "@sha256:1234"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("is not a sha256 digest"), std::string::npos) << bad.err;
}

// SIGKILL at points spread over a whole load, many times over: the cache
// holds only verified .debs, and a re-run finishes with the same digests.
TEST_F(BundleCli, AKilledLoadLeavesNothingHalfWrittenAndTheNextFinishes) {
  ASSERT_EQ(create("h1", dir_ / "b.tar").code, 0);
  auto argv_of = [&](int i) {
    return std::vector<std::string>{strata_binary(), "--home", (dir_ / ("far" + std::to_string(i))).string(),
                                    "--insecure-registry", host_, "-q", "bundle", "load", (dir_ / "b.tar").string(),
                                    "--dest", "docker://" + host_ + "/run" + std::to_string(i)};
  };
  auto spawn = [&](int i) {
    auto args = argv_of(i);
    pid_t pid = ::fork();
    if (pid == 0) {
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  };
  // How long one whole load takes here: the kills are spread over it.
  auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  ::waitpid(spawn(0), &status, 0);
  auto whole = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  constexpr int kRuns = 12;
  int killed = 0;
  for (int i = 1; i <= kRuns; ++i) {
    pid_t pid = spawn(i);
    std::this_thread::sleep_for(whole * (i - 1) / kRuns);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    killed += WIFSIGNALED(status);
    const auto home = dir_ / ("far" + std::to_string(i));
    auto left = cache_problems(home);
    ASSERT_TRUE(left.empty()) << "run " << i << ": " << left.front();
    auto again = run(argv_of(i));
    ASSERT_EQ(again.code, 0) << "run " << i << ": " << again.err;
    for (const auto& h : lock_hashes()) EXPECT_TRUE(stdfs::exists(home / "debs" / "sha256" / h)) << "run " << i;
    EXPECT_TRUE(cache_problems(home).empty());
    EXPECT_TRUE(!stdfs::exists(home / "debs" / "ingest") || stdfs::is_empty(home / "debs" / "ingest")) << "run " << i;
    auto inspect = at("h1", {"inspect", "--raw", "docker://" + host_ + "/run" + std::to_string(i) + "/strata/base:1"});
    ASSERT_EQ(inspect.code, 0) << inspect.err;
    EXPECT_EQ("sha256:" + sha256_hex(inspect.out), base_digest_) << "run " << i;
  }
  RecordProperty("killed_mid_load", killed);
}

// `--out DIR/` (as a shell completes a directory, and as --help shows it)
// is DIR; a run that fails leaves no staging directory behind.
TEST_F(BundleCli, ATrailingSlashNamesTheDirectoryAndAFailedRunLeavesNoStaging) {
  const std::string out = (dir_ / "debs-only").string();
  auto made = at("h1", {"bundle", "create", "--lock", lock_, "--out", out + "/"});
  ASSERT_EQ(made.code, 0) << made.err;
  EXPECT_TRUE(trim_nl(made.out).starts_with(out + "@sha256:")) << made.out;
  EXPECT_TRUE(stdfs::exists(dir_ / "debs-only" / "index.json"));
  EXPECT_FALSE(stdfs::exists(dir_ / "debs-only" / ".partial"));
  EXPECT_FALSE(stdfs::exists(dir_ / "debs-only.partial"));
  auto loaded = at("h2", {"bundle", "load", trim_nl(made.out), "--locks-out", (dir_ / "locks").string()});
  EXPECT_EQ(loaded.code, 0) << loaded.err;

  // An image the registry does not hold fails the run once the bundle is
  // being written: nothing stays, for a directory or a tar.
  const std::string bad = (dir_ / "bad.yaml").string();
  std::ofstream(bad) << "images:\n  - source: docker://" << host_
                     << "/strata/missing:1\n    destination: docker://registry.site/strata/missing:1\n";
  for (std::string name : {"failed/", "failed.tar"}) {
    auto failed = at("h1", {"bundle", "create", "--mirror", bad, "--lock", lock_, "--out", (dir_ / name).string()});
    EXPECT_EQ(failed.code, 1) << failed.err;
    EXPECT_NE(failed.err.find("strata/missing"), std::string::npos) << failed.err;
    std::vector<std::string> left;
    for (const auto& e : stdfs::directory_iterator(dir_.path()))
      if (e.path().filename().string().starts_with("failed")) left.push_back(e.path().string());
    EXPECT_TRUE(left.empty()) << name << ": " << left.front();
  }
}

// --offline means no archive and no internet, not no site registry: the
// offline lock build of docs/fleet.md, with the base and the destination in
// the site's registry, named explicitly. A name that only implies Docker Hub
// is still refused, naming it.
TEST_F(BundleCli, AnOfflineLockBuildReachesTheRegistryItNames) {
  auto connected = at("h1", {"build", "--base", base_, "--lock", lock_, "--dest", "oci:" + (dir_ / "conn").string() + ":ov"});
  ASSERT_EQ(connected.code, 0) << connected.err;
  const std::string dest = "docker://" + host_ + "/team/dev:1";
  auto offline = at("h1", {"--offline", "build", "--base", base_, "--lock", lock_, "--dest", dest});
  ASSERT_EQ(offline.code, 0) << offline.err;
  EXPECT_EQ(digest_of(offline.out), digest_of(connected.out));
  auto env = at("h1", {"inspect", "--raw", dest}, "STRATA_OFFLINE=1");
  EXPECT_EQ(env.code, 0) << env.err;
  // The archive is still refused: a lock whose .debs this home lacks names
  // them (in a repository where the overlay is not found by its key).
  auto cold = at("cold", {"--offline", "build", "--base", base_, "--lock", lock_, "--dest",
                          "docker://" + host_ + "/team/cold:1"});
  EXPECT_EQ(cold.code, 1);
  EXPECT_NE(cold.err.find("not in the local cache"), std::string::npos) << cold.err;
  // Docker Hub by default, not by name: refused at once.
  auto hub = at("h1", {"--offline", "inspect", "debian:12"});
  EXPECT_EQ(hub.code, 1);
  EXPECT_NE(hub.err.find("debian:12"), std::string::npos) << hub.err;
  EXPECT_NE(hub.err.find("Docker Hub"), std::string::npos) << hub.err;
}

// A lock resolved on another base than --base: one warning line naming
// both digests, or with --strict a refusal before anything is built.
TEST_F(BundleCli, ALockOnAnotherBaseIsWarnedOfOrRefusedWithStrict) {
  const std::string layout = "oci:" + (dir_ / "conn").string();
  auto connected = at("h1", {"build", "--base", base_, "--lock", lock_, "--dest", layout + ":ov"});
  ASSERT_EQ(connected.code, 0) << connected.err;
  const std::string other = digest_of(connected.out);  // the overlay, as a base of its own
  auto quiet = at("h1", {"build", "--base", base_, "--lock", lock_, "--dest", layout + ":again"});
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("warning"), std::string::npos) << "the lock's own base: " << quiet.err;

  auto strict = at("h1", {"build", "--strict", "--base", layout + ":ov", "--lock", lock_, "--dest", layout + ":s"});
  EXPECT_EQ(strict.code, 1);
  EXPECT_NE(strict.err.find(base_digest_), std::string::npos) << strict.err;
  EXPECT_NE(strict.err.find(other), std::string::npos) << strict.err;
  EXPECT_NE(strict.err.find("--strict"), std::string::npos) << strict.err;
  EXPECT_FALSE(at("h1", {"inspect", layout + ":s"}).code == 0) << "nothing was built";

  auto warned = at("h1", {"-q", "build", "--base", layout + ":ov", "--lock", lock_, "--dest", layout + ":w"});
  ASSERT_EQ(warned.code, 0) << warned.err;
  ASSERT_EQ(std::count(warned.err.begin(), warned.err.end(), '\n'), 1) << warned.err;
  EXPECT_NE(warned.err.find("warning: --lock " + lock_ + " was resolved on base " + base_digest_), std::string::npos)
      << warned.err;
  EXPECT_NE(warned.err.find(other), std::string::npos) << warned.err;
}

// The whole air gap. Connected side: registry A, the fixture archive, a
// build with its lock, the bundle (twice: the same sha256). Far side, in a
// network namespace with only loopback (the archive and registry A are not
// reachable from it): a fresh registry and home, the bundle loaded into the
// registry and a layout, and an offline build from the loaded lock and .debs.
TEST_F(BundleCli, AirGapRehearsal) {
  auto connected = at("h1", {"build", "--base", base_, "--lock", lock_, "--dest", "oci:" + (dir_ / "conn").string() + ":ov"});
  ASSERT_EQ(connected.code, 0) << connected.err;
  const std::string overlay = digest_of(connected.out);
  auto one = create("h1", dir_ / "one.tar");
  auto two = create("h2", dir_ / "two.tar");
  ASSERT_EQ(one.code, 0) << one.err;
  ASSERT_EQ(two.code, 0) << two.err;
  const std::string sha = nlohmann::json::parse(one.out)["sha256"];
  EXPECT_EQ(sha, nlohmann::json::parse(two.out)["sha256"]);

  const auto far = dir_ / "far";
  stdfs::create_directories(far);
  stdfs::copy_file(dir_ / "one.tar", far / "site.tar");
  const std::string script = (far / "side.sh").string();
  std::ofstream(script) << R"SH(set -eu
far=$1 strata=$2 archive=$3
ip link set lo up
# No route out: the connected side's archive is unreachable from here.
if ip route get 192.0.2.1 >/dev/null 2>&1; then echo "a route out exists" >&2; exit 9; fi
if curl -s -o /dev/null --max-time 5 "$archive"; then echo "the archive is reachable" >&2; exit 9; fi
mkdir -p "$far/registry"
cat >"$far/registry/config.yml" <<EOF
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: $far/registry/data
http:
  addr: 127.0.0.1:5000
  secret: test-secret-not-for-production
EOF
/usr/bin/docker-registry serve "$far/registry/config.yml" >"$far/registry/log" 2>&1 &
reg=$!
trap 'kill $reg' EXIT
for i in $(seq 1 100); do grep -q "listening on" "$far/registry/log" && break; sleep 0.1; done
s="$strata --home $far/home --insecure-registry 127.0.0.1:5000"
$s bundle load "$far/site.tar" --dest docker://127.0.0.1:5000 --json >"$far/load.json"
$s inspect --raw docker://127.0.0.1:5000/strata/base:1 | sha256sum | cut -d' ' -f1 >"$far/registry.sha"
$s bundle load "$far/site.tar" --dest "oci:$far/images" --locks-out "$far/locks" >"$far/layout.out"
STRATA_OFFLINE=1 $s build --base "oci:$far/images:registry.site/strata/base:1" --lock "$far/locks/greet.lock" \
  --dest "oci:$far/out:ov" >"$far/build.out"
$s sbom "oci:$far/out:ov" >"$far/sbom.spdx.json"
sha256sum "$far/site.tar" | cut -d' ' -f1 >"$far/site.sha"
)SH";
  std::string archive_url;
  {
    std::ifstream in(fx_.sources());
    std::string line;
    std::getline(in, line);
    auto at_http = line.find("http://");
    archive_url = line.substr(at_http, line.find(' ', at_http) - at_http) + "/dists/stable/InRelease";
  }
  auto side = run({"unshare", "-n", "sh", script, far.string(), strata_binary(), archive_url});
  ASSERT_EQ(side.code, 0) << side.err << slurp(far / "registry" / "log");
  auto load = nlohmann::json::parse(slurp(far / "load.json"));
  ASSERT_EQ(load["images"].size(), 1u);
  EXPECT_EQ(load["images"][0]["digest"], base_digest_);
  EXPECT_EQ("sha256:" + trim_nl(slurp(far / "registry.sha")), base_digest_);
  EXPECT_EQ(digest_of(slurp(far / "build.out")), overlay);
  EXPECT_EQ(trim_nl(slurp(far / "site.sha")), sha);
  // The overlay built offline on the far side carries the SBOM the
  // connected side's build attached, byte for byte.
  auto here = at("h1", {"sbom", "oci:" + (dir_ / "conn").string() + ":ov"});
  ASSERT_EQ(here.code, 0) << here.err;
  EXPECT_EQ(slurp(far / "sbom.spdx.json"), here.out);
}

// --sources with --lock: the lock's .debs from a mirror of its archive (a
// copy in a directory, file://), verified by the lock's hashes.
TEST_F(BundleCli, SourcesRepointALockAtAMirror) {
  std::string keyring;
  {
    std::ifstream in(fx_.sources());
    std::string line;
    std::getline(in, line);
    keyring = line.substr(line.find("signed-by=") + 10, line.find(']') - line.find("signed-by=") - 10);
  }
  const auto copy = dir_ / "mirror";
  // What a mirror holds: dists/ and pool/ (not the fixture's gnupg home, where
  // a running gpg-agent keeps a socket no copy can take).
  stdfs::create_directories(copy);
  for (std::string part : {"dists", "pool"})
    stdfs::copy(fx_.root() / "archive" / "main" / part, copy / part, stdfs::copy_options::recursive);
  const auto list = (dir_ / "internal.list").string();
  std::ofstream(list) << "deb [signed-by=" << keyring << "] file://" << copy.string() << " stable main\n";
  auto fetched = at("m1", {"--json", "fetch", "--lock", lock_, "--sources", list});
  ASSERT_EQ(fetched.code, 0) << fetched.err;
  EXPECT_EQ(nlohmann::json::parse(fetched.out)["downloaded"], lock_hashes().size());
  EXPECT_TRUE(cache_problems(dir_ / "m1").empty());
  // build --lock --sources: fetched from the mirror, the connected digest.
  auto reference = at("h1", {"build", "--base", base_, "--lock", lock_, "--dest", "oci:" + (dir_ / "o").string() + ":a"});
  ASSERT_EQ(reference.code, 0) << reference.err;
  auto built = at("m2", {"build", "--base", base_, "--lock", lock_, "--sources", list, "--dest",
                         "oci:" + (dir_ / "o").string() + ":b"});
  ASSERT_EQ(built.code, 0) << built.err;
  EXPECT_EQ(digest_of(built.out), digest_of(reference.out));
  // Not ignored: a mirror that cannot be reached fails the build.
  const auto dead = (dir_ / "dead.list").string();
  std::ofstream(dead) << "deb [signed-by=" << keyring << "] http://127.0.0.1:1/debian stable main\n";
  // (into a new layout: in `o` the overlay is found by its key, and nothing is fetched)
  auto unreachable = at("m3", {"build", "--base", base_, "--lock", lock_, "--sources", dead, "--dest",
                               "oci:" + (dir_ / "o3").string() + ":c"});
  EXPECT_EQ(unreachable.code, 1);
  EXPECT_NE(unreachable.err.find("127.0.0.1:1"), std::string::npos) << unreachable.err;
  // A mirror that serves another suite is named.
  const auto other = (dir_ / "other.list").string();
  std::ofstream(other) << "deb [signed-by=" << keyring << "] file://" << copy.string() << " oldstable main\n";
  auto wrong = at("m4", {"fetch", "--lock", lock_, "--sources", other});
  EXPECT_EQ(wrong.code, 1);
  EXPECT_NE(wrong.err.find("no source given serves"), std::string::npos) << wrong.err;
  // A mirror whose package differs from the lock's is refused; nothing is cached.
  auto lock = layer::read_lock_file(lock_);
  ASSERT_TRUE(lock);
  const auto& p = lock->packages.front();
  const auto deb = copy / p.filename;
  std::string bytes = slurp(deb);
  bytes[bytes.size() / 2] ^= 0x20;
  std::ofstream(deb, std::ios::binary | std::ios::trunc) << bytes;
  auto tampered = at("m5", {"fetch", "--lock", lock_, "--sources", list});
  EXPECT_EQ(tampered.code, 1);
  EXPECT_NE(tampered.err.find("does not match the lock"), std::string::npos) << tampered.err;
  EXPECT_FALSE(stdfs::exists(dir_ / "m5" / "debs" / "sha256" / p.sha256));
}

}  // namespace
}  // namespace strata::testing
