// A Debian copyright file read for the licence a bill of materials states:
// only files in the machine-readable format (DEP-5, "Format:
// https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/") say
// it in a form a program may repeat. Their short licence names are mapped
// to SPDX identifiers ("Expat" → MIT, "GPL-2+" → GPL-2.0-or-later); a name
// SPDX has no identifier for becomes "LicenseRef-<name>".
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata::layer {

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

// "usr/share/doc/<name>/copyright" (canonical, as an image holds it), and
// nothing deeper: the file a package's licence is read from.
bool is_copyright_path(std::string_view path);

// The copyright files read, and the bound on one: the largest of Debian
// 12's is under 400 KiB.
inline constexpr std::uint64_t kMaxCopyrightBytes = std::uint64_t{1} << 20;

// Bump when copyright_summary's answer for the same file changes (a name
// mapped otherwise, the grammar read): every summary kept is keyed by it (a
// fragment's, the base filesystem cache's), so none made by another
// version is believed.
inline constexpr int kCopyrightSummaryVersion = 1;

// A copyright file as an image's filesystem keeps it (its summary, made
// while the layers stream or when a fragment is converted; the bytes are
// dropped): dep5_license's expression, empty when the file states none or
// is over kMaxCopyrightBytes.
std::string copyright_summary(std::string_view content);

}  // namespace strata::layer
