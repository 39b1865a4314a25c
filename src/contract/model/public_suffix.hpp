// The Public Suffix List (publicsuffix.org): the names under which anyone can
// register a name of their own ("com", "co.uk", "github.io"). A wildcard
// egress grant at such a suffix ("*.github.io") is a grant to every stranger
// who registers there, so the host-name rule refuses it (host_name.hpp).
// The list is the one the build machine has, compiled in, both its ICANN
// and PRIVATE sections; its rules are applied by the list's own algorithm
// (https://publicsuffix.org/list/: "*" and "!" rules, the longest match, an
// exception winning, "*" when nothing matches). Pure functions, thread-safe.
#pragma once

#include <string_view>

namespace strata::contract {

// The public suffix of `name` (a lower-case DNS name, IDN labels in their
// xn-- form): "www.example.co.uk" → "co.uk", "a.b.ck" → "b.ck" (*.ck),
// "www.ck" → "ck" (!www.ck), "x.unknowntld" → "unknowntld" (the "*" rule).
// A view into `name`.
std::string_view public_suffix(std::string_view name);

// Whether `name` is itself a public suffix ("co.uk", "github.io", "uk").
bool is_public_suffix(std::string_view name);

// Whether a rule of the list ends in `name`: "uk", "co.uk" (rules), and
// "amazonaws.com" (above "s3.amazonaws.com"). A wildcard over such a name
// reaches names that are public suffixes.
bool is_at_or_above_public_suffix(std::string_view name);

// Whether `label` is a top-level domain the list names (every delegated TLD
// is on it): "com", "uk", "xn--fiqs8s"; not "local", "internal", "svc".
bool is_listed_tld(std::string_view label);

// Which copy of the list was compiled in: "2023-02-09 (file date), 9720
// rules, sha256:…" (its VERSION line instead of the date when it has one).
std::string_view public_suffix_list_as_of();

}  // namespace strata::contract
