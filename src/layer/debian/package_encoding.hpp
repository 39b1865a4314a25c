// One Package in strata's little-endian cache encoding (util/binary.hpp):
// its strings, then small integers, then its relations, in a fixed order.
// Shared by every cache that holds packages (the parsed Packages indexes,
// a base image's dpkg state), so they cannot drift apart. A change of the
// layout must bump the format of every cache that embeds it.
#pragma once

#include <string_view>

#include "layer/debian/package.hpp"
#include "util/binary.hpp"

namespace strata::layer {

// The least a package takes in the encoding (for count checks).
inline constexpr std::size_t kMinEncodedPackage = 40;

// Writes `p`; or, with a Reader, fills `p` (`r.bad` says whether the bytes
// held a package). Same name both ways, for the callers' own templates.
void package_fields(bin::Writer& w, const Package& p);
void package_fields(bin::Reader& r, Package& p);

}  // namespace strata::layer
