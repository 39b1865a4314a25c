// What `ldconfig` would do after an install, computed instead of run, over
// the base and the layer together: the directories of /etc/ld.so.conf (with
// its `include` globs, from the base or from the new packages), then the
// built-in ones (/lib/<triplet>, /usr/lib/<triplet>, /lib, /usr/lib), the
// same directory once after following the base's symlinks (the first name
// wins, as ldconfig's inode check does); in each, every "lib*.so*" /
// "ld-*.so*" file or symlink that leads to an ELF library with a SONAME,
// chosen per soname as ldconfig chooses (a file before a link, else the
// newest name), a symlink named like the soname or like a development link
// the soname starts with ("libpq.so" for "libpq.so.5") cached under its
// own name; the missing SONAME links ldconfig would create. The base's
// libraries come from their summaries (ldconfig_summary, made as the base
// was loaded), so the whole cache is rebuilt, not merged. Nothing is written
// when no new package ships a library or activates the ldconfig trigger.
// Pure.
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
