// The host-name rule every egress grant obeys: which strings may name a host
// a sandbox is allowed to reach. One rule, used where a repository declares a
// host (.mac/project.yaml), where an inferred host is put into a policy, and
// where a policy file is read back. Pure functions, thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace strata::contract {

// What is wrong with `host` as an egress host, or nothing when it is fine.
// Fine means: a lower-case DNS name of letters, digits and hyphens, at least
// two labels, each 1–63 characters not starting or ending with '-', at most
// 253 characters, a last label that is not all digits; with `allow_wildcard`
// also "*.<name>" where <name> has at least two labels (one extra label of
// any name: "*.example.com" matches "a.example.com", not "example.com").
// IP literals are refused (egress is granted to names), the message saying
// so plainly when the address is loopback, private, link-local or otherwise
// not public.
std::optional<std::string> host_name_problem(std::string_view host, bool allow_wildcard);

// "*.example.com" (the only wildcard form host_name_problem admits).
bool is_wildcard_host(std::string_view host);

// Whether `pattern` (a name, or "*.<name>") covers `host`; both lower case.
bool host_matches(std::string_view pattern, std::string_view host);

}  // namespace strata::contract
