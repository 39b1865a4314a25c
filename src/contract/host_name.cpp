#include "contract/host_name.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "util/strings.hpp"

namespace strata::contract {
namespace {

constexpr std::size_t kMaxName = 253;
constexpr std::size_t kMaxLabel = 63;

bool ldh(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

// Why an IPv4 address is not a public one, or "" when it is.
std::string v4_range(const std::array<std::uint8_t, 4>& a) {
  if (a[0] == 0) return "in 0.0.0.0/8 (this network)";
  if (a[0] == 10) return "in the private range 10.0.0.0/8";
  if (a[0] == 127) return "loopback (127.0.0.0/8)";
  if (a[0] == 169 && a[1] == 254) return "link-local (169.254.0.0/16, cloud metadata)";
  if (a[0] == 172 && (a[1] & 0xf0) == 16) return "in the private range 172.16.0.0/12";
  if (a[0] == 192 && a[1] == 168) return "in the private range 192.168.0.0/16";
  if (a[0] == 100 && (a[1] & 0xc0) == 64) return "in the shared range 100.64.0.0/10 (carrier-grade NAT)";
  if (a[0] == 192 && a[1] == 0 && a[2] == 0) return "in 192.0.0.0/24 (IETF protocol assignments)";
  if (a[0] == 198 && (a[1] & 0xfe) == 18) return "in 198.18.0.0/15 (benchmarking)";
  if (a[0] >= 224) return "multicast or reserved (224.0.0.0/3)";
  return "";
}

std::string v6_range(const std::array<std::uint8_t, 16>& a) {
  static constexpr std::array<std::uint8_t, 16> kZero{};
  std::array<std::uint8_t, 16> loop{};
  loop[15] = 1;
  if (a == kZero) return "the unspecified address ::";
  if (a == loop) return "loopback (::1)";
  if ((a[0] & 0xfe) == 0xfc) return "in the private range fc00::/7 (unique local)";
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return "link-local (fe80::/10)";
  if (a[0] == 0xff) return "multicast (ff00::/8)";
  bool mapped = std::all_of(a.begin(), a.begin() + 10, [](std::uint8_t b) { return b == 0; }) && a[10] == 0xff &&
                a[11] == 0xff;
  if (mapped) {
    std::string r = v4_range({a[12], a[13], a[14], a[15]});
    return r.empty() ? "" : "an IPv4-mapped address " + r;
  }
  return "";
}

// The message for an IP literal, or nothing when `host` is not one.
std::optional<std::string> ip_literal(std::string_view host) {
  std::string h(host);
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  std::array<std::uint8_t, 16> buf{};
  std::string range;
  if (::inet_pton(AF_INET, h.c_str(), buf.data()) == 1) {
    range = v4_range({buf[0], buf[1], buf[2], buf[3]});
  } else if (::inet_pton(AF_INET6, h.c_str(), buf.data()) == 1) {
    range = v6_range(buf);
  } else {
    return std::nullopt;
  }
  if (!range.empty())
    return "is an IP literal " + range + "; a sandbox must not be granted a private address — declare the public "
           "host name instead";
  return std::string("is an IP literal; egress is granted to host names (policies match DNS names), declare the "
                     "name instead");
}

}  // namespace

std::optional<std::string> host_name_problem(std::string_view host, bool allow_wildcard) {
  if (host.empty()) return "is empty";
  if (auto ip = ip_literal(host)) return ip;
  if (host.size() > kMaxName) return "is longer than " + std::to_string(kMaxName) + " characters";
  if (host == "*" || host == "**") return "is a bare wildcard; it would grant every host";
  std::string_view name = host;
  if (name.starts_with("*.")) {
    if (!allow_wildcard) return "is a wildcard; only exact host names are allowed here";
    name.remove_prefix(2);
  }
  if (name.find('*') != std::string_view::npos)
    return "has a wildcard that is not a whole first label; the only wildcard form is \"*.<name>\" (\"*.example.com\")";
  if (name.ends_with('.')) return "ends with a dot; write the name without it";
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') return "has upper-case letters; write it in lower case";
    if (c == ':') return "has a ':'; give the port separately";
    if (!ldh(c) && c != '.')
      return "has the character " + str::quote(std::string(1, c)) +
             "; a host name is letters, digits, hyphens and dots";
  }
  auto labels = str::split(name, '.');
  if (labels.size() < 2) {
    return host.starts_with("*.") ? std::string("is a wildcard over a top-level domain; name at least two labels after \"*.\"")
                                  : std::string("is a single label; a sandbox resolves it through its search list — give "
                                                "the fully qualified name");
  }
  for (auto l : labels) {
    if (l.empty()) return std::string("has an empty label (two dots in a row, or a leading dot)");
    if (l.size() > kMaxLabel) return "has a label longer than " + std::to_string(kMaxLabel) + " characters";
    if (l.front() == '-' || l.back() == '-') return "has a label that starts or ends with '-'";
  }
  auto last = labels.back();
  if (std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::string("ends in an all-numeric label; that is an address, not a name");
  return std::nullopt;
}

bool is_wildcard_host(std::string_view host) { return host.starts_with("*."); }

bool host_matches(std::string_view pattern, std::string_view host) {
  if (!is_wildcard_host(pattern)) return pattern == host;
  std::string_view suffix = pattern.substr(1);  // ".example.com"
  if (!host.ends_with(suffix) || host.size() == suffix.size()) return false;
  std::string_view first = host.substr(0, host.size() - suffix.size());
  return first.find('.') == std::string_view::npos;
}

}  // namespace strata::contract
