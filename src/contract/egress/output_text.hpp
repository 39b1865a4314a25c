// Text that came from a repository (reasons, evidence, paths, names, notes)
// on its way into a rendered policy. A policy is read by other programs, each
// with its own idea of where a line ends: YAML 1.1 readers (PyYAML, and what
// OpenShell and Kubernetes tooling use) end a comment at U+0085, U+2028 and
// U+2029 as well as at \n and \r, so a reason carrying one of them could
// continue as policy text. One rule says which code points never pass into a
// policy as they are; each format has its own function built on it
// (yaml_comment and yaml_quote in yaml_text.hpp, squid_comment in
// squid_policy.hpp; JSON is escaped by nlohmann).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace strata::contract::egress {

// Whether `cp` must not appear as itself in policy text: C0 and C1 controls
// and DEL (U+0085 among them), the line and paragraph separators U+2028 and
// U+2029, bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069: they make a line display as something else), the byte
// order mark and the non-characters U+FFFE and U+FFFF (YAML refuses them).
bool unsafe_in_policy_text(char32_t cp);

// `s` as one line of visible text: every unsafe code point becomes a space,
// bytes that are not UTF-8 become U+FFFD, cut at a character boundary to at
// most `max` bytes (then "..."). What a comment of any format may hold.
std::string one_line(std::string_view s, std::size_t max);

}  // namespace strata::contract::egress
