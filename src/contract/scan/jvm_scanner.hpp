// The JVM scanner: Maven (pom.xml through pugixml: the compiler release,
// source and target from properties, `${…}` references within the pom and
// maven-compiler-plugin's configuration; <repositories> and
// <pluginRepositories>), Gradle (build.gradle(.kts), settings.gradle(.kts)
// read by documented patterns, never executed: the toolchain's
// languageVersion, jvmToolchain, source/targetCompatibility, Kotlin's
// jvmTarget, the repositories and plugins blocks), the Maven and Gradle
// wrappers' distributionUrl (the build tool's version and host),
// .java-version and .sdkmanrc. The JDK a build compiles for is a support
// floor; a Gradle toolchain and a version file pin the JDK line.
#pragma once

#include <string_view>

#include "contract/scan/scan_context.hpp"

namespace strata::contract {
bool jvm_file(std::string_view name);
void scan_jvm(ScanContext& ctx);
}  // namespace strata::contract
