// How the JVM, Elixir/Erlang and .NET ecosystems write versions, read as
// ranges: Java's release spellings, Elixir's requirement syntax, .NET's
// rollForward policies and target framework monikers.
#include "contract/knowledge/ecosystem_versions.hpp"
#include "contract/knowledge/knowledge.hpp"

#include <gtest/gtest.h>

namespace strata::contract {
namespace {

std::string range(const Result<Range>& r) { return r ? r->str() : "error: " + r.error().message(); }

TEST(JavaRelease, OldAndNewSpellingsNameTheFeatureRelease) {
  EXPECT_EQ(java_release("1.8"), 8);
  EXPECT_EQ(java_release("8"), 8);
  EXPECT_EQ(java_release("17"), 17);
  EXPECT_EQ(java_release("'21'"), 21);
  EXPECT_EQ(java_release("JavaVersion.VERSION_1_8"), 8);
  EXPECT_EQ(java_release("JavaVersion.VERSION_17"), 17);
  EXPECT_EQ(java_release("VERSION_11"), 11);
  EXPECT_EQ(java_release("1.9"), std::nullopt);  // Java 9 was never spelt 1.9 by javac's --release
  EXPECT_EQ(java_release("1.x"), std::nullopt);
  EXPECT_EQ(java_release("${java.version}"), std::nullopt);
  EXPECT_EQ(java_release(""), std::nullopt);
}

TEST(JavaVersionFile, VendorsAndBuildsAreNotTheVersion) {
  std::string vendor;
  EXPECT_EQ(range(read_java_version("17", vendor)), ">=17.0.0 <18.0.0");
  EXPECT_EQ(vendor, "");
  EXPECT_EQ(range(read_java_version("21.0.2-tem", vendor)), "=21.0.2");  // sdkman
  EXPECT_EQ(vendor, "tem");
  vendor.clear();
  EXPECT_EQ(range(read_java_version("temurin-21.0.2+13.0.LTS", vendor)), "=21.0.2");  // asdf
  EXPECT_EQ(vendor, "temurin");
  vendor.clear();
  EXPECT_EQ(range(read_java_version("openjdk64-17.0.9", vendor)), "=17.0.9");  // jenv
  EXPECT_EQ(vendor, "openjdk64");
  vendor.clear();
  EXPECT_EQ(range(read_java_version("1.8", vendor)), ">=8.0.0 <9.0.0");
  EXPECT_EQ(range(read_java_version("1.8.0_392", vendor)), "=8.0.392");
  EXPECT_EQ(range(read_java_version("corretto-17.0.9.8.1", vendor)), "=17.0.9");
  EXPECT_FALSE(read_java_version("temurin", vendor));
  EXPECT_FALSE(read_java_version("", vendor));
  EXPECT_FALSE(read_java_version("1.11", vendor));
}

TEST(ElixirRequirement, PessimisticOperatorAllowsTheLineItNames) {
  EXPECT_EQ(range(parse_elixir_requirement("~> 1.15")), ">=1.15.0 <2.0.0");
  EXPECT_EQ(range(parse_elixir_requirement("~> 1.15.2")), ">=1.15.2 <1.16.0");
  EXPECT_EQ(range(parse_elixir_requirement(">= 1.14.0 and < 2.0.0")), ">=1.14.0 <2.0.0");
  EXPECT_EQ(range(parse_elixir_requirement("~> 1.13.0 or ~> 1.15.0")), ">=1.13.0 <1.14.0 || >=1.15.0 <1.16.0");
  EXPECT_EQ(range(parse_elixir_requirement("== 1.16.1")), "=1.16.1");
  EXPECT_EQ(range(parse_elixir_requirement("1.16.1")), "=1.16.1");
  EXPECT_EQ(range(parse_elixir_requirement(">= 1.14.0 and != 1.14.1")), ">=1.14.0");
  EXPECT_FALSE(parse_elixir_requirement("~> 1"));  // Elixir needs major.minor after ~>
  EXPECT_FALSE(parse_elixir_requirement("~> one"));
  EXPECT_FALSE(parse_elixir_requirement(""));
}

TEST(BeamVersion, OtpSuffixesAndPrefixes) {
  EXPECT_EQ(range(read_beam_version("1.16.3-otp-26")), "=1.16.3");
  EXPECT_EQ(range(read_beam_version("26.2.5")), "=26.2.5");
  EXPECT_EQ(range(read_beam_version("26")), ">=26.0.0 <27.0.0");
  EXPECT_EQ(range(read_beam_version("OTP-26.2")), ">=26.2.0 <26.3.0");
  EXPECT_FALSE(read_beam_version("ref:main"));
}

TEST(DotnetRollForward, EachPolicyGivesTheSdksTheHostAccepts) {
  EXPECT_EQ(range(dotnet_sdk_range("8.0.204", "")), ">=8.0.204 <8.0.300");  // latestPatch, the default
  EXPECT_EQ(range(dotnet_sdk_range("8.0.204", "patch")), ">=8.0.204 <8.0.300");
  EXPECT_EQ(range(dotnet_sdk_range("8.0.204", "latestPatch")), ">=8.0.204 <8.0.300");
  EXPECT_EQ(range(dotnet_sdk_range("8.0.100", "feature")), ">=8.0.100 <8.1.0");
  EXPECT_EQ(range(dotnet_sdk_range("8.0.100", "latestFeature")), ">=8.0.100 <8.1.0");
  EXPECT_EQ(range(dotnet_sdk_range("8.0.100", "minor")), ">=8.0.100 <9.0.0");
  EXPECT_EQ(range(dotnet_sdk_range("8.0.100", "latestMinor")), ">=8.0.100 <9.0.0");
  EXPECT_EQ(range(dotnet_sdk_range("6.0.400", "latestMajor")), ">=6.0.400");
  EXPECT_EQ(range(dotnet_sdk_range("8.0.100", "major")), ">=8.0.100");
  EXPECT_EQ(range(dotnet_sdk_range("8.0.100", "disable")), "=8.0.100");
  EXPECT_FALSE(dotnet_sdk_range("8.0.100", "newest"));
  EXPECT_FALSE(dotnet_sdk_range("8.0", ""));      // an SDK version has three parts
  EXPECT_FALSE(dotnet_sdk_range("8.0.4", ""));    // 8.0.4 is a runtime, not an SDK
  EXPECT_FALSE(dotnet_sdk_range("8.0.4", "latestPatch"));
  // …which a policy beyond the feature band still compares (jellyfin's "10.0.0" with latestMinor).
  EXPECT_EQ(range(dotnet_sdk_range("10.0.0", "latestMinor")), ">=10.0.0 <11.0.0");
  EXPECT_EQ(range(dotnet_sdk_range("10.0.0", "latestFeature")), ">=10.0.0 <10.1.0");
  EXPECT_FALSE(dotnet_sdk_range("latest", ""));
}

TEST(DotnetTargetFramework, MonikersNameTheirDotnetVersion) {
  EXPECT_EQ(dotnet_target_version("net8.0")->str(), "8.0.0");
  EXPECT_EQ(dotnet_target_version("net8.0-windows")->str(), "8.0.0");
  EXPECT_EQ(dotnet_target_version("netcoreapp3.1")->str(), "3.1.0");
  EXPECT_EQ(dotnet_target_version("netstandard2.0"), std::nullopt);
  EXPECT_EQ(dotnet_target_version("net48"), std::nullopt);  // .NET Framework
  EXPECT_EQ(dotnet_target_version("banana"), std::nullopt);
}

}  // namespace
}  // namespace strata::contract

namespace strata::contract {
namespace {

// A family entry covers the names that continue it after a separator; any
// other entry covers its own name only.
TEST(KnowledgeFamilies, AFamilyCoversItsMembersAndNothingElse) {
  auto kb = KnowledgeBase::parse({{"t.yaml", R"(
maven:
  org.testcontainers: {family: true, rules: [{build: none}]}
  com.example:exact: {rules: [{build: none}]}
nuget:
  Microsoft.Playwright: {family: true, rules: [{build: download}], egress_reason: "at test time"}
  SkiaSharp: {rules: [{build: prebuilt}]}
)"}});
  ASSERT_TRUE(kb) << kb.error().message();
  auto entry = [&](const char* eco, const char* name) {
    const std::string* e = kb->entry_for(eco, name);
    return e ? *e : std::string("<none>");
  };
  EXPECT_EQ(entry("maven", "org.testcontainers:postgresql"), "org.testcontainers");
  EXPECT_EQ(entry("maven", "org.testcontainers"), "org.testcontainers");
  EXPECT_EQ(entry("maven", "org.testcontainersfork:postgresql"), "<none>");  // not after a separator
  EXPECT_EQ(entry("maven", "com.example:exact"), "com.example:exact");
  EXPECT_EQ(entry("maven", "com.example:exact-two"), "<none>");
  EXPECT_EQ(entry("nuget", "Microsoft.Playwright.NUnit"), "Microsoft.Playwright");
  EXPECT_EQ(entry("nuget", "SkiaSharp.Views.Maui"), "<none>");  // not a family
  EXPECT_EQ(entry("npm", "anything"), "<none>");
  EXPECT_EQ(kb->package("nuget", "Microsoft.Playwright")->egress_reason, "at test time");
}

}  // namespace
}  // namespace strata::contract

#include "contract/scan/repo_fs.hpp"

namespace strata::contract {
namespace {

// Paths a manifest names relative to its own directory (a compose context, a
// pom's parent), resolved inside the repository or refused.
TEST(RepoPaths, DotsResolveInsideTheRepositoryOnly) {
  EXPECT_EQ(resolve_rel("a/b", "../c/./d"), "a/c/d");
  EXPECT_EQ(resolve_rel(".", "./"), ".");
  EXPECT_EQ(resolve_rel("a", ".."), ".");
  EXPECT_EQ(resolve_rel("", "x//y/"), "x/y");
  EXPECT_EQ(resolve_rel("a", "../.."), std::nullopt);
  EXPECT_EQ(resolve_rel(".", "../etc/passwd"), std::nullopt);
}

}  // namespace
}  // namespace strata::contract
