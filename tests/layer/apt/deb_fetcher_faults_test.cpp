// The .deb cache ($STRATA_HOME/debs) under filesystem faults
// (support/fault_env.hpp) at every step of a fetch: a clear error naming the
// file and the errno text, no file under debs/sha256/ that is not the
// package its name says, the partial download removed (a local failure is
// not resumable), the packages cached before intact, and the fetch done
// once the fault is gone.
#include <gtest/gtest.h>

#include <fstream>

#include "layer/apt/deb_fetcher.hpp"
#include "oci/registry/fake_transport.hpp"
#include "support/fault_env.hpp"
#include "support/random_image.hpp"
#include "support/temp_dir.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"

namespace strata::layer {
namespace {

namespace stdfs = std::filesystem;
using testing::at_every_step;
using testing::FaultEnv;
using testing::names_the_fault;
using testing::standard_faults;

TEST(DebFetchFaults, ACacheWriteFailsCleanlyAtEveryStep) {
  const std::string old_bytes = testing::random_bytes(5000, 1);
  const std::string new_bytes = testing::random_bytes(300000, 2);
  oci::testing::FakeTransport mirror([&](oci::http::Request& req, const oci::testing::RecordedRequest&) {
    const std::string& body = req.url.ends_with("old.deb") ? old_bytes : new_bytes;
    return oci::testing::FakeTransport::respond(req, 200, body, {{"Content-Length", std::to_string(body.size())}});
  });
  Lock lock;
  lock.platform = "linux/amd64";
  lock.sources.push_back({"http://mirror.invalid/debian", "stable", {"main"}, std::string(64, 'a'), 0, "",
                          std::nullopt});
  lock.packages.push_back({"old", "1", "amd64", "pool/old.deb", old_bytes.size(), sha256_hex(old_bytes), 0});
  LockPackage fresh{"new", "1", "amd64", "pool/new.deb", new_bytes.size(), sha256_hex(new_bytes), 0};
  ManualClock clock(0);
  for (const auto& fault : standard_faults()) {
    auto steps = at_every_step(fault, [&](FaultEnv& env) {
      testing::TempDir home;
      FetchOptions o;
      o.home = home.path();
      o.clock = &clock;
      o.jobs = 1;
      {
        fs::ScopedEnv real(fs::posix_env());
        ASSERT_TRUE(fetch_debs(mirror, lock, o));
      }
      Lock both = lock;
      both.packages.push_back(fresh);
      auto r = fetch_debs(mirror, both, o);
      fs::ScopedEnv real(fs::posix_env());
      if (!env.fired()) {
        ASSERT_TRUE(r) << r.error().message();
      } else if (!r) {
        EXPECT_TRUE(names_the_fault(r.error().message(), env));
        EXPECT_FALSE(r.error().is(ErrorCode::kUnavailable)) << "a local failure is not the network's";
      }
      for (const auto& e : stdfs::directory_iterator(home / "debs" / "sha256")) {
        EXPECT_EQ(sha256_hex(*fs::read_file(e.path())), e.path().filename().string())
            << "a wrong file under its hash after " << env.what_fired();
      }
      if (!r && env.fired_op() != fs::Op::kRemove) {
        EXPECT_FALSE(stdfs::exists(home / "debs" / "ingest" / (fresh.sha256 + ".partial"))) << env.what_fired();
      }
      EXPECT_EQ(*fs::read_file(deb_cache_path(home.path(), lock.packages[0].sha256)), old_bytes);
      auto again = fetch_debs(mirror, both, o);
      ASSERT_TRUE(again) << again.error().message() << " after " << env.what_fired();
      EXPECT_EQ(*fs::read_file(deb_cache_path(home.path(), fresh.sha256)), new_bytes);
    });
    EXPECT_GE(steps, fault.err == EXDEV || fault.err == EACCES ? 1u : 4u) << fault.name;
  }
}

// A mirror that cannot be reached (no such host, connection refused) is
// tried once per package, not attempts × the transport's backoff: a lock
// built with no network once took six minutes to fail.
TEST(DebFetchFaults, AnUnreachableMirrorFailsAtOnce) {
  int calls = 0;
  oci::testing::FakeTransport mirror([&](oci::http::Request& req, const oci::testing::RecordedRequest&)
                                         -> Result<oci::http::Response> {
    ++calls;
    return fail(ErrorCode::kUnreachable, req.url + ": Could not resolve host: mirror.invalid");
  });
  Lock lock;
  lock.platform = "linux/amd64";
  lock.sources.push_back({"http://mirror.invalid/debian", "stable", {"main"}, std::string(64, 'a'), 0, "",
                          std::nullopt});
  lock.packages.push_back({"a", "1", "amd64", "pool/a.deb", 10, std::string(64, 'b'), 0});
  lock.packages.push_back({"b", "1", "amd64", "pool/b.deb", 10, std::string(64, 'c'), 0});
  testing::TempDir home;
  ManualClock clock(0);
  FetchOptions o;
  o.home = home.path();
  o.clock = &clock;
  o.jobs = 1;
  auto r = fetch_debs(mirror, lock, o);
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(ErrorCode::kUnreachable));
  EXPECT_NE(r.error().message().find("pool/a.deb"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("pool/b.deb"), std::string::npos) << r.error().message();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(clock.total_slept(), std::chrono::milliseconds(0));
}

}  // namespace
}  // namespace strata::layer

namespace strata::layer {
namespace {

// Hostile round 2: a lock (from a repository, a bundle) whose .deb URL is
// file:///etc/passwd or the cloud metadata address was fetched before the
// size check refused it. Now the URL must lie under an apt archive, and
// nothing is requested or read before the lock is refused.
TEST(DebFetch, ALockWhoseUrlsLeaveAnAptArchiveIsRefusedBeforeAnyRequest) {
  int requests = 0;
  oci::testing::FakeTransport mirror([&](oci::http::Request& req, const oci::testing::RecordedRequest&) {
    ++requests;
    return oci::testing::FakeTransport::respond(req, 200, "x", {});
  });
  ManualClock clock(0);
  testing::TempDir home;
  FetchOptions o;
  o.home = home.path();
  o.clock = &clock;
  struct Case {
    std::string uri, filename, says;
  };
  for (const Case& c : std::vector<Case>{
           {"file:///etc", "passwd", "not an apt archive"},
           {"file:///", "etc/passwd", "not an apt archive"},
           {"http://169.254.169.254/latest", "meta-data/iam", "link-local"},
           {"http://[fe80::1]/debian", "pool/a.deb", "link-local"},
           {"http://metadata.google.internal/computeMetadata", "v1/x.deb", "metadata service"},
           {"http://metadata.google.internal./computeMetadata", "v1/x.deb", "metadata service"},
           {"http://2852039166/latest", "x.deb", "link-local"},
           {"http://0xa9fea9fe/latest", "x.deb", "link-local"},
           {"http://[::ffff:169.254.169.254]/latest", "x.deb", "link-local"},
           {"http://[fd00:ec2::254]/latest", "x.deb", "metadata address"},
           {"http://deb.debian.org/debian", "pool/../../x.deb", "not a plain path"},
           {"http://deb.debian.org/debian", "pool/a.deb?x=1", "not a plain path"},
           {"http://deb.debian.org/debian", "pool//a.deb", "not a plain path"},
       }) {
    Lock lock;
    lock.platform = "linux/amd64";
    lock.sources.push_back({c.uri, "stable", {"main"}, std::string(64, 'a'), 0, "", std::nullopt});
    lock.packages.push_back({"p", "1", "amd64", c.filename, 1, std::string(64, 'b'), 0});
    auto r = fetch_debs(mirror, lock, o);
    ASSERT_FALSE(r) << c.uri << " " << c.filename;
    EXPECT_NE(r.error().message().find(c.says), std::string::npos) << r.error().message();
    EXPECT_NE(r.error().message().find("before anything is fetched"), std::string::npos) << r.error().message();
  }
  EXPECT_EQ(requests, 0);
  EXPECT_FALSE(stdfs::exists(home / "debs" / "ingest"));
}

// A file: source that is an archive is read as before; one whose package
// is a link out of it is refused.
TEST(DebFetch, AFileSourceMustBeAnArchiveAndItsFilesInsideIt) {
  testing::TempDir dir;
  stdfs::create_directories(dir / "archive/dists/stable");
  stdfs::create_directories(dir / "archive/pool");
  const std::string bytes = testing::random_bytes(1000, 7);
  { std::ofstream(dir / "archive/pool/a.deb", std::ios::binary) << bytes; }
  stdfs::create_symlink("/etc/passwd", dir / "archive/pool/evil.deb");
  oci::testing::FakeTransport none([&](oci::http::Request& req, const oci::testing::RecordedRequest&) {
    return oci::testing::FakeTransport::respond(req, 500, "", {});
  });
  ManualClock clock(0);
  FetchOptions o;
  o.home = dir / "home";
  o.clock = &clock;
  Lock lock;
  lock.platform = "linux/amd64";
  lock.sources.push_back({"file://" + (dir / "archive").string(), "stable", {"main"}, std::string(64, 'a'), 0, "",
                          std::nullopt});
  lock.packages.push_back({"a", "1", "amd64", "pool/a.deb", bytes.size(), sha256_hex(bytes), 0});
  ASSERT_TRUE(fetch_debs(none, lock, o));
  lock.packages[0] = {"evil", "1", "amd64", "pool/evil.deb", 10, std::string(64, 'c'), 0};
  auto r = fetch_debs(none, lock, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("outside its source"), std::string::npos) << r.error().message();
}

}  // namespace
}  // namespace strata::layer
