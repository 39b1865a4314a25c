#include "contract/model/host_name.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "contract/model/public_suffix.hpp"
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

// Names that never lead to a public host: special-use and private-network
// names (RFC 6761 and its kin), the names container engines, Kubernetes and
// cloud platforms give the machine, the cluster and the metadata service.
// A name matches when it is the entry or ends in "." + the entry; the more
// specific entries come first, so the message names the better reason.
struct SpecialName {
  std::string_view name;
  std::string_view why;
};
constexpr SpecialName kSpecialNames[] = {
    {"localhost", "RFC 6761: localhost is the machine itself"},
    {"metadata.google.internal", "the cloud metadata service of Google Cloud, which hands out the instance's credentials"},
    {"instance-data.ec2.internal", "the cloud metadata service of AWS, which hands out the instance's credentials"},
    {"host.docker.internal", "Docker's name for the host machine"},
    {"gateway.docker.internal", "Docker's name for the host's gateway"},
    {"host.containers.internal", "Podman's name for the host machine"},
    {"internal", "ICANN reserves .internal for private networks"},
    {"cluster.local", "Kubernetes cluster DNS: the services and pods inside the cluster"},
    {"local", "RFC 6762: .local is multicast DNS on the sandbox's own network"},
    {"svc", "Kubernetes service names (<service>.<namespace>.svc), reached through the pod's search list"},
    {"kubernetes.default", "the Kubernetes API server, reached through the pod's search list"},
    {"kubernetes", "the Kubernetes API server, reached through the pod's search list"},
    {"metadata", "the cloud metadata service, reached through the search list"},
    {"instance-data", "the cloud metadata service of AWS, reached through the search list"},
    {"localdomain", "the conventional name of the local machine and its network"},
    {"home.arpa", "RFC 8375: home networks"},
    {"arpa", "RFC 3172: DNS infrastructure such as reverse lookups (in-addr.arpa, ip6.arpa)"},
    {"test", "RFC 6761: reserved for testing"},
    {"example", "RFC 6761: reserved for documentation"},
    {"invalid", "RFC 6761: never resolves"},
    {"onion", "RFC 7686: Tor onion services"},
    {"alt", "RFC 9476: names outside the DNS"},
    {"intranet", "RFC 6762 appendix G: used on private networks"},
    {"private", "RFC 6762 appendix G: used on private networks"},
    {"corp", "RFC 6762 appendix G: used on private networks"},
    {"home", "RFC 6762 appendix G: used on private networks"},
    {"lan", "RFC 6762 appendix G: used on private networks"},
};

// Services whose names resolve to whatever address is written in them
// ("169.254.169.254.nip.io" is the metadata service): a grant of one of
// their names is a grant of an arbitrary address.
constexpr std::string_view kAddressServices[] = {"nip.io",  "sslip.io", "xip.io",      "traefik.me",
                                                 "lvh.me",  "vcap.me",  "localtest.me"};

bool is_or_under(std::string_view name, std::string_view domain) {
  return name == domain || (name.size() > domain.size() && name.ends_with(domain) &&
                            name[name.size() - domain.size() - 1] == '.');
}

// A number 0-255 of one to three digits: one part of an IPv4 address.
bool octet(std::string_view s) {
  if (s.empty() || s.size() > 3 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  return std::stoi(std::string(s)) <= 255;
}

bool four_octets(const std::vector<std::string_view>& parts) {
  for (std::size_t i = 0; i + 4 <= parts.size(); ++i)
    if (octet(parts[i]) && octet(parts[i + 1]) && octet(parts[i + 2]) && octet(parts[i + 3])) return true;
  return false;
}

// An IPv4 address written into the name, as four labels ("10.0.0.1.example.com")
// or dashed inside one ("ip-10-0-0-1.example.com"): what name-to-address
// services resolve, so such a name may well be an address in disguise.
bool embeds_ipv4(const std::vector<std::string_view>& labels) {
  if (four_octets(labels)) return true;
  return std::any_of(labels.begin(), labels.end(), [](std::string_view l) { return four_octets(str::split(l, '-')); });
}

// What host_name_problem says about a name that is well formed: a name a
// sandbox must not be granted, by what it is rather than how it is spelt.
// `name` is the host, or what follows "*." of a wildcard.
std::optional<std::string> kind_problem(std::string_view name, bool wildcard,
                                        const std::vector<std::string_view>& labels) {
  constexpr std::string_view kDeclare = "; egress is granted to public host names — declare the public name the task reads from";
  for (const auto& s : kSpecialNames)
    if (is_or_under(name, s.name))
      return "is a special-use name (" + std::string(s.why) + ")" + std::string(kDeclare);
  if (labels.size() < 2) {
    return wildcard ? std::string("is a wildcard over a top-level domain; name at least two labels after \"*.\"")
                    : std::string("is a single label; a sandbox resolves it through its search list — give "
                                  "the fully qualified name");
  }
  for (auto svc : kAddressServices)
    if (is_or_under(name, svc))
      return "is under " + std::string(svc) +
             ", a service that resolves a name to any address written in it (169.254.169.254." + std::string(svc) +
             " is the cloud metadata service)" + std::string(kDeclare);
  if (embeds_ipv4(labels))
    return "has an IPv4 address written into it (as four labels, or dashed as in ip-10-0-0-1), what name-to-address "
           "services resolve" + std::string(kDeclare);
  if (!is_listed_tld(labels.back()))
    return "ends in \"." + std::string(labels.back()) +
           "\", not a top-level domain on the Public Suffix List; a sandbox resolves it through its search list or "
           "not at all — give the fully qualified public name";
  if (wildcard && is_public_suffix(name))
    return "is a wildcard at a public suffix (" + std::string(name) +
           " is on the Public Suffix List): it grants every name anyone registers there — list the hosts under it "
           "the task reads from instead";
  if (wildcard && is_at_or_above_public_suffix(name))
    return "is a wildcard above a public suffix (names under " + std::string(name) +
           " are on the Public Suffix List): it grants names anyone registers — list the hosts under it the task "
           "reads from instead";
  if (!wildcard && is_public_suffix(name))
    return "is a public suffix (" + std::string(name) +
           " is on the Public Suffix List): names are registered under it, it is not a host — declare the host "
           "itself";
  return std::nullopt;
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
  for (auto l : labels) {
    if (l.empty()) return std::string("has an empty label (two dots in a row, or a leading dot)");
    if (l.size() > kMaxLabel) return "has a label longer than " + std::to_string(kMaxLabel) + " characters";
    if (l.front() == '-' || l.back() == '-') return "has a label that starts or ends with '-'";
  }
  auto last = labels.back();
  if (std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::string("ends in an all-numeric label; that is an address, not a name");
  return kind_problem(name, host.starts_with("*."), labels);
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
