// The squid format: a squid.conf fragment to `include`, made of `acl` lines
// (dstdomain per port, dstdom_regex for a declared "*.<name>", method, port)
// and `http_access allow` lines ending in `http_access deny all`. What squid
// can enforce is said in the fragment itself: plain HTTP through the proxy
// has its method checked (GET and HEAD pass); HTTPS is a CONNECT tunnel
// whose inside squid cannot see, so `--tls connect` allows CONNECT to the
// policy's host and port only, and only `--tls bump` (ssl_bump, a squid
// built with OpenSSL and a CA the clients trust) checks methods inside it.
#pragma once

#include <string>
#include <string_view>

#include "contract/egress/policy.hpp"
#include "contract/egress/policy_file.hpp"

namespace strata::contract::egress {

enum class SquidTls { kConnect, kBump };
Result<SquidTls> parse_squid_tls(std::string_view s);  // connect | bump

std::string render_squid(const Policy& p, SquidTls tls);

// `s` as the text of a squid.conf comment line: one line, at most `max`
// bytes (and never near squid's 8 KiB line buffer).
std::string squid_comment(std::string_view s, std::size_t max = 160);

// What a fragment allows, read the way squid reads it: `http_access` lines
// in order up to `http_access deny all`, each allow line the intersection of
// its ACLs. A CONNECT grant without ssl_bump passes every method (the
// tunnel is opaque); with ssl_bump the methods of the other allow lines
// apply inside it. Lines strata does not write (negations, deny lines
// before the last, ACL types it does not know) are refused, not guessed at.
Result<Allowlist> read_squid_policy(std::string_view text, const std::string& file);

}  // namespace strata::contract::egress
