// A Debian copyright file read for the licence a bill of materials states:
// only files in the machine-readable format (DEP-5, "Format:
// https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/") say
// it in a form a program may repeat. Their short licence names are mapped
// to SPDX identifiers ("Expat" → MIT, "GPL-2+" → GPL-2.0-or-later); a name
// SPDX has no identifier for becomes "LicenseRef-<name>".
//
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace strata::layer::sbom {

// The licence expression every `License:` of the file names (its header and
// its Files stanzas), joined with AND in the order the file gives them, each
// once ("GPL-2.0-or-later AND (MIT OR Apache-2.0)"). nullopt when the file
// is not machine-readable (no Format field naming the format, or not
// deb822), or names no licence: the caller then says NOASSERTION.
std::optional<std::string> dep5_license(std::string_view copyright);

// One Debian short name as an SPDX licence: an identifier when SPDX has one
// for it, else "LicenseRef-" followed by the name with every character
// outside [A-Za-z0-9.-] made '-'. Empty for an empty name.
std::string spdx_license_id(std::string_view debian_name);

// Whether `id` is a LicenseRef strata made (not an SPDX list identifier).
bool is_license_ref(std::string_view id);

}  // namespace strata::layer::sbom
