// strata mirror's library: config parsing, and runs between OCI layouts and
// the real distribution registry (dry run, keep-going, one CopySession).
#include "oci/mirror.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "oci/layout_store.hpp"
#include "oci/media_types.hpp"
#include "oci/registry/registry_store.hpp"
#include "support/random_image.hpp"
#include "support/registry_server.hpp"
#include "support/temp_dir.hpp"

namespace strata::oci {
namespace {

using strata::testing::RegistryServer;
using strata::testing::TempDir;
using strata::testing::push_image;

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
                          "imagez:\n  - {}\n", "[1, 2", "just text"}) {
    auto r = parse_mirror_config(bad, "m.yaml");
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_NE(r.error().message().find("m.yaml"), std::string::npos) << r.error().message();
    }
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
  MirrorOptions mo;
  mo.open = open;
  mo.destination_tag = [](const ImageRef& ref, const std::string& store_ref) -> std::optional<std::string> {
    if (ref.transport == Transport::kDocker) return ref.docker.tag.value_or("latest");
    return store_ref.empty() ? std::nullopt : std::optional<std::string>(store_ref);
  };

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
  mo.destination_tag = [](const ImageRef&, const std::string& store_ref) -> std::optional<std::string> {
    return store_ref;
  };
  auto run = run_mirror(*config, mo);
  for (const auto& o : run) ASSERT_TRUE(o.result) << o.result.error().message();
  auto archive = open_store(*parse_image_ref("oci-archive:" + (tmp / "bundle.tar").string()), Access::kRead, open);
  ASSERT_TRUE(archive) << archive.error().message();
  auto tags = archive->store->list_tags();
  ASSERT_TRUE(tags);
  EXPECT_EQ(*tags, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(archive->store->resolve("c")->digest, digests[2]);
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

}  // namespace
}  // namespace strata::oci
