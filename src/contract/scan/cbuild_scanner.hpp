// The C/C++ build scanner: CMakeLists.txt (cmake_minimum_required,
// find_package, pkg_check_modules), meson.build (dependency(), meson_version)
// and Makefiles that invoke a compiler. The repository's own project becomes
// a `compile` native package whose libraries come from toolchains.yaml.
#pragma once

#include "contract/scan/scan_context.hpp"

namespace strata::contract {
void scan_c_builds(ScanContext& ctx);
}
