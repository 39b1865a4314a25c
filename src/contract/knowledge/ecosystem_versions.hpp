// How the JVM, Elixir/Erlang and .NET ecosystems write versions, read as the
// ranges the contract's runtime-version model uses (util/version_range.hpp):
//   - Java: a release a build compiles for ("1.8" is Java 8, "17",
//     JavaVersion.VERSION_1_8, VERSION_17) needs a JDK at least that new; a
//     pinned JDK (.java-version, .sdkmanrc "21.0.2-tem", asdf
//     "temurin-21.0.2+13.0.LTS", jenv "openjdk64-17.0.9") names a release
//     line or an exact release, whatever the vendor.
//   - Elixir's version requirements (`~> 1.15`, `>= 1.14.0 and < 2.0.0`,
//     `~> 1.14 or ~> 1.15`): `~>` with major.minor allows the major line,
//     with major.minor.patch the minor line.
//   - .NET: global.json's sdk.version with rollForward (patch, feature,
//     minor, major, latestPatch, latestFeature, latestMinor, latestMajor,
//     disable) gives the SDKs the dotnet host accepts; an SDK version is
//     major.minor.(feature band × 100 + patch), so 8.0.100's band is 8.0.1xx.
//     A target framework moniker (net8.0, netcoreapp3.1) needs an SDK of its
//     major.minor.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"
#include "util/version_range.hpp"

namespace strata::contract {

// The Java feature release a compile target names: "1.8" → 8, "17" → 17,
// "VERSION_1_8"/"JavaVersion.VERSION_17" → 8/17; nullopt for anything else.
std::optional<int> java_release(std::string_view text);

// A pinned JDK as version files write it → the release line ("17" →
// >=17.0.0 <18.0.0) or release ("21.0.2" → =21.0.2). `vendor` receives the
// distribution named, if any ("tem", "temurin", "zulu"…).
Result<Range> read_java_version(std::string_view text, std::string& vendor);

// An Elixir version requirement (Version.Requirement syntax).
Result<Range> parse_elixir_requirement(std::string_view text);

// An Elixir or Erlang/OTP version as asdf/mise write it: "1.15.7-otp-26"
// (the OTP suffix says which OTP it was built for), "26.2.1", "OTP-26".
Result<Range> read_beam_version(std::string_view text);

// The SDKs global.json accepts: `version` with `roll_forward` ("" = the
// default, patch). An unknown policy is an error naming it.
Result<Range> dotnet_sdk_range(std::string_view version, std::string_view roll_forward);

// The .NET version of a target framework moniker: "net8.0" → 8.0,
// "net8.0-windows" → 8.0, "netcoreapp3.1" → 3.1; nullopt for .NET Standard
// ("netstandard2.0": any SDK builds it) and .NET Framework ("net48").
std::optional<Version> dotnet_target_version(std::string_view tfm);

}  // namespace strata::contract
