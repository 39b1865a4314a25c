// End to end against the signed fixture archive over loopback HTTP: Release
// verification, indexes, pins and resolution; and hostile archives, each a
// clear error with nothing cached as verified.
#include "layer/apt/archive.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <mutex>

#include "layer/apt/archive_fixture.hpp"
#include "layer/apt/deb_fetcher.hpp"
#include "layer/apt/lock_file.hpp"
#include "util/fs.hpp"
#include "layer/debian/dpkg_status.hpp"
#include "layer/apt/resolver.hpp"
#include "oci/http/registry_transport.hpp"
#include "util/clock.hpp"
#include "support/fault_proxy.hpp"
#include "support/source_dir.hpp"

namespace strata::layer {
namespace {

namespace stdfs = std::filesystem;
using testing::ArchiveFixture;

// The production HTTP stack (redirects → retries → libcurl), with plain HTTP
// allowed as for every apt archive: integrity comes from the signed Release.
std::shared_ptr<oci::http::Transport> archive_transport() {
  oci::http::RegistryTransportOptions o;
  o.curl.allow_plain_http = true;
  o.curl.default_cert_dirs.clear();
  return oci::http::make_registry_transport(o);
}

struct Env {
  stdfs::path home;
  std::shared_ptr<oci::http::Transport> http = archive_transport();
  oci::http::Transport& transport = *http;
  Env() {
    char tmpl[] = "/tmp/strata-home-XXXXXX";
    home = ::mkdtemp(tmpl);
  }
  ~Env() { stdfs::remove_all(home); }

  AptSource source(const std::string& suite, const std::string& variant = "main") {
    auto& fx = ArchiveFixture::get();
    AptSource s;
    s.uri = fx.url(variant);
    s.suite = suite;
    s.components = {"main"};
    s.signed_by_paths = {fx.keyring().string()};
    s.where = "test:" + suite;
    return s;
  }
  std::string arch = "amd64";
  Clock* clock = &system_clock();
  Result<LoadedArchive> load(const std::vector<AptSource>& sources, std::vector<std::string> foreign = {}) {
    ArchiveOptions o;
    o.home = home;
    o.arch = arch;
    o.foreign_archs = std::move(foreign);
    o.clock = clock;
    return load_archive(transport, sources, o);
  }
  std::size_t cached_indexes() const {
    std::error_code ec;
    std::size_t n = 0;
    for ([[maybe_unused]] auto& e : stdfs::directory_iterator(home / "indexes/sha256", ec)) ++n;
    return n;
  }
  std::string resolve(const LoadedArchive& a, const std::vector<std::string>& req, const std::string& status = "",
                      ResolveOptions options = {}) {
    Resolver r(std::move(options));
    for (const auto& idx : a.indexes) r.add_index(idx.packages, a.sources[idx.source].priority);
    if (!status.empty()) r.set_installed(*read_dpkg_status({"status", status}));
    auto res = r.resolve(req);
    if (!res) return "ERROR: " + res.error().message();
    std::string out;
    for (const auto& p : res->install) out += p.package.name + " " + p.package.version + " " + p.package.architecture + "\n";
    return out;
  }
};

std::vector<AptSource> all_suites(Env& env, const std::string& variant = "main") {
  return {env.source("stable", variant), env.source("updates", variant), env.source("experimental", variant),
          env.source("backports", variant)};
}

TEST(Archive, LoadsVerifiedSuitesWithPinsAndCachesIndexes) {
  Env env;
  auto a = env.load(all_suites(env));
  ASSERT_TRUE(a.has_value()) << a.error().message();
  ASSERT_EQ(a->sources.size(), 4u);
  EXPECT_EQ(a->sources[0].priority, 500);
  EXPECT_EQ(a->sources[2].priority, 1);
  EXPECT_EQ(a->sources[3].priority, 100);
  EXPECT_EQ(a->sources[0].release_sha256.size(), 64u);
  EXPECT_FALSE(a->sources[0].fingerprint.empty());
  EXPECT_GE(env.cached_indexes(), 4u);
  // libfoo 2.0 from updates (500) beats 3.0 from experimental (NotAutomatic);
  // mawk (required) before gawk for awk; base-helper via Pre-Depends.
  EXPECT_EQ(env.resolve(*a, {"app"}), "app 1.0-1 amd64\nbase-helper 1.0 all\nlibfoo 2.0-1 amd64\nmawk 1.3.4-1 amd64\n");
  EXPECT_EQ(env.resolve(*a, {"mailer"}), "mailer 1 all\npostfix 3.7.11-0 amd64\n");
  EXPECT_EQ(env.resolve(*a, {"pyapp"}), "pyapp 1 all\npython3 3.11.2-1 amd64\ntool 1.0 amd64\n");
  EXPECT_EQ(env.resolve(*a, {"coreutils"}), "coreutils 9.1-1 amd64\n");
  std::string status = "Package: libfoo\nStatus: install ok installed\nVersion: 1.0-1\nArchitecture: amd64\n\n"
                       "Package: tool\nStatus: install ok installed\nVersion: 1.0\nArchitecture: amd64\n";
  EXPECT_EQ(env.resolve(*a, {"app"}, status), "app 1.0-1 amd64\nbase-helper 1.0 all\nmawk 1.3.4-1 amd64\n");
  EXPECT_EQ(env.resolve(*a, {"needs-newer"}, status), "libfoo 2.0-1 amd64\nneeds-newer 1 amd64\n");
  // Installed 1.0 is also in stable (500), so backports' 2.0 (100) is not the
  // candidate: apt says "tool is already the newest version".
  EXPECT_EQ(env.resolve(*a, {"tool"}, status), "");
  EXPECT_EQ(env.resolve(*a, {"tool=2.0~bpo1"}, status), "tool 2.0~bpo1 amd64\n");
  EXPECT_NE(env.resolve(*a, {"conflicter"}, status).find(" conflicter : Conflicts: libfoo but 1.0-1 is installed"),
            std::string::npos);
  EXPECT_NE(env.resolve(*a, {"broken-dep"}).find("broken-dep : Depends: does-not-exist (>= 1) but it is not installable"),
            std::string::npos);
  // A second load reuses the verified indexes from the cache.
  auto again = env.load(all_suites(env));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->indexes.size(), a->indexes.size());
}

TEST(Archive, DetachedSignatureIsAccepted) {
  auto& fx = ArchiveFixture::get();
  auto dir = fx.make_variant("detached");
  fx.resign("detached", "stable", "DETACHED=1");
  Env env;
  auto a = env.load({env.source("stable", "detached")});
  ASSERT_TRUE(a.has_value()) << a.error().message();
}

// What the real apt-get (tests/support/apt_simulate.sh) installs for the
// same request on the same fixture archive and dpkg status.
std::string apt_get_says(const stdfs::path& state, const std::vector<std::string>& suites, const std::string& status,
                         const std::string& archs, const std::vector<std::string>& req) {
  auto& fx = ArchiveFixture::get();
  stdfs::create_directories(state);
  std::string list;
  for (const auto& s : suites)
    list += "deb [signed-by=" + fx.keyring().string() + "] file:" + (fx.root() / "main").string() + " " + s + " main\n";
  std::ofstream(state / "sources.list") << list;
  std::ofstream(state / "status") << status;
  std::string cmd = (testing::source_dir() / "tests/support/apt_simulate.sh").string() + " " +
                    (state / "apt").string() + " " + (state / "sources.list").string() + " " +
                    (state / "status").string() + " " + archs + " --";
  for (const auto& r : req) cmd += " '" + r + "'";
  cmd += " 2>&1";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return "popen failed";
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int rc = ::pclose(p);
  if (rc != 0) return "ERROR (apt-get): " + out;
  return out;
}

const char* const kGlibStatus = R"(Package: libglib
Status: install ok installed
Version: 2.0-1
Architecture: amd64
Source: glib
Multi-Arch: same
Depends: libglib-data

Package: libglib-data
Status: install ok installed
Version: 2.0-1
Architecture: all
Source: glib
Multi-Arch: foreign

Package: libglib-bin
Status: install ok installed
Version: 2.0-1
Architecture: amd64
Source: glib

Package: libglib-extra
Status: install ok installed
Version: 2.0-1
Architecture: amd64
Source: glib
)";

// The fixture cases against the real apt-get: the same names, versions and
// architectures, including apt's upgrade of the other installed binaries of
// a source package (APT::Get::Upgrade-By-Source-Package).
TEST(Archive, ResolutionMatchesAptGetOnTheFixtureArchive) {
  Env env;
  std::vector<std::string> suites{"stable", "updates"};
  auto a = env.load({env.source("stable"), env.source("updates")}, {"i386"});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  std::string i386_status = std::string(kGlibStatus) +
                            "\nPackage: libglib\nStatus: install ok installed\nVersion: 2.0-1\nArchitecture: i386\n"
                            "Source: glib\nMulti-Arch: same\nDepends: libglib-data\n";
  struct Case {
    std::string status;
    std::vector<std::string> request;
    std::string expected;  // reviewed against apt-get 2.6.1
    bool i386 = false;
  };
  std::vector<Case> cases{
      {kGlibStatus, {"vips-dev"},
       "libglib 2.0-2 amd64\nlibglib-bin 2.0-2+b1 amd64\nlibglib-data 2.0-2 all\nlibglib-dev 2.0-2 amd64\n"
       "vips-dev 1 amd64\n"},
      {kGlibStatus, {"libglib-data"}, "libglib 2.0-2 amd64\nlibglib-bin 2.0-2+b1 amd64\nlibglib-data 2.0-2 all\n"},
      {kGlibStatus, {"glib-user"},
       "glib-user 1 amd64\nlibglib 2.0-2 amd64\nlibglib-bin 2.0-2+b1 amd64\nlibglib-data 2.0-2 all\n"},
      {kGlibStatus, {"libglib-extra"}, "libglib-extra 2.0-1.1 amd64\n"},
      {i386_status, {"libglib-tools"},
       "libglib 2.0-2 amd64\nlibglib 2.0-2 i386\nlibglib-bin 2.0-2+b1 amd64\nlibglib-data 2.0-2 all\n"
       "libglib-tools 2.0-2 amd64\n",
       true},
      {"", {"app"}, "app 1.0-1 amd64\nbase-helper 1.0 all\nlibfoo 2.0-1 amd64\nmawk 1.3.4-1 amd64\n"},
      {"", {"mailer", "pyapp"}, "mailer 1 all\npostfix 3.7.11-0 amd64\npyapp 1 all\npython3 3.11.2-1 amd64\ntool 1.0 amd64\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.request.front());
    ResolveOptions ro;
    if (c.i386) ro.foreign_archs = {"i386"};
    std::string strata = env.resolve(*a, c.request, c.status, ro);
    EXPECT_EQ(strata, c.expected);
    std::string archs = c.i386 ? "amd64,i386" : "amd64";
    EXPECT_EQ(strata, apt_get_says(env.home / ("apt-" + archs), suites, c.status, archs, c.request));
  }
}

// --platform linux/arm64 on an amd64 host: the arm64 indexes of the archive
// (nothing is executed), in the library and end to end through the binary.
TEST(Archive, ForeignPlatformResolvesFromItsOwnIndexes) {
  Env env;
  env.arch = "arm64";
  auto a = env.load({env.source("stable")});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  for (const auto& idx : a->indexes) EXPECT_TRUE(idx.arch == "arm64" || idx.arch == "all") << idx.arch;
  ResolveOptions ro;
  ro.native_arch = "arm64";
  const std::string expected = "app 1.0-1 arm64\nbase-helper 1.0 all\nlibfoo 1.0-1 arm64\nmawk 1.3.4-1 arm64\n";
  EXPECT_EQ(env.resolve(*a, {"app"}, "", ro), expected);
  EXPECT_EQ(apt_get_says(env.home / "apt-arm64", {"stable"}, "", "arm64", {"app"}), expected);
  // Packages only built for amd64 are not installable for arm64.
  EXPECT_NE(env.resolve(*a, {"needs-newer"}, "", ro).find("unable to locate package needs-newer:arm64"),
            std::string::npos);

  auto& fx = ArchiveFixture::get();
  stdfs::path list = env.home / "fixture.list";
  std::ofstream(list) << "deb [signed-by=" << fx.keyring().string() << "] " << fx.url() << " stable main\n";
  std::string cmd = "STRATA_HOME=" + (env.home / "cli-home").string() + " " + testing::strata_binary() +
                    " -q resolve app --platform linux/arm64 --sources " + list.string() + " 2>&1";  // -q: without "fetching …"
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  EXPECT_EQ(::pclose(p), 0) << out;
  EXPECT_EQ(out, expected);
}

// An InRelease verified once is not re-verified while its bytes and the
// trusted keys are the same; its Valid-Until is still checked on every run.
TEST(Archive, VerifiedReleaseIsRememberedButValidUntilStillApplies) {
  auto& fx = ArchiveFixture::get();
  fx.make_variant("memo");
  fx.resign("memo", "stable", "VALID_UNTIL_OFFSET=3600");
  Env env;
  auto a = env.load({env.source("stable", "memo")});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  std::vector<stdfs::path> memos;
  for (auto& e : stdfs::directory_iterator(env.home / "releases"))
    if (e.is_regular_file()) memos.push_back(e.path());  // by-url/ holds the bytes for --offline
  ASSERT_EQ(memos.size(), 1u);
  EXPECT_TRUE(stdfs::is_directory(env.home / "releases" / "by-url"));
  EXPECT_EQ(memos[0].filename().string().substr(0, 64), a->sources[0].release_sha256);
  // The remembered verification is what the next run uses (no gpgv): a
  // memo that says another suite is refused by the Release checks.
  std::string memo = *fs::read_file(memos[0], 1 << 20);
  std::string edited = memo;
  edited.replace(edited.find("Suite: stable"), 13, "Suite: oldstb");
  ASSERT_TRUE(fs::write_file_atomic(memos[0], edited).has_value());
  auto b = env.load({env.source("stable", "memo")});
  ASSERT_FALSE(b.has_value());
  EXPECT_NE(b.error().message().find("is for suite 'oldstb'"), std::string::npos) << b.error().message();
  ASSERT_TRUE(fs::write_file_atomic(memos[0], memo).has_value());
  // Two hours later the same verified bytes have expired.
  ManualClock later(system_clock().now() + 7200);
  env.clock = &later;
  auto c = env.load({env.source("stable", "memo")});
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message().find("expired: Valid-Until"), std::string::npos) << c.error().message();
}

struct Hostile {
  const char* name;
  const char* env;  // for resign; nullptr: mutate only
  std::function<void(const stdfs::path&)> mutate;
  const char* message;
};

void append(const stdfs::path& p, const std::string& s) { std::ofstream(p, std::ios::app) << s; }

TEST(Archive, HostileArchivesAreRefusedAndNothingIsCached) {
  auto& fx = ArchiveFixture::get();
  const std::string pk = "dists/stable/main/binary-amd64/Packages";
  std::vector<Hostile> cases{
      {"badsig", nullptr,
       [](const stdfs::path& d) {
         std::string p = (d / "dists/stable/InRelease").string();
         std::string cmd = "sed -i 's/^Label: strata-test/Label: strata-evil/' " + p;
         ASSERT_EQ(std::system(cmd.c_str()), 0);
       },
       "BAD signature"},
      {"unsigned", "KEY=none", nullptr, "not signed"},
      {"unknownkey", "KEY=unknown", nullptr, "not signed by a trusted key (signed by unknown key"},
      {"expired", "VALID_UNTIL_OFFSET=-3600", nullptr, "expired: Valid-Until"},
      {"future", "DATE_OFFSET=86400", nullptr, "is in the future"},
      {"hashmismatch", "", [&](const stdfs::path& d) {
         // Signed Release lists the original hashes; then the index changes.
         append(d / (pk + ".xz"), "x");
         append(d / (pk + ".gz"), "x");
         append(d / pk, "\n");
       }, "does not match the signed Release"},
      {"truncated", nullptr, [&](const stdfs::path& d) {
         stdfs::resize_file(d / (pk + ".xz"), 40);
         stdfs::remove(d / (pk + ".gz"));
         stdfs::remove(d / pk);
       }, "does not match the signed Release"},
      {"malformed", "", [&](const stdfs::path& d) {
         append(d / pk, "\nPackage: evil\nthis line has no colon\n");
         stdfs::remove(d / (pk + ".xz"));
         stdfs::remove(d / (pk + ".gz"));
       }, "expected 'Field: value'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto dir = fx.make_variant(c.name);
    bool resign_after = c.env != nullptr && std::string(c.env).empty();
    if (c.env && !resign_after) fx.resign(c.name, "stable", c.env);
    if (c.mutate) c.mutate(dir);
    if (resign_after && std::string(c.name) == "malformed") fx.resign(c.name, "stable", "");
    if (c.name == std::string("unsigned")) stdfs::remove(dir / "dists/stable/InRelease");
    Env env;
    auto a = env.load({env.source("stable", c.name)});
    ASSERT_FALSE(a.has_value());
    EXPECT_NE(a.error().message().find(c.message), std::string::npos) << a.error().message();
    EXPECT_EQ(env.cached_indexes(), 0u);
  }
}

TEST(Archive, TrustedYesNeedsExplicitOptIn) {
  Env env;
  auto s = env.source("stable");
  s.trusted = true;
  auto a = env.load({s});
  ASSERT_FALSE(a.has_value());
  EXPECT_NE(a.error().message().find("--allow-unsigned-archive"), std::string::npos);
}

TEST(Archive, SuiteMismatchAndMissingComponentAreRefused) {
  Env env;
  auto s = env.source("stable");
  s.components = {"contrib"};
  auto a = env.load({s});
  ASSERT_FALSE(a.has_value());
  EXPECT_NE(a.error().message().find("component 'contrib' is not listed"), std::string::npos);
  // A Release for another suite served under this suite's path.
  auto& fx = ArchiveFixture::get();
  auto dir = fx.make_variant("swapped");
  stdfs::remove_all(dir / "dists/stable");
  stdfs::copy(dir / "dists/updates", dir / "dists/stable", stdfs::copy_options::recursive);
  auto b = env.load({env.source("stable", "swapped")});
  ASSERT_FALSE(b.has_value());
  EXPECT_NE(b.error().message().find("is for suite 'updates'"), std::string::npos) << b.error().message();
}

}  // namespace
}  // namespace strata::layer

namespace strata::layer {
namespace {

// Counts what reaches the network, by URL.
class CountingTransport : public oci::http::Transport {
 public:
  explicit CountingTransport(oci::http::Transport& inner) : inner_(inner) {}
  Result<oci::http::Response> send(oci::http::Request& r) override {
    auto resp = inner_.send(r);
    std::lock_guard lock(mu_);
    urls.push_back(r.url + (resp ? " " + std::to_string(resp->status) : " error"));
    return resp;
  }
  std::vector<std::string> take() {
    std::lock_guard lock(mu_);
    std::sort(urls.begin(), urls.end());
    return std::exchange(urls, {});
  }
  std::vector<std::string> urls;

 private:
  oci::http::Transport& inner_;
  std::mutex mu_;
};

// Within --index-max-age a load asks the archive nothing; past it (or at 0)
// each InRelease is revalidated with a conditional GET (304: the cached
// indexes answer); an index the cache lacks makes the window ask anyway.
// Valid-Until applies inside the window too.
TEST(Archive, FreshIndexesNeedNoNetworkAndStaleOnesAreRevalidated) {
  auto& fx = ArchiveFixture::get();
  fx.make_variant("fresh");
  fx.resign("fresh", "stable", "VALID_UNTIL_OFFSET=3600");
  Env env;
  CountingTransport counting(env.transport);
  ManualClock clock(system_clock().now());
  std::vector<std::string> told;
  auto load = [&](std::int64_t max_age) {
    ArchiveOptions o;
    o.home = env.home;
    o.clock = &clock;
    o.index_max_age = max_age;
    o.decode_packages = false;
    o.on_fetch = [&](const std::string& m) { told.push_back(m); };
    return load_archive(counting, {env.source("stable", "fresh"), env.source("updates", "fresh")}, o);
  };
  auto first = load(300);
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_TRUE(first->indexes.front().packages.empty());  // read by name only
  ASSERT_NE(first->indexes.front().index, nullptr);
  auto fetched = counting.take();
  EXPECT_GE(fetched.size(), 4u);  // two InRelease, their Packages
  ASSERT_FALSE(told.empty());
  EXPECT_NE(told.front().find("/dists/stable/InRelease (never fetched here)"), std::string::npos) << told.front();
  told.clear();

  clock.advance(299);
  auto fresh = load(300);
  ASSERT_TRUE(fresh) << fresh.error().message();
  EXPECT_EQ(counting.take(), std::vector<std::string>{});
  EXPECT_TRUE(told.empty());
  EXPECT_EQ(fresh->sources[0].release_sha256, first->sources[0].release_sha256);
  EXPECT_EQ(fresh->indexes.size(), first->indexes.size());

  clock.advance(1);  // 300 s: past the window
  auto stale = load(300);
  ASSERT_TRUE(stale) << stale.error().message();
  auto revalidated = counting.take();
  ASSERT_EQ(revalidated.size(), 2u);
  EXPECT_NE(revalidated[0].find("/dists/stable/InRelease 304"), std::string::npos) << revalidated[0];
  EXPECT_NE(revalidated[1].find("/dists/updates/InRelease 304"), std::string::npos) << revalidated[1];
  ASSERT_EQ(told.size(), 1u);
  EXPECT_NE(told[0].find("revalidating, checked 5m ago, --index-max-age 5m"), std::string::npos) << told[0];
  told.clear();
  EXPECT_EQ(load(0).has_value(), true);  // 0: always revalidate
  EXPECT_EQ(counting.take().size(), 2u);
  told.clear();

  // The window's Release names an index the cache no longer has: ask.
  stdfs::remove_all(env.home / "indexes");
  auto refilled = load(300);
  ASSERT_TRUE(refilled) << refilled.error().message();
  auto asked = counting.take();
  EXPECT_GE(asked.size(), 4u);
  EXPECT_TRUE(std::any_of(asked.begin(), asked.end(), [](const std::string& u) {
    return u.find("/dists/stable/InRelease") != std::string::npos;
  }));

  // Past Valid-Until the window does not answer: the archive is asked, and
  // its (same, expired) Release is refused.
  clock.advance(3600);
  auto expired = load(7 * 86400);
  ASSERT_FALSE(expired);
  EXPECT_NE(expired.error().message().find("expired: Valid-Until"), std::string::npos) << expired.error().message();
  EXPECT_FALSE(counting.take().empty());
}

TEST(DebFetch, FetchesVerifiesResumesAndRefusesMismatches) {
  Env env;
  auto a = env.load({env.source("stable")});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  Resolver r({});
  for (const auto& idx : a->indexes) r.add_index(idx.packages, a->sources[idx.source].priority);
  auto res = r.resolve({"app"});
  ASSERT_TRUE(res.has_value()) << res.error().message();
  Lock lock;
  lock.platform = "linux/amd64";
  lock.request = {"app"};
  for (const auto& s : a->sources)
    lock.sources.push_back({s.source.uri, s.source.suite, s.source.components, s.release_sha256, *s.release.date,
                            s.fingerprint, std::nullopt});
  for (const auto& p : res->install)
    lock.packages.push_back({p.package.name, p.package.version, p.package.architecture, p.package.filename,
                             p.package.size, p.package.sha256, 0});
  ASSERT_EQ(lock.packages.size(), 4u);
  ManualClock clock(0);
  FetchOptions o;
  o.home = env.home;
  o.clock = &clock;
  // Offline with an empty cache: a clear error naming what is missing.
  o.offline = true;
  auto off = fetch_debs(env.transport, lock, o);
  ASSERT_FALSE(off.has_value());
  EXPECT_NE(off.error().message().find("not in the local cache: app 1.0-1 amd64"), std::string::npos);
  o.offline = false;
  // Resume: half of app's .deb is already in the ingest directory.
  const auto& app = lock.packages[0];
  auto& fx = ArchiveFixture::get();
  std::string full = *fs::read_file(fx.root() / "main" / app.filename);
  stdfs::create_directories(env.home / "debs/ingest");
  fs::write_file_atomic(env.home / "debs/ingest" / (app.sha256 + ".partial"), full.substr(0, full.size() / 2)).value();
  auto got = fetch_debs(env.transport, lock, o);
  ASSERT_TRUE(got.has_value()) << got.error().message();
  EXPECT_EQ(got->downloaded, 4u);
  EXPECT_EQ(*fs::read_file(deb_cache_path(env.home, app.sha256)), full);
  auto again = fetch_debs(env.transport, lock, o);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->cached, 4u);
  o.offline = true;
  EXPECT_TRUE(fetch_debs(env.transport, lock, o).has_value());
  o.offline = false;
  // A lock whose hash or size does not match what the mirror serves.
  Lock bad = lock;
  bad.packages.resize(1);
  bad.packages[0].sha256 = std::string(64, '0');
  auto mismatch = fetch_debs(env.transport, bad, o);
  ASSERT_FALSE(mismatch.has_value());
  EXPECT_NE(mismatch.error().message().find("does not match the lock"), std::string::npos);
  EXPECT_FALSE(stdfs::exists(deb_cache_path(env.home, bad.packages[0].sha256)));
  bad.packages[0] = lock.packages[0];
  bad.packages[0].size -= 1;
  bad.packages[0].sha256 = std::string(64, '1');
  ASSERT_FALSE(fetch_debs(env.transport, bad, o).has_value());
  EXPECT_FALSE(stdfs::exists(deb_cache_path(env.home, bad.packages[0].sha256)));
}

TEST(DebFetch, AMirrorCannotSendMoreThanTheLockSays) {
  Env env;
  auto& fx = ArchiveFixture::get();
  std::string upstream = fx.url();  // http://127.0.0.1:PORT/main
  upstream = upstream.substr(std::string("http://").size());
  upstream = upstream.substr(0, upstream.find('/'));
  auto proxy = strata::testing::FaultProxy::start(upstream, env.home);
  ASSERT_TRUE(proxy) << proxy.error().message();
  Lock lock;
  lock.platform = "linux/amd64";
  lock.request = {"tiny"};
  lock.sources.push_back({"http://" + (*proxy)->host_port() + "/main", "stable", {"main"}, std::string(64, 'a'), 0,
                          "", std::nullopt});
  lock.packages.push_back({"tiny", "1", "amd64", "pool/main/t/tiny/tiny_1_amd64.deb", 5, std::string(64, 'b'), 0});
  ManualClock clock(0);
  FetchOptions o;
  o.home = env.home;
  o.clock = &clock;
  o.attempts = 2;
  auto partial = env.home / "debs/ingest" / (std::string(64, 'b') + ".partial");
  std::uint64_t sent_before = 0;
  auto sent = [&] {  // body bytes the proxy wrote since the last call
    std::uint64_t n = 0;
    auto log = (*proxy)->log();
    for (const auto& a : log["applied"]) n += a.value("sent", std::uint64_t{0});
    return n - std::exchange(sent_before, n);
  };

  // A mirror that streams without end (no Content-Length) against a 5-byte
  // lock entry: stopped at 6 bytes, nothing left behind.
  (*proxy)->script(R"([{"method":"GET","path":".deb","action":"endless","times":10}])");
  auto endless = fetch_debs(env.transport, lock, o);
  ASSERT_FALSE(endless.has_value());
  EXPECT_TRUE(endless.error().is(ErrorCode::kFailedPrecondition)) << endless.error().message();
  EXPECT_NE(endless.error().message().find("more than the 5 bytes"), std::string::npos) << endless.error().message();
  EXPECT_FALSE(stdfs::exists(partial));
  EXPECT_FALSE(stdfs::exists(deb_cache_path(env.home, lock.packages[0].sha256)));
  EXPECT_LT(sent(), std::uint64_t{64} << 20) << "the download went on past the lock's size";

  // 200 MiB with a correct Content-Length: refused on the header.
  (*proxy)->script(R"([{"method":"GET","path":".deb","action":"endless","content_length":209715200,"times":10}])");
  auto announced = fetch_debs(env.transport, lock, o);
  ASSERT_FALSE(announced.has_value());
  EXPECT_NE(announced.error().message().find("209715200"), std::string::npos) << announced.error().message();
  EXPECT_FALSE(stdfs::exists(partial));
  EXPECT_LT(sent(), std::uint64_t{64} << 20) << "the body was read before it was refused";

  // A resumed partial with a mirror that ignores Range and sends too much.
  stdfs::create_directories(partial.parent_path());
  ASSERT_TRUE(fs::write_file_atomic(partial, "abc"));
  (*proxy)->script(R"([{"method":"GET","path":".deb","action":"endless","content_length":7,"times":10}])");
  auto resumed = fetch_debs(env.transport, lock, o);
  ASSERT_FALSE(resumed.has_value());
  EXPECT_FALSE(stdfs::exists(partial));
}

}  // namespace
}  // namespace strata::layer
