// strata mirror's library: config parsing, and runs between OCI layouts and
// the real distribution registry (dry run, keep-going, one CopySession that
// sends each blob once, repositories with tag filters, per-registry settings).
#include "oci/mirror.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <set>
#include <thread>

#include "oci/layout_store.hpp"
#include "oci/media_types.hpp"
#include "oci/registry/fake_transport.hpp"
#include "oci/registry/keychain.hpp"
#include "oci/registry/registry_store.hpp"
#include "support/random_image.hpp"
#include "support/registry_log.hpp"
#include "support/registry_server.hpp"
#include "support/temp_dir.hpp"
#include "support/yaml_bombs.hpp"

namespace strata::oci {
namespace {

using strata::testing::RegistryServer;
using strata::testing::TempDir;
using strata::testing::push_image;
using strata::testing::random_bytes;

// Blob uploads a registry finished (the PUT that closes an upload session;
// a cross-repository mount has none).
std::size_t blob_puts(const RegistryServer& server) {
  auto all = strata::testing::registry_requests_after(server, 1);
  return static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [](const std::string& r) {
    return r.starts_with("PUT ") && r.find("/blobs/uploads/") != std::string::npos;
  }));
}

MirrorOptions plain_mirror(const OpenOptions& open) {
  MirrorOptions mo;
  mo.open = open;
  return mo;
}

TEST(MirrorConfigTest, ParsesImagesAndRefusesMistakes) {
  auto c = parse_mirror_config(R"(
parallel: 3
images:
  - source: docker://reg.example/team/app:v1
    destination: oci:/srv/mirror:app-v1
  - source: docker://reg.example/team/base:12
    destination: docker://other.example/base:12
    platform: linux/arm64
  - source: oci:/srv/in:x
    destination: docker://other.example/x:1
    all: true
)", "m.yaml");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->parallel, 3);
  ASSERT_EQ(c->images.size(), 3u);
  EXPECT_EQ(c->images[1].platform->str(), "linux/arm64");
  EXPECT_TRUE(c->images[2].all);
  for (const char* bad : {"images: []", "images:\n  - source: docker://a/b\n",
                          "images:\n  - source: docker://a/b\n    destination: oci:/x\n    colour: red\n",
                          "images:\n  - source: docker://a/b\n    destination: oci:/x\n    all: true\n    platform: linux/amd64\n",
                          "parallel: 0\nimages:\n  - source: docker://a/b\n    destination: oci:/x\n",
                          "imagez:\n  - {}\n", "[1, 2", "just text",
                          "repositories:\n  - source: docker://a.example/team/app:v1\n    destination: docker://b.example\n",
                          "repositories:\n  - source: docker://a.example/team/app\n    destination: oci:/x:tagged\n",
                          "repositories:\n  - source: docker://a.example/team/app\n    destination: docker://b.example\n"
                          "    tags: {semver: '>=banana'}\n",
                          "repositories:\n  - source: docker://a.example/team/app\n    destination: docker://b.example\n"
                          "    tags: {newest: -1}\n",
                          "registries:\n  a.example: {retries: zero}\nimages:\n  - source: docker://a/b\n    destination: oci:/x\n",
                          "registries:\n  a.example: {colour: red}\nimages:\n  - source: docker://a/b\n    destination: oci:/x\n"}) {
    auto r = parse_mirror_config(bad, "m.yaml");
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_NE(r.error().message().find("m.yaml"), std::string::npos) << r.error().message();
    }
  }
}

TEST(MirrorConfigTest, RefusesABillionLaughsNamingTheFile) {
  // Images sharing one entry through aliases are jobs each; levels of
  // aliases make a billion of them from 1 KiB.
  std::string shared = "images:\n  - &i {source: docker://a.example/b, destination: oci:/x}\n";
  for (int i = 0; i < 30000; ++i) shared += "  - *i\n";
  for (const std::string& yaml : {shared, strata::testing::billion_laughs(9, "images")}) {
    auto r = parse_mirror_config(yaml, "m.yaml");
    ASSERT_FALSE(r) << "read " << r->images.size() << " images";
    EXPECT_TRUE(r.error().message().starts_with("m.yaml: line ")) << r.error().message();
    EXPECT_NE(r.error().message().find(": YAML aliases expand to more than 100000 nodes (a 'billion laughs' document)"),
              std::string::npos)
        << r.error().message();
  }
}

TEST(MirrorRunTest, RegistryToLayoutsAndBackWithDryRunAndKeepGoing) {
  auto reg = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg) << reg.error().message();
  const std::string host = (*reg)->host_port();
  TempDir tmp;
  OpenOptions open;
  open.home = tmp / "home";
  open.insecure_registries = {host};
  open = with_shared_registries(open);
  Digest a = Digest::sha256_of(""), b = a;
  {
    auto src = open_store(*parse_image_ref("docker://" + host + "/team/a"), Access::kWrite, open);
    ASSERT_TRUE(src) << src.error().message();
    a = push_image(*src->store, "v1", {50000}, 'a');
    auto src_b = open_store(*parse_image_ref("docker://" + host + "/team/b"), Access::kWrite, open);
    ASSERT_TRUE(src_b);
    b = push_image(*src_b->store, "v1", {50000}, 'b');
  }
  const std::string out = (tmp / "mirror").string();
  auto config = parse_mirror_config("parallel: 2\nimages:\n"
                                    "  - source: docker://" + host + "/team/a:v1\n"
                                    "    destination: oci:" + out + ":a\n"
                                    "  - source: docker://" + host + "/team/missing:v1\n"
                                    "    destination: oci:" + out + ":missing\n"
                                    "  - source: docker://" + host + "/team/b:v1\n"
                                    "    destination: oci:" + out + ":b\n", "m.yaml");
  ASSERT_TRUE(config) << config.error().message();
  MirrorOptions mo = plain_mirror(open);

  // Dry run: digests resolved, nothing written.
  mo.dry_run = true;
  mo.keep_going = true;
  auto dry = run_mirror(*config, mo);
  ASSERT_EQ(dry.size(), 3u);
  ASSERT_TRUE(dry[0].result) << dry[0].result.error().message();
  EXPECT_EQ(dry[0].result->root.digest, a);
  EXPECT_FALSE(dry[1].result);
  EXPECT_EQ(dry[2].result->root.digest, b);
  EXPECT_FALSE(std::filesystem::exists(out));

  // Keep going: the missing image fails, the others are copied.
  mo.dry_run = false;
  int reported = 0;
  mo.on_done = [&](const MirrorOutcome&) { ++reported; };
  auto run = run_mirror(*config, mo);
  EXPECT_EQ(reported, 3);
  ASSERT_TRUE(run[0].result) << run[0].result.error().message();
  EXPECT_FALSE(run[1].result);
  EXPECT_TRUE(run[1].result.error().is(ErrorCode::kNotFound)) << run[1].result.error().message();
  ASSERT_TRUE(run[2].result) << run[2].result.error().message();
  auto layout = LayoutStore::open(out, LayoutMode::kReadOnly);
  ASSERT_TRUE(layout);
  EXPECT_EQ((*layout)->resolve("a")->digest, a);
  EXPECT_EQ((*layout)->resolve("b")->digest, b);

  // Without keep-going, a failure stops new copies (parallel 1: in order).
  auto stop_config = *config;
  stop_config.parallel = 1;
  mo.keep_going = false;
  auto stopped = run_mirror(stop_config, mo);
  EXPECT_TRUE(stopped[0].result);
  EXPECT_FALSE(stopped[1].result);
  EXPECT_FALSE(stopped[2].result);
  EXPECT_TRUE(stopped[2].result.error().is(ErrorCode::kCancelled));

  // And back: layout → registry.
  auto back = parse_mirror_config("images:\n  - source: oci:" + out + ":b\n    destination: docker://" + host +
                                      "/copies/b:v2\n", "m.yaml");
  ASSERT_TRUE(back);
  auto pushed = run_mirror(*back, mo);
  ASSERT_TRUE(pushed[0].result) << pushed[0].result.error().message();
  auto dst = open_store(*parse_image_ref("docker://" + host + "/copies/b:v2"), Access::kRead, open);
  ASSERT_TRUE(dst);
  EXPECT_EQ(dst->store->resolve("v2")->digest, b);
}

// Air-gap bundle: several images into one oci-archive in one run, in
// parallel. The archive is shared, written once, and holds every image.
TEST(MirrorRunTest, ManyImagesIntoOneArchive) {
  TempDir tmp;
  OpenOptions open;
  open.home = tmp / "home";
  std::vector<Digest> digests;
  {
    auto src = LayoutStore::open(tmp / "src", LayoutMode::kCreate);
    ASSERT_TRUE(src);
    for (char c : std::string("abcd")) digests.push_back(push_image(**src, std::string(1, c), {50000}, static_cast<unsigned>(c)));
  }
  std::string yaml = "parallel: 4\nimages:\n";
  for (char c : std::string("abcd")) {
    yaml += "  - source: oci:" + (tmp / "src").string() + ":" + c + "\n";
    yaml += "    destination: oci-archive:" + (tmp / "bundle.tar").string() + ":" + c + "\n";
  }
  auto config = parse_mirror_config(yaml, "bundle.yaml");
  ASSERT_TRUE(config) << config.error().message();
  MirrorOptions mo;
  mo.open = open;
  auto run = run_mirror(*config, mo);
  for (const auto& o : run) ASSERT_TRUE(o.result) << o.result.error().message();
  for (const auto& e : std::filesystem::directory_iterator(tmp.path()))
    EXPECT_FALSE(e.path().filename().string().starts_with(".")) << "staging left behind: " << e.path();
  auto archive = open_store(*parse_image_ref("oci-archive:" + (tmp / "bundle.tar").string()), Access::kRead, open);
  ASSERT_TRUE(archive) << archive.error().message();
  auto tags = archive->store->list_tags();
  ASSERT_TRUE(tags);
  EXPECT_EQ(*tags, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(archive->store->resolve("c")->digest, digests[2]);
}

TEST(MirrorConfigTest, ErrorsNameTheFileAndTheKey) {
  auto r = parse_mirror_config("repositories:\n  - source: docker://a.example/team/app\n"
                               "    destination: docker://b.example\n    tags: {semver: '>=banana'}\n", "m.yaml");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("m.yaml: repositories[0]: tags: `semver`"), std::string::npos) << r.error().message();
  r = parse_mirror_config("registries:\n  a.example: {retries: zero}\nimages: []\n", "m.yaml");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("m.yaml: registries: a.example: `retries`"), std::string::npos) << r.error().message();
  auto ok = parse_mirror_config("registries:\n  a.example:5000: {tls-verify: false, auth-file: auth.json, retries: 2, timeout: 9}\n"
                                "repositories:\n  - source: docker://a.example:5000/team/app\n"
                                "    destination: oci:/srv/m\n    tag-prefix: app-\n"
                                "    tags: {include: '^v', exclude: [rc, beta], newest: 2}\n",
                                "m.yaml", "/etc/strata");
  ASSERT_TRUE(ok) << ok.error().message();
  const auto& h = ok->registries.at("a.example:5000");
  EXPECT_EQ(*h.tls_verify, false);
  EXPECT_EQ(*h.authfile, std::filesystem::path("/etc/strata/auth.json"));
  EXPECT_EQ(*h.retries, 2);
  EXPECT_EQ(h.timeout->count(), 9);
  EXPECT_EQ(ok->repositories[0].tags.exclude, (std::vector<std::string>{"rc", "beta"}));
  EXPECT_EQ(ok->repositories[0].tag_prefix, "app-");
}

// issue 18: with `parallel: 2`, images sharing layers sent each shared layer
// twice. Now a blob in flight to a repository is awaited, and one another
// repository of the registry received is mounted: every unique blob is
// uploaded exactly once, counted in the destination registry's access log.
TEST(MirrorRunTest, ParallelImagesUploadEachBlobOnce) {
  auto a = RegistryServer::start(RegistryServer::Mode::kPlain);
  auto b = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(a && b);
  TempDir tmp;
  OpenOptions open;
  open.home = tmp / "home";
  open.insecure_registries = {(*a)->host_port(), (*b)->host_port()};
  open = with_shared_registries(open);
  const std::string base = random_bytes(300000, 1), tools = random_bytes(200000, 2);
  std::set<Digest> unique;
  auto push = [&](const std::string& repo, const std::string& tag, std::vector<std::string> layers) {
    auto s = open_store(*parse_image_ref("docker://" + (*a)->host_port() + "/" + repo), Access::kWrite, open);
    ASSERT_TRUE(s) << s.error().message();
    auto img = strata::testing::make_image_of(*s->store, layers);
    ASSERT_TRUE(s->store->put_manifest(img.manifest, tag));
    unique.insert(img.config.digest);
    for (const auto& l : img.layers) unique.insert(l.digest);
  };
  push("team/app", "v1", {base, tools, random_bytes(1000, 11)});
  push("team/app", "v2", {base, tools, random_bytes(1000, 12)});
  push("team/app", "v3", {base, random_bytes(1000, 13)});
  push("team/other", "v1", {base, tools, random_bytes(1000, 14)});
  std::string yaml = "parallel: 2\nimages:\n";
  auto add = [&](const std::string& from, const std::string& to) {
    yaml += "  - source: docker://" + (*a)->host_port() + "/" + from + "\n";
    yaml += "    destination: docker://" + (*b)->host_port() + "/" + to + "\n";
  };
  add("team/app:v1", "team/app:v1");
  add("team/app:v2", "team/app:v2");
  add("team/other:v1", "team/other:v1");
  add("team/app:v3", "team/app:v3");
  add("team/app:v1", "copies/app:v1");  // every blob already in another repository: mounted
  auto config = parse_mirror_config(yaml, "m.yaml");
  ASSERT_TRUE(config) << config.error().message();
  const std::size_t before = blob_puts(**b);
  MirrorOptions mo = plain_mirror(open);
  mo.copy.jobs = 4;
  auto run = run_mirror(*config, mo);
  std::uint64_t copied = 0, mounted = 0;
  for (const auto& o : run) {
    ASSERT_TRUE(o.result) << o.result.error().message();
    copied += o.result->blobs_copied;
    mounted += o.result->blobs_mounted;
  }
  EXPECT_EQ(unique.size(), 10u);  // four configs, the base, tools, four own layers
  EXPECT_EQ(blob_puts(**b) - before, unique.size()) << "one upload per unique blob";
  EXPECT_EQ(copied, unique.size());
  EXPECT_GE(mounted, 4u);  // copies/app:v1's four blobs at least
}

// Whole repositories with tag filters, into a registry under a prefix and
// into a layout with a tag prefix; the registries are reachable only through
// the config's per-registry settings (no --insecure-registry given).
TEST(MirrorRunTest, RepositoriesWithTagFiltersAndRegistrySettings) {
  auto a = RegistryServer::start(RegistryServer::Mode::kPlain);
  auto b = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(a && b);
  TempDir tmp;
  OpenOptions seed;
  seed.home = tmp / "home";
  seed.insecure_registries = {(*a)->host_port()};
  std::map<std::string, Digest> digests;
  {
    auto s = open_store(*parse_image_ref("docker://" + (*a)->host_port() + "/team/tool"), Access::kWrite, seed);
    ASSERT_TRUE(s);
    unsigned n = 20;
    for (std::string tag : {"1.0.0", "1.2.0", "1.3.0-rc1", "1.4.1", "2.0.0", "latest"})
      digests.emplace(tag, push_image(*s->store, tag, {3000}, n++));
  }
  const std::string layout = (tmp / "layout").string();
  auto yaml = [&](bool settings) {
    std::string y = "parallel: 2\n";
    if (settings)
      y += "registries:\n  " + (*a)->host_port() + ": {tls-verify: false, retries: 2, timeout: 20}\n  " +
           (*b)->host_port() + ": {tls-verify: false}\n";
    y += "repositories:\n"
         "  - source: docker://" + (*a)->host_port() + "/team/tool\n"
         "    destination: docker://" + (*b)->host_port() + "/mirror\n"
         "    tags: {semver: '>=1.2 <2', exclude: ['^1\\.3']}\n"
         "  - source: docker://" + (*a)->host_port() + "/team/tool\n"
         "    destination: oci:" + layout + "\n"
         "    tag-prefix: tool-\n"
         "    tags: {newest: 1}\n";
    return y;
  };
  OpenOptions open;
  open.home = tmp / "home";
  open = with_shared_registries(open);
  MirrorOptions mo = plain_mirror(open);
  mo.keep_going = true;

  // Without the settings the plain-HTTP registries cannot be reached: each
  // repository is one failed outcome naming its entry.
  auto without = parse_mirror_config(yaml(false), "m.yaml");
  ASSERT_TRUE(without) << without.error().message();
  auto refused = run_mirror(*without, mo);
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0].status(), MirrorStatus::kFailed);
  EXPECT_NE(refused[0].result.error().message().find("m.yaml: repositories[0]"), std::string::npos)
      << refused[0].result.error().message();

  auto config = parse_mirror_config(yaml(true), "m.yaml");
  ASSERT_TRUE(config) << config.error().message();
  auto run = run_mirror(*config, mo);
  ASSERT_EQ(run.size(), 3u);  // 1.4.1 and 1.2.0 to the registry, 2.0.0 to the layout
  for (const auto& o : run) ASSERT_TRUE(o.result) << o.result.error().message();
  EXPECT_EQ(run[0].entry.destination, "docker://" + (*b)->host_port() + "/mirror/team/tool:1.4.1");
  EXPECT_EQ(run[1].entry.destination, "docker://" + (*b)->host_port() + "/mirror/team/tool:1.2.0");
  EXPECT_EQ(run[2].entry.destination, "oci:" + layout + ":tool-2.0.0");
  OpenOptions check = seed;
  check.insecure_registries = {(*b)->host_port()};
  auto mirrored = open_store(*parse_image_ref("docker://" + (*b)->host_port() + "/mirror/team/tool"), Access::kRead, check);
  ASSERT_TRUE(mirrored);
  auto tags = mirrored->store->list_tags();
  ASSERT_TRUE(tags) << tags.error().message();
  std::sort(tags->begin(), tags->end());
  EXPECT_EQ(*tags, (std::vector<std::string>{"1.2.0", "1.4.1"}));
  EXPECT_EQ(mirrored->store->resolve("1.4.1")->digest, digests.at("1.4.1"));
  auto l = LayoutStore::open(layout, LayoutMode::kReadOnly);
  ASSERT_TRUE(l);
  EXPECT_EQ(*(*l)->list_tags(), (std::vector<std::string>{"tool-2.0.0"}));
  EXPECT_EQ((*l)->resolve("tool-2.0.0")->digest, digests.at("2.0.0"));
}

// A registry with TLS and Basic auth, reached with the config's auth-file and
// cert-dir for that host only.
TEST(MirrorRunTest, PerRegistryAuthFileAndCertDir) {
  auto reg = RegistryServer::start(RegistryServer::Mode::kHtpasswdTls);
  ASSERT_TRUE(reg) << reg.error().message();
  TempDir tmp;
  OpenOptions seed;
  seed.home = tmp / "home";
  seed.authfile = (*reg)->authfile().string();
  seed.cert_dirs = {(*reg)->certs_dir().string()};
  Digest pushed = Digest::sha256_of("");
  {
    auto s = open_store(*parse_image_ref("docker://" + (*reg)->host_port() + "/secure/app"), Access::kWrite, seed);
    ASSERT_TRUE(s) << s.error().message();
    pushed = push_image(*s->store, "v1", {4000}, 31);
  }
  const std::string out = (tmp / "out").string();
  auto yaml = [&](bool settings) {
    std::string y;
    if (settings)
      y += "registries:\n  " + (*reg)->host_port() + ":\n    auth-file: " + (*reg)->authfile().string() +
           "\n    cert-dir: " + (*reg)->certs_dir().string() + "\n";
    return y + "images:\n  - source: docker://" + (*reg)->host_port() + "/secure/app:v1\n    destination: oci:" +
           out + ":app\n";
  };
  OpenOptions open;
  open.home = tmp / "home";
  MirrorOptions mo = plain_mirror(with_shared_registries(open));
  auto without = run_mirror(*parse_mirror_config(yaml(false), "m.yaml"), mo);
  EXPECT_EQ(without[0].status(), MirrorStatus::kFailed);
  auto with = run_mirror(*parse_mirror_config(yaml(true), "m.yaml"), mo);
  ASSERT_TRUE(with[0].result) << with[0].result.error().message();
  EXPECT_EQ(with[0].result->root.digest, pushed);
}

// --dry-run asks each destination: what it has (present), and how many bytes
// of what it lacks would move (a blob it shares with another image is not
// counted).
TEST(MirrorRunTest, DryRunSaysWhatIsPresentAndWhatWouldMove) {
  auto reg = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg);
  TempDir tmp;
  OpenOptions open;
  open.home = tmp / "home";
  open.insecure_registries = {(*reg)->host_port()};
  open = with_shared_registries(open);
  auto src = LayoutStore::open(tmp / "src", LayoutMode::kCreate);
  ASSERT_TRUE(src);
  const std::string base = random_bytes(100000, 5);
  auto v1 = strata::testing::make_image_of(**src, {base, random_bytes(2000, 6)});
  auto v2 = strata::testing::make_image_of(**src, {base, random_bytes(3000, 7)});
  ASSERT_TRUE((*src)->put_manifest(v1.manifest, "v1"));
  ASSERT_TRUE((*src)->put_manifest(v2.manifest, "v2"));
  const std::string dst = "docker://" + (*reg)->host_port() + "/dry/app";
  auto entry = [&](const std::string& tag, const std::string& to) {
    return "  - source: oci:" + (tmp / "src").string() + ":" + tag + "\n    destination: " + to + "\n";
  };
  auto first = parse_mirror_config("images:\n" + entry("v1", dst + ":v1"), "m.yaml");
  ASSERT_TRUE(first);
  MirrorOptions mo = plain_mirror(open);
  ASSERT_TRUE(run_mirror(*first, mo)[0].result);

  auto config = parse_mirror_config("images:\n" + entry("v1", dst + ":v1") + entry("v2", dst + ":v2") +
                                        entry("v2", "oci:" + (tmp / "nowhere").string() + ":v2"),
                                    "m.yaml");
  ASSERT_TRUE(config);
  mo.dry_run = true;
  auto dry = run_mirror(*config, mo);
  ASSERT_EQ(dry.size(), 3u);
  for (const auto& o : dry) ASSERT_TRUE(o.estimate) << (o.result ? "" : o.result.error().message());
  EXPECT_EQ(dry[0].status(), MirrorStatus::kPresent);
  EXPECT_EQ(dry[0].estimate->bytes_missing, 0u);
  EXPECT_EQ(dry[1].status(), MirrorStatus::kWouldCopy);
  EXPECT_EQ(dry[1].estimate->blobs, 3u);
  EXPECT_EQ(dry[1].estimate->blobs_missing, 2u);  // its own layer and config; the base is there
  EXPECT_EQ(dry[1].estimate->bytes_missing, static_cast<std::uint64_t>(v2.layers[1].size + v2.config.size));
  EXPECT_EQ(dry[2].status(), MirrorStatus::kWouldCopy);
  EXPECT_EQ(dry[2].estimate->bytes_missing,
            static_cast<std::uint64_t>(v2.layers[0].size + v2.layers[1].size + v2.config.size));
  EXPECT_FALSE(std::filesystem::exists(tmp / "nowhere"));
}

// oci-archive at scale: reading one indexes it and stages only its small
// members (the large layer is streamed from the archive file); writing into
// an existing archive adds to it, and what it holds is not moved again.
TEST(MirrorRunTest, ArchivesAreIndexedAndAddedTo) {
  TempDir tmp;
  OpenOptions open;
  open.home = tmp / "home";
  auto src = LayoutStore::open(tmp / "src", LayoutMode::kCreate);
  ASSERT_TRUE(src);
  const std::size_t big = 6u << 20;
  auto a = push_image(**src, "a", {big, 1000}, 41);
  auto b = push_image(**src, "b", {2000}, 42);
  const std::string archive = (tmp / "bundle.tar").string();
  auto one = [&](const std::string& tag) {
    return parse_mirror_config("images:\n  - source: oci:" + (tmp / "src").string() + ":" + tag +
                                   "\n    destination: oci-archive:" + archive + ":" + tag + "\n",
                               "m.yaml");
  };
  MirrorOptions mo = plain_mirror(open);
  auto first = run_mirror(*one("a"), mo);
  ASSERT_TRUE(first[0].result) << first[0].result.error().message();
  auto second = run_mirror(*one("b"), mo);
  ASSERT_TRUE(second[0].result) << second[0].result.error().message();
  auto again = run_mirror(*one("a"), mo);
  ASSERT_TRUE(again[0].result) << again[0].result.error().message();
  EXPECT_TRUE(again[0].result->already_present);
  EXPECT_EQ(again[0].result->bytes_copied, 0u);

  // Read through a private TMPDIR: what is staged there stays far below the layer.
  const auto tmpdir = tmp / "tmpdir";
  std::filesystem::create_directories(tmpdir);
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  ::setenv("TMPDIR", tmpdir.c_str(), 1);
  {
    auto r = open_store(*parse_image_ref("oci-archive:" + archive), Access::kRead, open);
    ASSERT_TRUE(r) << r.error().message();
    std::uint64_t staged = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(tmpdir))
      if (e.is_regular_file()) staged += e.file_size();
    EXPECT_LT(staged, big / 4);
    auto tags = r->store->list_tags();
    ASSERT_TRUE(tags);
    EXPECT_EQ(*tags, (std::vector<std::string>{"a", "b"}));  // adding b kept a
    EXPECT_EQ(r->store->resolve("a")->digest, a);
    EXPECT_EQ(r->store->resolve("b")->digest, b);
    // The big layer, streamed from the archive, copies out whole and verified.
    auto out = LayoutStore::open(tmp / "out", LayoutMode::kCreate);
    ASSERT_TRUE(out);
    auto copied = copy_image(*r->store, "a", **out, "a", CopyOptions{});
    ASSERT_TRUE(copied) << copied.error().message();
    EXPECT_EQ(copied->root.digest, a);
    auto missing = r->store->resolve("nope");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message().find(archive), std::string::npos) << missing.error().message();
    EXPECT_EQ(missing.error().message().find("strata-archive"), std::string::npos) << missing.error().message();
  }
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
  for (const auto& e : std::filesystem::directory_iterator(tmp.path()))
    EXPECT_FALSE(e.path().filename().string().starts_with(".")) << "left behind: " << e.path();
}

// Concurrent creation of one new layout from several threads (and processes:
// the same lock) yields one valid layout, never a refusal.
TEST(MirrorRunTest, ConcurrentLayoutCreationIsSafe) {
  TempDir tmp;
  std::vector<std::jthread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      if (LayoutStore::open(tmp / "new", LayoutMode::kCreate)) ++ok;
    });
  threads.clear();
  EXPECT_EQ(ok.load(), 8);
}

// Tag patterns are RE2: what RE2 refuses (lookaround, backreferences, which
// std::regex took) is a config error naming the file, the entry and RE2's reason.
TEST(MirrorConfigTest, APatternRE2RefusesNamesTheFileTheEntryAndTheReason) {
  for (const char* pattern : {"^v(?=1)", "^(v)\\1"}) {
    auto r = parse_mirror_config(std::string("repositories:\n"
                                             "  - source: docker://a.example/team/app\n"
                                             "    destination: docker://b.example\n"
                                             "  - source: docker://a.example/team/tool\n"
                                             "    destination: docker://b.example\n"
                                             "    tags: {include: ['") + pattern + "']}\n",
                                 "m.yaml");
    ASSERT_FALSE(r) << pattern;
    const std::string& m = r.error().message();
    EXPECT_NE(m.find("m.yaml: repositories[1]: tags: `include`"), std::string::npos) << m;
    EXPECT_NE(m.find("RE2"), std::string::npos) << m;
    EXPECT_NE(m.find(std::string(pattern).find("(?=") != std::string::npos ? "invalid perl operator"
                                                                          : "invalid escape sequence"),
              std::string::npos)
        << m;
  }
}

// A tag the config itself names must be a valid tag; the entry is refused.
TEST(MirrorConfigTest, AConfigNamingAnInvalidTagIsRefused) {
  for (const std::string& tag : {std::string(50000, 'a'), std::string(30, 'a') + "!", std::string(".x")}) {
    auto r = parse_mirror_config("images:\n  - source: docker://a.example/team/app:v1\n"
                                 "    destination: oci:/srv/mirror:v1\n"
                                 "  - source: docker://a.example/team/app:" + tag + "\n"
                                 "    destination: docker://b.example/team/app:v1\n",
                                 "m.yaml");
    ASSERT_FALSE(r) << tag.substr(0, 40);
    EXPECT_NE(r.error().message().find("m.yaml: images[1]"), std::string::npos) << r.error().message().substr(0, 300);
  }
}

// A registry whose tag list holds tags that break the grammar (50,000
// characters, a '!'): they are skipped and reported, never matched against a
// pattern; the valid ones are mirrored. On std::regex the long tag crashed
// the run (stack overflow), whatever the pattern.
TEST(MirrorRunTest, ListedTagsBreakingTheGrammarAreSkippedAndCounted) {
  const std::string huge(50000, 'a');
  auto fake = std::make_shared<testing::FakeTransport>([&](http::Request& r, const testing::RecordedRequest&) {
    if (r.url.ends_with("/v2/team/app/tags/list")) {
      nlohmann::json body = {{"name", "team/app"},
                             {"tags", {"v1", huge, std::string(30, 'a') + "!", "v2"}}};
      return testing::FakeTransport::respond(r, 200, body.dump());
    }
    return testing::FakeTransport::respond(r, 404, R"({"errors":[{"code":"MANIFEST_UNKNOWN","message":"unknown"}]})");
  });
  registry::RegistryOptions ro;
  ro.transport = fake;
  ro.keychain = std::make_shared<const registry::Keychain>(registry::Keychain::anonymous());
  OpenOptions open;
  open.registries = std::make_shared<registry::RegistryClientCache>(ro);
  auto config = parse_mirror_config("repositories:\n"
                                    "  - source: docker://reg.example/team/app\n"
                                    "    destination: oci:/nonexistent/mirror\n"
                                    "    tags: {include: ['.*', '^(a+)+$']}\n",
                                    "m.yaml");
  ASSERT_TRUE(config) << config.error().message();

  std::vector<std::string> skipped;
  auto expanded = expand_repository(config->repositories[0], open, &skipped);
  ASSERT_TRUE(expanded) << expanded.error().message();
  ASSERT_EQ(expanded->size(), 2u);
  EXPECT_EQ((*expanded)[0].source, "docker://reg.example/team/app:v1");
  EXPECT_EQ((*expanded)[1].source, "docker://reg.example/team/app:v2");
  EXPECT_EQ(skipped, (std::vector<std::string>{huge, std::string(30, 'a') + "!"}));

  // The run says it once per repository, before planning, with the tags.
  MirrorOptions mo = plain_mirror(open);
  mo.dry_run = true;
  mo.keep_going = true;
  std::vector<std::string> reported;
  std::size_t planned = 0;
  mo.on_skipped_tags = [&](const MirrorRepository& repo, const std::vector<std::string>& tags) {
    EXPECT_EQ(repo.where, "m.yaml: repositories[0]");
    EXPECT_EQ(planned, 0u) << "reported before planning";
    reported.insert(reported.end(), tags.begin(), tags.end());
  };
  mo.on_planned = [&](const std::vector<MirrorOutcome>& outcomes) { planned = outcomes.size(); };
  auto run = run_mirror(*config, mo);
  EXPECT_EQ(reported, skipped);
  EXPECT_EQ(planned, 2u);
  EXPECT_EQ(run.size(), 2u);
}

}  // namespace
}  // namespace strata::oci
