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
// not public. A well-formed name is refused too for what it is:
//  - special-use and private names (RFC 6761/6762/8375/7686/9476, .internal):
//    localhost, .local, .internal, .test, .arpa, cluster.local, *.svc, the
//    container engines' host.docker.internal, the metadata service's names;
//  - single labels ("kubernetes", "metadata": the search list decides);
//  - names of name-to-address services (nip.io, sslip.io, …) and names with
//    an IPv4 address written into them ("10.0.0.1.x.com", "ip-10-0-0-1.x.com");
//  - a last label that is not a top-level domain on the Public Suffix List;
//  - a public suffix itself ("co.uk", "github.io"), and a wildcard at or
//    above one ("*.github.io", "*.co.uk", "*.uk"; public_suffix.hpp).
// Every message names the rule and what to declare instead.
std::optional<std::string> host_name_problem(std::string_view host, bool allow_wildcard);

// "*.example.com" (the only wildcard form host_name_problem admits).
bool is_wildcard_host(std::string_view host);

// Whether `pattern` (a name, or "*.<name>") covers `host`; both lower case.
bool host_matches(std::string_view pattern, std::string_view host);

}  // namespace strata::contract
