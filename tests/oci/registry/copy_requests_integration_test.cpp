// Requests a copy sends to the real distribution registry, counted from the
// registries' access logs (counts, never times): a no-op re-copy costs one
// request at each end and no /v2/ ping; a copy within one registry through a
// shared RegistryClientCache mounts every blob.
#include <gtest/gtest.h>


#include "oci/copy.hpp"
#include "oci/media_types.hpp"
#include "oci/registry/registry_store.hpp"
#include "support/random_image.hpp"
#include "support/registry_log.hpp"
#include "support/registry_server.hpp"

namespace strata::oci::registry {
namespace {

using strata::testing::RegistryServer;

std::vector<std::string> requests_after(const RegistryServer& server, std::size_t n) {
  return testing::registry_requests_after(server, n);
}

RegistryOptions plain_options(const std::vector<const RegistryServer*>& servers) {
  RegistryOptions o;
  for (const auto* s : servers) o.insecure_hosts.push_back(s->host_port());
  o.use_default_cert_dirs = false;
  o.retry.initial_backoff = std::chrono::milliseconds(50);
  o.retry.max_attempts = 3;
  o.keychain = std::make_shared<const Keychain>(Keychain::anonymous());
  return o;
}

TEST(CopyRequestsTest, ANoOpCopyBetweenTwoRegistriesIsOneRequestAtEachEnd) {
  auto a = RegistryServer::start(RegistryServer::Mode::kPlain);
  auto b = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(a && b);
  RegistryClientCache cache(plain_options({a->get(), b->get()}));
  auto src = cache.open(DockerReference{(*a)->host_port(), "bench/src", {}, {}});
  auto dst = cache.open(DockerReference{(*b)->host_port(), "bench/dst", {}, {}});
  ASSERT_TRUE(src && dst);
  auto digest = testing::push_image(**src, "v1", {20000, 20001, 20002}, 1);
  CopyOptions o;
  auto first = copy_image(**src, "v1", **dst, "v1", o);
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_EQ(first->root.digest, digest);
  EXPECT_EQ(first->blobs_copied, 4u);

  auto before_a = requests_after(**a, 0).size();
  auto before_b = requests_after(**b, 0).size();
  // A fresh cache, as a new `strata copy` process has.
  RegistryClientCache fresh(plain_options({a->get(), b->get()}));
  auto src2 = fresh.open(DockerReference{(*a)->host_port(), "bench/src", {}, {}});
  auto dst2 = fresh.open(DockerReference{(*b)->host_port(), "bench/dst", {}, {}});
  ASSERT_TRUE(src2 && dst2);
  auto again = copy_image(**src2, "v1", **dst2, "v1", o);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_TRUE(again->already_present);
  EXPECT_EQ(again->root.digest, digest);
  auto after_a = requests_after(**a, before_a + 1);
  auto after_b = requests_after(**b, before_b + 1);
  ASSERT_EQ(after_a.size(), before_a + 1) << "source: one manifest GET, no /v2/ ping";
  ASSERT_EQ(after_b.size(), before_b + 1) << "destination: one manifest HEAD, no /v2/ ping";
  EXPECT_EQ(after_a.back(), "GET /v2/bench/src/manifests/v1");
  EXPECT_EQ(after_b.back(), "HEAD /v2/bench/dst/manifests/v1");
}

TEST(CopyRequestsTest, ACopyWithinOneRegistryMountsEveryBlobThroughOneClient) {
  auto reg = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg);
  RegistryClientCache cache(plain_options({reg->get()}));
  auto src = cache.open(DockerReference{(*reg)->host_port(), "team/src", {}, {}});
  auto dst = cache.open(DockerReference{(*reg)->host_port(), "team/dst", {}, {}});
  ASSERT_TRUE(src && dst);
  auto digest = testing::push_image(**src, "v1", {20000, 20001}, 2);
  EXPECT_EQ(cache.clients(), 1u);
  auto before = requests_after(**reg, 0).size();
  auto r = copy_image(**src, "v1", **dst, "v1", CopyOptions{});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->root.digest, digest);
  EXPECT_EQ(r->blobs_mounted, 3u);
  EXPECT_EQ(r->bytes_copied, 0u);
  // GET src manifest, HEAD dst manifest, per blob HEAD + mount POST, PUT manifest.
  auto after = requests_after(**reg, before + 1 + 1 + 3 * 2 + 1);
  EXPECT_EQ(after.size(), before + 1 + 1 + 3 * 2 + 1);
  for (std::size_t i = before; i < after.size(); ++i) EXPECT_NE(after[i], "GET /v2/") << "no ping";
}

}  // namespace
}  // namespace strata::oci::registry
