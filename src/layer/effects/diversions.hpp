// dpkg-divert without running it: the `dpkg-divert --add` calls of the new
// packages' preinsts (read literally, or through a call of one of the
// script's functions, layer/effects/script_expand.hpp), applied to the
// base's /var/lib/dpkg/diversions as dpkg-divert writes it:
//   - three lines per diversion (the diverted path, where it goes, the
//     package or ":" for --local), the default destination "<path>.distrib",
//     the package the script's own when --package and --local are absent;
//   - the entries in dpkg's file hash-table order: FNV-1a of the path
//     without its leading '/', modulo 262139, those of one bin in the order
//     dpkg met them (the base's file, then the calls);
//   - diversions-old: the file before the last call that changed it.
// An --add of what is already diverted the same way changes nothing. A
// --rename of a file the image already has, --remove, and calls that cannot
// be read are reported, not reproduced.
#pragma once

#include <string>
#include <vector>

#include "layer/effects/effects.hpp"

namespace strata::layer {

struct DpkgDiversion {
  std::string path, divert_to, package;  // package ":" for --local
};

struct DivertCall {
  DpkgDiversion diversion;
  bool rename = false;
};

// The --add calls in a script run for `package`; the rest in `unreadable`.
std::vector<DivertCall> parse_divert_calls(std::string_view script, const std::string& package,
                                           std::vector<std::string>& unreadable);

// The diversions file parsed; malformed (not three lines each) is an error
// naming the file.
Result<std::vector<DpkgDiversion>> parse_diversions(std::string_view text);
// Written in dpkg's order.
std::string format_diversions(const std::vector<DpkgDiversion>& diversions);

Result<Effects> diversion_effects(const OverlayView& view, std::int64_t epoch, std::vector<std::string>& handled);

}  // namespace strata::layer
