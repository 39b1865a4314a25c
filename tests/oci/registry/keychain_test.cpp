#include "oci/registry/keychain.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "oci/registry/authenticator.hpp"
#include "support/temp_dir.hpp"

namespace strata::oci::registry {
namespace {

// A temporary directory of config files.
struct ConfigDir : strata::testing::TempDir {
  void write(const std::string& rel, const std::string& text, unsigned mode = 0644) const {
    auto p = *this / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    ::chmod(p.c_str(), mode);
  }
};

TEST(KeychainTest, ReadsAuthUsernamePasswordAndIdentityToken) {
  ConfigDir dir;
  dir.write("config.json", R"({"auths":{
    "https://index.docker.io/v1/":{"auth":")" + base64_encode("hubuser:hub:pass") + R"("},
    "reg.example:5000":{"username":"u2","password":"p2"},
    "https://acr.example/v2/":{"identitytoken":"refresh-me"}}})");
  auto kc = Keychain::load(KeychainOptions{dir.path() / "config.json", "", "", "", ""});
  ASSERT_TRUE(kc) << kc.error().message();
  auto hub = kc->lookup("docker.io");
  ASSERT_TRUE(hub && *hub);
  EXPECT_EQ((*hub)->username, "hubuser");
  EXPECT_EQ((*hub)->password, "hub:pass");
  auto r2 = kc->lookup("reg.example:5000");
  ASSERT_TRUE(r2 && *r2);
  EXPECT_EQ((*r2)->username, "u2");
  auto acr = kc->lookup("acr.example");
  ASSERT_TRUE(acr && *acr);
  EXPECT_EQ((*acr)->identity_token, "refresh-me");
  auto none = kc->lookup("other.example");
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

TEST(KeychainTest, SearchesDefaultFilesInOrder) {
  ConfigDir dir;
  dir.write("dockercfg/config.json", R"({"auths":{"a.example":{"username":"from-docker-config","password":"x"}}})");
  dir.write("home/.docker/config.json",
            R"({"auths":{"a.example":{"username":"from-home","password":"x"},"b.example":{"username":"b-home","password":"y"}}})");
  dir.write("run/containers/auth.json", R"({"auths":{"c.example":{"username":"from-xdg","password":"z"}}})");
  KeychainOptions o{std::nullopt, (dir.path() / "dockercfg").string(), (dir.path() / "home").string(),
                    (dir.path() / "run").string(), ""};
  auto kc = Keychain::load(o);
  ASSERT_TRUE(kc);
  EXPECT_EQ((*kc->lookup("a.example"))->username, "from-docker-config");
  EXPECT_EQ((*kc->lookup("b.example"))->username, "b-home");
  EXPECT_EQ((*kc->lookup("c.example"))->username, "from-xdg");
}

TEST(KeychainTest, MissingAuthfileAndMalformedFilesAreClearErrors) {
  ConfigDir dir;
  auto missing = Keychain::load(KeychainOptions{dir.path() / "nope.json", "", "", "", ""});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("nope.json"), std::string::npos);
  dir.write("bad.json", R"({"auths":{"r.example":{"auth":"bm9jb2xvbg=="}}})");  // "nocolon"
  auto bad = Keychain::load(KeychainOptions{dir.path() / "bad.json", "", "", "", ""});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("r.example"), std::string::npos);
}

TEST(KeychainTest, RunsCredentialHelpersFromPath) {
  ConfigDir dir;
  // The helper echoes the server URL it was asked about into the username.
  dir.write("bin/docker-credential-fake",
            "#!/bin/sh\nread url\n[ \"$1\" = get ] || exit 3\n"
            "case \"$url\" in\n"
            "  helper.example) printf '{\"ServerURL\":\"%s\",\"Username\":\"u-%s\",\"Secret\":\"s3cret\"}' \"$url\" \"$url\";;\n"
            "  token.example) printf '{\"Username\":\"<token>\",\"Secret\":\"idtok\"}';;\n"
            "  *) echo 'credentials not found in native keychain'; exit 1;;\n"
            "esac\n",
            0755);
  dir.write("config.json",
            R"({"credHelpers":{"helper.example":"fake","token.example":"fake"},"credsStore":"fake",
                "auths":{"plain.example":{"username":"p","password":"q"}}})");
  auto kc = Keychain::load(KeychainOptions{dir.path() / "config.json", "", "", "", (dir.path() / "bin").string()});
  ASSERT_TRUE(kc);
  auto c = kc->lookup("helper.example");
  ASSERT_TRUE(c) << c.error().message();
  ASSERT_TRUE(*c);
  EXPECT_EQ((*c)->username, "u-helper.example");
  EXPECT_EQ((*c)->password, "s3cret");
  auto t = kc->lookup("token.example");
  ASSERT_TRUE(t && *t);
  EXPECT_EQ((*t)->identity_token, "idtok");
  EXPECT_EQ((*kc->lookup("plain.example"))->username, "p");
  auto none = kc->lookup("unknown.example");  // credsStore answers "not found"
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_FALSE(*none);
  auto no_helper = Keychain::load(KeychainOptions{dir.path() / "config.json", "", "", "", "/nonexistent"});
  auto err = no_helper->lookup("helper.example");
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().message().find("docker-credential-fake"), std::string::npos);
}

TEST(AuthHelpersTest, ParsesRfc3339) {
  EXPECT_EQ(parse_rfc3339("2024-05-01T12:00:00Z"), 1714564800);
  EXPECT_EQ(parse_rfc3339("2024-05-01T12:00:00.123456789Z"), 1714564800);
  EXPECT_EQ(parse_rfc3339("2024-05-01T14:00:00+02:00"), 1714564800);
  EXPECT_FALSE(parse_rfc3339("yesterday"));
  EXPECT_EQ(base64_encode("user:pass"), "dXNlcjpwYXNz");
  EXPECT_EQ(base64_encode("ab"), "YWI=");
}

}  // namespace
}  // namespace strata::oci::registry
