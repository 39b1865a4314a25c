// Reading an egress policy back: the allowlist a policy file grants, from any
// format `strata egress render` writes (json, openshell, cilium, squid). One
// reader for everyone who consumes a policy — `strata preflight
// --egress-policy FILE` checks the contract's hosts against it. The file is
// bounded in size before it is read; every error names the file and the
// entry. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace strata::contract::egress {

// Policy files larger than this are refused before they are read.
inline constexpr std::uintmax_t kMaxPolicyFileBytes = 4u << 20;

struct AllowedHost {
  std::string host;                  // exact DNS name, lower case ("*.example.com" only if the file says so)
  int port = 443;
  std::vector<std::string> methods;  // "GET", "HEAD", … ; empty = every method (e.g. squid CONNECT-only, tcp)
  friend bool operator==(const AllowedHost&, const AllowedHost&) = default;
};

struct Allowlist {
  std::string format;  // json | openshell | cilium | squid
  std::vector<AllowedHost> hosts;
};

// Reads a policy file in any format `strata egress render` writes (json,
// openshell, cilium, squid), bounded in size, naming the file and the entry
// on any error. The format is recognised from the content.
Result<Allowlist> read_policy_file(const std::filesystem::path& file);

// The same, for the text of a file already in memory (`file` names it in errors).
Result<Allowlist> read_policy_text(std::string_view text, const std::string& file);

// Whether the allowlist lets a read-only client (GET and HEAD) reach
// host:port: some entry for that port whose host is `host` (or a wildcard
// covering it) and whose methods include GET and HEAD, or are unrestricted.
bool allows_read(const Allowlist& list, std::string_view host, int port = 443);

// The checks every reader applies to one entry it read: host (host_name.hpp),
// port in 1–65535, methods upper-case HTTP method names. `where` names the
// file and entry ("policy.json: hosts[2]").
Result<void> check_allowed_host(const AllowedHost& h, std::string_view where);

}  // namespace strata::contract::egress
