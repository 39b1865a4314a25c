#include "oci/reference.hpp"

#include <gtest/gtest.h>

#include "oci/archive_store.hpp"
#include "oci/copy.hpp"
#include "oci/layout_store.hpp"
#include "oci/open_store.hpp"
#include "support/random_image.hpp"
#include "support/temp_dir.hpp"

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

// A runtime's own store: the name normalises as Docker's does; containerd
// takes a digest (its records may be named by one, as CRI names repo
// digests), Docker and podman do not (they keep no manifest digest); a name
// is required, and the stores are one repository each, as a registry's.
TEST(Reference, RuntimeStoresNameImagesAsDockerDoes) {
  auto c = parse_image_ref("containerd:debian:12");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->transport, Transport::kContainerd);
  EXPECT_EQ(c->docker.str(), "docker.io/library/debian:12");
  EXPECT_EQ(c->str(), "containerd:docker.io/library/debian:12");
  EXPECT_EQ(store_ref(*c), "12");
  EXPECT_EQ(destination_tag(*c), "12");
  const std::string pin = "sha256:" + std::string(64, 'a');
  auto pinned = parse_image_ref("containerd:registry.site/team/app@" + pin);
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->docker.name(), "registry.site/team/app");
  EXPECT_EQ(destination_tag(*pinned), pin);  // a record named NAME@DIGEST keeps the content
  auto d = parse_image_ref("docker-daemon:strata/overlay");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->transport, Transport::kDockerDaemon);
  EXPECT_EQ(d->str(), "docker-daemon:docker.io/strata/overlay:latest");
  auto p = parse_image_ref("podman:localhost/app:1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->transport, Transport::kPodman);
  EXPECT_EQ(p->docker.registry, "localhost");
  for (const std::string& bad : std::vector<std::string>{"docker-daemon:x@" + pin, "podman:x@" + pin}) {
    auto r = parse_image_ref(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message().find("NAME[:TAG]"), std::string::npos) << r.error().message();
  }
  for (const std::string& bad : std::vector<std::string>{"containerd:", "podman:", "docker-daemon:", "containerd:UPPER"}) {
    auto r = parse_image_ref(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message().find(bad), std::string::npos) << r.error().message();
  }
  // Spelled as docker:// is, the reference says how to write it (it said
  // 'invalid repository path component ""').
  for (const std::string t : {"containerd", "docker-daemon", "podman"}) {
    auto r = parse_image_ref(t + "://app:1");
    ASSERT_FALSE(r) << t;
    EXPECT_EQ(r.error().message(), "invalid image reference \"" + t + "://app:1\": " + t + ": takes no \"//\" (" + t +
                                       ":app:1)");
  }
}

// What strata prints for an image it copied, built or imported (the
// destination as given, then "@sha256:…"), and skopeo's spelling of a pinned
// layout reference ("oci:DIR:sha256:…"), parse back to the same image, for
// every transport strata writes; so does ImageRef::str() of each.
TEST(Reference, WhatStrataPrintsParsesBackToTheSameImage) {
  testing::TempDir dir;
  const std::string lay = (dir / "lay").string(), oa = (dir / "x.tar").string(), da = (dir / "d.tar").string();
  std::optional<Digest> pushed;
  {
    auto layout = std::move(*LayoutStore::open(lay, LayoutMode::kCreate));
    pushed = testing::push_image(*layout, "v1", {3000}, 5);
    auto home = std::move(*LayoutStore::open(dir / "home" / "images", LayoutMode::kCreate));
    ASSERT_TRUE(copy_image(*layout, "v1", *home, "docker.io/library/img:v1", CopyOptions{}));
    auto oci_archive = std::move(*ArchiveStore::open(oa, ArchiveFormat::kOci, ArchiveMode::kWrite));
    ASSERT_TRUE(copy_image(*layout, "v1", *oci_archive, "v1", CopyOptions{}));
    ASSERT_TRUE(oci_archive->close());
    auto docker_archive = std::move(*ArchiveStore::open(da, ArchiveFormat::kDocker, ArchiveMode::kWrite));
    ASSERT_TRUE(copy_image(*layout, "v1", *docker_archive, "foo/bar:v2", CopyOptions{}));
    ASSERT_TRUE(docker_archive->close());
  }
  ASSERT_TRUE(pushed);
  const Digest digest = *pushed;
  const std::string at = "@" + digest.str();
  OpenOptions options;
  options.home = dir / "home";
  for (const std::string& printed : {
           "oci:" + lay + ":v1" + at, "oci:" + lay + at, "oci:" + lay + ":" + digest.str(),
           "oci-archive:" + oa + ":v1" + at, "oci-archive:" + oa + at, "oci-archive:" + oa + ":" + digest.str(),
           "docker-archive:" + da + ":foo/bar:v2" + at, "docker-archive:" + da + at,
           "local:img:v1" + at, "local:img" + at}) {
    SCOPED_TRACE(printed);
    auto ref = parse_image_ref(printed);
    ASSERT_TRUE(ref) << ref.error().message();
    for (const auto& r : {*ref, *parse_image_ref(ref->str())}) {
      auto opened = open_store(r, Access::kRead, options);
      ASSERT_TRUE(opened) << r.str() << ": " << opened.error().message();
      auto resolved = opened->store->resolve(opened->ref);
      ASSERT_TRUE(resolved) << r.str() << ": " << resolved.error().message();
      EXPECT_EQ(resolved->digest, digest) << r.str();
    }
  }
  // A registry reference pins the same way (no registry needed to check).
  auto docker = parse_image_ref("docker://registry.example/x/y:v1" + at);
  ASSERT_TRUE(docker);
  EXPECT_EQ(store_ref(*docker), digest.str());
  EXPECT_EQ(store_ref(*parse_image_ref(docker->str())), digest.str());
  // A path with "@" that is not a digest stays a path.
  auto at_path = parse_image_ref("oci:/srv/a@b:v1");
  ASSERT_TRUE(at_path);
  EXPECT_EQ(at_path->path, "/srv/a@b");
  EXPECT_EQ(at_path->ref, "v1");
}

// The tag a write into a reference leaves there: one rule for copy, build,
// import, provision and mirror.
TEST(Reference, DestinationTag) {
  auto tag = [](const std::string& text) {
    auto ref = parse_image_ref(text);
    EXPECT_TRUE(ref) << text;
    return ref ? destination_tag(*ref) : std::nullopt;
  };
  const std::string digest = "sha256:" + std::string(64, 'a');
  EXPECT_EQ(tag("docker://reg.example/team/app:v1"), "v1");
  EXPECT_EQ(tag("reg.example/team/app"), "latest");
  EXPECT_EQ(tag("docker://reg.example/team/app@" + digest), std::nullopt);  // by digest only
  EXPECT_EQ(tag("docker://reg.example/team/app:v1@" + digest), "v1");
  EXPECT_EQ(tag("local:dev:1"), "docker.io/library/dev:1");
  EXPECT_EQ(tag("oci:/srv/mirror:debian-12"), "debian-12");
  EXPECT_EQ(tag("oci:/srv/mirror"), std::nullopt);
  EXPECT_EQ(tag("oci:/srv/mirror@" + digest), std::nullopt);
  EXPECT_EQ(tag("oci-archive:/tmp/a.tar:base"), "base");
}

}  // namespace
}  // namespace strata::oci
