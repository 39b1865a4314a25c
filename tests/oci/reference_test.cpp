#include "oci/reference.hpp"

#include <gtest/gtest.h>

namespace strata::oci {
namespace {

struct Case {
  const char* in;
  const char* normalised;
};

TEST(Reference, NormalisesLikeDocker) {
  const std::string d64(64, 'a');
  for (auto [in, out] : std::initializer_list<Case>{
           {"debian", "docker.io/library/debian:latest"},
           {"debian:12", "docker.io/library/debian:12"},
           {"docker.io/debian", "docker.io/library/debian:latest"},
           {"index.docker.io/library/debian:bookworm", "docker.io/library/debian:bookworm"},
           {"user/repo", "docker.io/user/repo:latest"},
           {"localhost/foo", "localhost/foo:latest"},
           {"localhost:5000/a/b:v1", "localhost:5000/a/b:v1"},
           {"127.0.0.1:41233/test/hello", "127.0.0.1:41233/test/hello:latest"},
           {"ghcr.io/o/r_x__y-z.w:1.0", "ghcr.io/o/r_x__y-z.w:1.0"},
           {"[::1]:5000/foo:t", "[::1]:5000/foo:t"},
       }) {
    auto r = parse_docker_reference(in);
    ASSERT_TRUE(r) << in << ": " << r.error().message();
    EXPECT_EQ(r->str(), out) << in;
  }
}

TEST(Reference, TagAndDigest) {
  std::string dg = "sha256:" + std::string(64, 'b');
  auto r = parse_docker_reference("reg.example:443/a/b:v1@" + dg);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->registry, "reg.example:443");
  EXPECT_EQ(r->repository, "a/b");
  EXPECT_EQ(r->tag, "v1");
  EXPECT_EQ(r->tag_or_digest(), dg);  // the digest pins the content
  auto only = parse_docker_reference("a@" + dg);
  ASSERT_TRUE(only);
  EXPECT_FALSE(only->tag);
  EXPECT_EQ(only->str(), "docker.io/library/a@" + dg);
}

TEST(Reference, RejectsTricks) {
  for (const char* bad : {"", "Debian", "a//b", "a/../b", "../etc/passwd", "a/./b", "a:", "a:-x", "a@sha256:zz",
                          "a b", "a\nb", "/abs", "a/", "host:99999/a", "host:0/a", "-a", "a--", "a..b",
                          "a:tag:tag2", "ghcr.io/", "x.io/A/b"}) {
    auto r = parse_docker_reference(bad);
    EXPECT_FALSE(r) << bad << " parsed as " << (r ? r->str() : "");
    if (!r) {
      EXPECT_NE(r.error().message().find("invalid image reference"), std::string::npos) << bad;
    }
  }
  EXPECT_FALSE(parse_docker_reference(std::string(300, 'a')));
  EXPECT_FALSE(parse_docker_reference("a:" + std::string(129, 't')));
  EXPECT_TRUE(parse_docker_reference("a:" + std::string(128, 't')));
}

TEST(Reference, ALoneRegistryHostIsNotAnImageName) {
  // Not docker.io/library/127.0.0.1:5000: the user named a registry and forgot the repository.
  for (const char* host : {"127.0.0.1:5000", "registry.internal", "registry.internal:5000", "localhost:5000",
                           "localhost", "[::1]:5000", "quay.io"}) {
    auto r = parse_docker_reference(host);
    ASSERT_FALSE(r) << host << " parsed as " << r->str();
    EXPECT_NE(r.error().message().find("no repository; write "), std::string::npos) << r.error().message();
  }
  EXPECT_TRUE(parse_docker_reference("ubuntu:22.04"));
  EXPECT_TRUE(parse_docker_reference("localhost:5000/app"));
  EXPECT_EQ(parse_docker_reference("127.0.0.1:5000/team/app:1")->repository, "team/app");
}

TEST(Reference, Transports) {
  auto oci = parse_image_ref("oci:/tmp/lay:v1");
  ASSERT_TRUE(oci);
  EXPECT_EQ(oci->transport, Transport::kOciLayout);
  EXPECT_EQ(oci->path, "/tmp/lay");
  EXPECT_EQ(oci->ref, "v1");
  auto bare = parse_image_ref("oci:rel/dir");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->ref, "");
  auto arch = parse_image_ref("docker-archive:/tmp/x.tar:foo/bar:v2");
  ASSERT_TRUE(arch);
  EXPECT_EQ(arch->transport, Transport::kDockerArchive);
  EXPECT_EQ(arch->path, "/tmp/x.tar");
  EXPECT_EQ(arch->docker.str(), "docker.io/foo/bar:v2");
  auto oa = parse_image_ref("oci-archive:/tmp/x.tar");
  ASSERT_TRUE(oa);
  EXPECT_EQ(oa->transport, Transport::kOciArchive);
  auto d = parse_image_ref("docker://localhost:5000/x");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->transport, Transport::kDocker);
  EXPECT_EQ(d->docker.registry, "localhost:5000");
  EXPECT_EQ(parse_image_ref("scratch")->transport, Transport::kScratch);
  EXPECT_FALSE(parse_image_ref("oci:"));
  EXPECT_FALSE(parse_image_ref("oci:/x:bad tag"));
  auto unsupported = parse_image_ref("containers-storage:foo");
  ASSERT_FALSE(unsupported);
  EXPECT_TRUE(unsupported.error().is(ErrorCode::kUnsupported));
}

}  // namespace
}  // namespace strata::oci
