#include "contract/egress/squid_policy.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "contract/egress/output_text.hpp"
#include "util/strings.hpp"

namespace strata::contract::egress {
namespace {

// "*.example.com" → ^[^.]+\.example\.com$ (one extra label, as the wildcard means).
std::string wildcard_regex(const std::string& host) {
  std::string out = "^[^.]+";
  for (char c : host.substr(1)) out += c == '.' ? std::string("\\.") : std::string(1, c);
  return out + "$";
}

std::optional<std::string> regex_wildcard(std::string_view re) {
  constexpr std::string_view kHead = "^[^.]+";
  if (!re.starts_with(kHead) || !re.ends_with('$')) return std::nullopt;
  re = re.substr(kHead.size(), re.size() - kHead.size() - 1);
  std::string host = "*";
  for (std::size_t i = 0; i < re.size(); ++i) {
    if (re[i] == '\\' && i + 1 < re.size() && re[i + 1] == '.') {
      host += '.';
      ++i;
    } else if ((re[i] >= 'a' && re[i] <= 'z') || (re[i] >= '0' && re[i] <= '9') || re[i] == '-') {
      host += re[i];
    } else {
      return std::nullopt;
    }
  }
  return host;
}

struct Group {
  std::vector<const PolicyHost*> exact, wild;
};

}  // namespace

std::string squid_comment(std::string_view s, std::size_t max) {
  // squid ends a comment only at \n (it cuts a line at \r), but it reads a
  // line in pieces of BUFSIZ (8192) bytes: the rest of a longer line would
  // be read as a directive. one_line keeps it to one line, and short.
  return one_line(s, std::min<std::size_t>(max, 1024));
}

Result<SquidTls> parse_squid_tls(std::string_view s) {
  if (s == "connect") return SquidTls::kConnect;
  if (s == "bump") return SquidTls::kBump;
  return fail(ErrorCode::kInvalidArgument, "--tls " + str::quote(s) + ": expected connect (the default) or bump");
}

std::string render_squid(const Policy& p, SquidTls tls) {
  std::string out = header_comment(p, tls == SquidTls::kBump ? "squid, --tls bump" : "squid, --tls connect", squid_comment);
  out += "#\n# What squid enforces with this fragment:\n";
  out += "#  - plain HTTP through the proxy (http://host:port/...): only GET and HEAD to the hosts and ports\n";
  out += "#    below; any other method, host or port is refused (403).\n";
  if (tls == SquidTls::kConnect) {
    out += "#  - HTTPS: squid sees only \"CONNECT host:port\". It allows the tunnel to the hosts and ports below\n";
    out += "#    and nothing else, but it cannot see the requests inside the tunnel: methods are NOT enforced for\n";
    out += "#    HTTPS without TLS interception (a POST inside an allowed tunnel passes). Render with --tls bump\n";
    out += "#    to enforce methods inside HTTPS too.\n";
  } else {
    out += "#  - HTTPS: the tunnel is decrypted (ssl_bump) and every request inside it is checked like plain HTTP,\n";
    out += "#    so methods are enforced. This needs a squid built with OpenSSL (Debian: squid-openssl), an\n";
    out += "#    http_port with ssl-bump and a CA certificate the sandbox trusts (tls-cert=...), and\n";
    out += "#    sslcrtd_program; hosts the clients pin certificates for will fail.\n";
  }
  out += "# Include it before any other http_access line: it ends with \"http_access deny all\".\n";
  std::map<int, Group> by_port;
  for (const auto& h : p.hosts) (h.wildcard() ? by_port[h.port].wild : by_port[h.port].exact).push_back(&h);
  out += "\n";
  for (const auto& h : p.hosts)
    out += "# " + h.host + ":" + std::to_string(h.port) + " " + h.described() + ", " +
           squid_comment(h.reason) + "\n";
  if (!p.hosts.empty()) {
    out += "acl strata_read method GET HEAD\n";
    out += "acl strata_connect method CONNECT\n";
  }
  std::vector<std::string> host_acls;  // "strata_hosts_443", per port, in order
  for (const auto& [port, g] : by_port) {
    std::string n = std::to_string(port);
    out += "acl strata_port_" + n + " port " + n + "\n";
    if (!g.exact.empty()) {
      out += "acl strata_hosts_" + n + " dstdomain";
      for (const auto* h : g.exact) out += " " + h->host;
      out += "\n";
    }
    for (std::size_t i = 0; i < g.wild.size(); ++i) {
      out += "# wildcard " + g.wild[i]->host + ": one extra label, not " + g.wild[i]->host.substr(2) + " itself\n";
      out += "acl strata_wild_" + n + " dstdom_regex -i " + wildcard_regex(g.wild[i]->host) + "\n";
    }
  }
  if (tls == SquidTls::kBump && !p.hosts.empty()) {
    out += "acl strata_step1 at_step SslBump1\n";
    out += "acl strata_sni ssl::server_name";
    std::set<std::string> names;
    for (const auto& h : p.hosts) names.insert(h.wildcard() ? h.host.substr(1) : h.host);
    for (const auto& n : names) out += " " + n;
    out += "\n";
    out += "ssl_bump peek strata_step1\n";
    out += "ssl_bump bump strata_sni\n";
    out += "ssl_bump terminate all\n";
  }
  for (const char* method : {"strata_connect", "strata_read"})
    for (const auto& [port, g] : by_port) {
      std::string n = std::to_string(port);
      if (!g.exact.empty())
        out += std::string("http_access allow ") + method + " strata_port_" + n + " strata_hosts_" + n + "\n";
      if (!g.wild.empty())
        out += std::string("http_access allow ") + method + " strata_port_" + n + " strata_wild_" + n + "\n";
    }
  out += "http_access deny all\n";
  return out;
}

Result<Allowlist> read_squid_policy(std::string_view text, const std::string& file) {
  struct Acl {
    std::string type;
    std::vector<std::string> values;
  };
  std::map<std::string, Acl> acls;
  bool bump = false;
  struct Line {
    int number;
    std::vector<std::string> names;
  };
  std::vector<Line> allows;
  int n = 0;
  for (auto raw : str::split(text, '\n')) {
    ++n;
    std::string where = file + ":" + std::to_string(n);
    auto line = str::trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    auto words = str::split_ws(line);
    if (words[0] == "acl") {
      if (words.size() < 4) return fail(ErrorCode::kInvalidArgument, where + ": acl needs a name, a type and values");
      Acl& a = acls[std::string(words[1])];
      if (!a.type.empty() && a.type != words[2])
        return fail(ErrorCode::kInvalidArgument, where + ": acl " + std::string(words[1]) + " changes type");
      a.type = words[2];
      for (std::size_t i = 3; i < words.size(); ++i)
        if (words[i] != "-i") a.values.emplace_back(words[i]);
    } else if (words[0] == "http_access") {
      if (words.size() < 3) return fail(ErrorCode::kInvalidArgument, where + ": http_access needs allow|deny and an acl");
      if (words[1] == "deny") {
        if (words.size() == 3 && words[2] == "all") break;  // nothing after it can allow
        return fail(ErrorCode::kUnsupported, where + ": a deny line before \"http_access deny all\"; strata reads "
                                                     "the fragments `strata egress render` writes");
      }
      if (words[1] != "allow") return fail(ErrorCode::kInvalidArgument, where + ": http_access is neither allow nor deny");
      Line l{n, {}};
      for (std::size_t i = 2; i < words.size(); ++i) {
        if (words[i].starts_with('!'))
          return fail(ErrorCode::kUnsupported, where + ": a negated acl (" + std::string(words[i]) + ") is not read");
        l.names.emplace_back(words[i]);
      }
      allows.push_back(std::move(l));
    } else if (words[0] == "ssl_bump") {
      if (words.size() >= 2 && words[1] == "bump") bump = true;
    }
  }
  // host:port → methods (an empty set = every method)
  std::map<std::pair<std::string, int>, std::optional<std::set<std::string>>> grants;
  for (const auto& l : allows) {
    std::string where = file + ":" + std::to_string(l.number);
    std::optional<std::set<std::string>> methods;  // nullopt = every method
    std::vector<std::string> hosts;
    std::vector<int> ports;
    bool has_hosts = false, has_ports = false;
    for (const auto& name : l.names) {
      auto it = acls.find(name);
      if (it == acls.end()) return fail(ErrorCode::kInvalidArgument, where + ": acl " + name + " is not defined above");
      const Acl& a = it->second;
      if (a.type == "method") {
        std::set<std::string> m(a.values.begin(), a.values.end());
        if (methods) {
          std::set<std::string> both;
          std::set_intersection(methods->begin(), methods->end(), m.begin(), m.end(), std::inserter(both, both.end()));
          m = both;
        }
        methods = m;
      } else if (a.type == "port") {
        has_ports = true;
        for (const auto& v : a.values) {
          auto p = str::parse_u64(v);
          if (!p || *p < 1 || *p > 65535) return fail(ErrorCode::kInvalidArgument, where + ": port " + str::quote(v));
          ports.push_back(static_cast<int>(*p));
        }
      } else if (a.type == "dstdomain") {
        has_hosts = true;
        for (const auto& v : a.values) {
          if (v.starts_with('.'))
            return fail(ErrorCode::kUnsupported, where + ": dstdomain " + v + " covers a whole domain; strata grants exact names");
          hosts.push_back(str::lower(v));
        }
      } else if (a.type == "dstdom_regex") {
        has_hosts = true;
        for (const auto& v : a.values) {
          auto h = regex_wildcard(v);
          if (!h) return fail(ErrorCode::kUnsupported, where + ": dstdom_regex " + str::quote(v) + " is not one strata writes");
          hosts.push_back(*h);
        }
      } else {
        return fail(ErrorCode::kUnsupported, where + ": acl type " + a.type + " (" + name + ") is not read");
      }
    }
    if (!has_hosts) return fail(ErrorCode::kInvalidArgument, where + ": allows every host (no dstdomain acl)");
    if (!has_ports) return fail(ErrorCode::kInvalidArgument, where + ": allows every port (no port acl)");
    std::optional<std::set<std::string>> granted = methods;
    if (methods && methods->count("CONNECT")) {
      if (bump) {
        methods->erase("CONNECT");  // the tunnel is decrypted: only the other lines' methods apply inside
        if (methods->empty()) continue;
        granted = methods;
      } else {
        granted = std::nullopt;  // an opaque tunnel: every method
      }
    }
    if (granted && granted->empty()) continue;  // the line's method acls match nothing
    for (const auto& h : hosts)
      for (int port : ports) {
        auto [it, fresh] = grants.try_emplace({h, port}, granted);
        if (fresh) continue;
        if (!it->second || !granted) {
          it->second = std::nullopt;
        } else {
          it->second->insert(granted->begin(), granted->end());
        }
      }
  }
  Allowlist list;
  list.format = "squid";
  for (const auto& [key, methods] : grants) {
    AllowedHost a;
    a.host = key.first;
    a.port = key.second;
    if (methods) a.methods.assign(methods->begin(), methods->end());
    STRATA_TRY_VOID(check_allowed_host(a, file + ": " + a.host));
    list.hosts.push_back(std::move(a));
  }
  return list;
}

}  // namespace strata::contract::egress
