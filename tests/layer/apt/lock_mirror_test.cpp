// A lock re-pointed at a mirror of its sources (--sources with --lock).
#include "layer/apt/lock_mirror.hpp"

#include <gtest/gtest.h>

namespace strata::layer {
namespace {

TEST(LockMirror, EachSourceTakesTheMirrorOfItsSuiteAndComponents) {
  Lock l;
  l.sources.push_back({"http://deb.debian.org/debian", "bookworm", {"main"}, std::string(64, 'a'), 1, "F", std::nullopt});
  l.sources.push_back({"http://deb.debian.org/debian-security", "bookworm-security", {"main"}, std::string(64, 'b'), 1,
                       "F", std::nullopt});
  l.packages.push_back({"greet", "1.0", "amd64", "pool/g.deb", 10, std::string(64, 'c'), 0});
  AptSource security;
  security.uri = "file:///srv/mirror/security";
  security.suite = "bookworm-security";
  security.components = {"main", "contrib"};
  AptSource main;
  main.uri = "http://mirror.internal/debian";
  main.suite = "bookworm";
  main.components = {"main"};
  auto moved = repoint_lock(l, {security, main});
  ASSERT_TRUE(moved) << moved.error().message();
  EXPECT_EQ(moved->sources[0].uri, "http://mirror.internal/debian");
  EXPECT_EQ(moved->sources[1].uri, "file:///srv/mirror/security");
  // Everything else is the lock's: its hashes check what the mirror sends.
  EXPECT_EQ(moved->sources[0].release_sha256, l.sources[0].release_sha256);
  EXPECT_EQ(moved->packages[0].sha256, l.packages[0].sha256);

  main.components = {"contrib"};
  main.where = "internal.list:1";
  auto missing = repoint_lock(l, {security, main});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("http://deb.debian.org/debian bookworm main"), std::string::npos)
      << missing.error().message();
  EXPECT_NE(missing.error().message().find("internal.list:1"), std::string::npos) << missing.error().message();
}

}  // namespace
}  // namespace strata::layer
