// What `ldconfig` would do after an install, computed instead of run: the
// directories of /etc/ld.so.conf (with its `include` globs, from the base or
// from the new packages) plus the system directories of the architecture,
// deduplicated after following the base's symlinks (the first name wins, as
// ldconfig's inode check does); for each shared library with a SONAME in
// them an entry SONAME → DIR/SONAME (and DIR/NAME.so for a development link
// pointing straight at the SONAME); the missing SONAME links ldconfig would
// create. The base's entries come from its own ld.so.cache when it has one,
// else from its libraries' summaries (ldconfig_summary, made as the base was
// loaded). Nothing is written when the packages add no library. Pure.
#pragma once

#include <string>

#include "layer/effects/effects.hpp"

namespace strata::layer {

// "x86_64-linux-gnu" for "amd64", etc.; empty when unknown.
std::string multiarch_triplet(std::string_view debian_arch);

// What ldconfig_effects needs of the base: the files to capture (ld.so.cache,
// ld.so.conf and its includes), the files to summarize (libraries) and the
// summary (the soname and cache flags of an ELF library, empty otherwise).
bool ldconfig_capture(std::string_view path);
bool ldconfig_library(std::string_view path);
std::string ldconfig_summary(std::string_view content);

Result<Effects> ldconfig_effects(const OverlayView& view, std::string_view debian_arch, std::int64_t epoch);

}  // namespace strata::layer
