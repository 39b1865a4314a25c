#include "contract/scan/project_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <map>
#include <variant>

#include "contract/knowledge/tool_version.hpp"
#include "contract/model/host_name.hpp"
#include "oci/yaml_load.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

const std::string kFile = ".mac/project.yaml";

// The comment at the end of line `line` (0-based) of `text`: "# release
// metadata" → "release metadata". A '#' only starts a comment after a space
// and outside quotes, as in YAML.
std::string line_comment(std::string_view text, int line) {
  if (line < 0) return {};
  auto lines = str::split(text, '\n');
  if (static_cast<std::size_t>(line) >= lines.size()) return {};
  std::string_view l = lines[static_cast<std::size_t>(line)];
  char quote = 0;
  for (std::size_t i = 0; i < l.size(); ++i) {
    char c = l[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || l[i - 1] == ' ' || l[i - 1] == '\t')) {
      return std::string(str::trim(l.substr(i + 1)));
    }
  }
  return {};
}

struct Declaration {
  std::string host;
  int port = 443;
  std::string access = "read-only";
  std::string reason;
};

// One entry of the egress list, checked: the only place a declaration is
// judged (docs/contract.md "Declarations"). Returns the reason it cannot be
// granted, or the declaration.
std::variant<Declaration, std::string> read_entry(const YAML::Node& e, std::string_view text) {
  Declaration d;
  if (!e.IsScalar() && !e.IsMap()) return std::string("has no host");
  if (e.IsMap()) {
    for (const auto& kv : e) {
      auto k = kv.first.Scalar();
      if (k != "host" && k != "port" && k != "access" && k != "reason")
        return "has the key " + str::quote(k) + "; an entry has host, port, access and reason";
    }
    if (!e["host"]) return std::string("has no host");
    if (const YAML::Node p = e["port"]) {
      if (!p.IsScalar()) return std::string("has a port that is not a number");
      auto v = str::parse_u64(p.Scalar());
      if (!v || *v < 1 || *v > 65535) return "has port " + str::quote(p.Scalar()) + ", outside 1-65535";
      d.port = static_cast<int>(*v);
    }
    if (const YAML::Node a = e["access"]) {
      if (!a.IsScalar()) return std::string("has an access that is not a word");
      d.access = a.Scalar();
    }
    if (const YAML::Node r = e["reason"]; r && r.IsScalar()) d.reason = r.Scalar();
  }
  // Bound once, never reassigned: assigning a yaml-cpp Node writes through it.
  const YAML::Node host = e.IsMap() ? e["host"] : e;
  if (!host.IsScalar()) return std::string("has a host that is not a name");
  d.host = str::lower(host.Scalar());
  if (auto p = host_name_problem(d.host, /*allow_wildcard=*/true)) return "(" + str::quote(host.Scalar()) + "): host " + *p;
  if (d.access != "read-only")
    return "(" + d.host + "): access " + str::quote(d.access) +
           " cannot be granted; strata's egress is read-only (GET and HEAD) — declare read-only, or leave the host "
           "out";
  if (d.reason.empty()) d.reason = line_comment(text, host.Mark().line);
  if (d.reason.empty()) d.reason = "declared by the repository";
  return d;
}

}  // namespace

void scan_project_yaml(ScanContext& ctx) {
  // (An entry yaml-cpp cannot read is rejected on its own; the others stand.)
  const std::string& rel = kFile;
  if (!ctx.fs().is_file(rel)) return;
  auto text = ctx.fs().read_text(rel);
  if (!text) return;
  // A file that cannot be read declares nothing strata can know: rejected
  // as a whole, so a render fails naming it rather than leaving out what it
  // may declare (a policy without the hosts the repository asked for).
  auto unusable = [&](const std::string& why) {
    ctx.egress_rejected({rel, "(the whole file)", "not used: " + why + "; none of its declarations is granted"});
  };
  auto loaded = oci::load_yaml(*text, "");
  if (!loaded) {
    unusable(loaded.error().message());
    return;
  }
  try {
    const YAML::Node doc = *loaded;
    if (!doc.IsMap()) {
      unusable("not a mapping");
      return;
    }
    std::map<std::pair<std::string, int>, std::string> seen;  // host:port → the entry that declared it
    for (const char* key : {"egress", "egress_hosts"}) {
      YAML::Node list = doc[key];
      if (!list) continue;
      if (!list.IsSequence()) {
        ctx.egress_rejected({rel, key, "must be a list of hosts"});
        continue;
      }
      for (std::size_t i = 0; i < list.size(); ++i) {
        std::string entry = std::string(key) + "[" + std::to_string(i) + "]";
        std::variant<Declaration, std::string> r;
        try {
          r = read_entry(list[i], *text);
        } catch (const YAML::Exception& ex) {
          r = std::string("cannot be read: ") + ex.what();
        }
        if (auto* why = std::get_if<std::string>(&r)) {
          ctx.egress_rejected({rel, entry, *why});
          continue;
        }
        auto& d = std::get<Declaration>(r);
        auto [it, fresh] = seen.try_emplace({d.host, d.port}, entry);
        if (!fresh) {
          ctx.egress_rejected({rel, entry,
                               "(" + d.host + "): " + d.host + ":" + std::to_string(d.port) +
                                   " is declared twice (also " + it->second + ")"});
          continue;
        }
        std::string shown = d.host + (d.port == 443 ? "" : ":" + std::to_string(d.port));
        ctx.egress(d.host, EgressOrigin::kDeclared, d.reason, Evidence{rel, entry, shown + " (" + d.access + ")"}, {},
                   d.port);
      }
    }
    // The version to provision, chosen by the team (docs/contract.md,
    // "Runtime versions"): a pin before every other, still checked against
    // the project's support.
    if (YAML::Node rt = doc["runtimes"]; rt) {
      if (!rt.IsMap()) {
        ctx.warn(rel, "runtimes must be a mapping of a tool to its version (node: \"22\")");
      } else {
        for (const auto& kv : rt) {
          const std::string tool = kv.first.as<std::string>();
          if (!kv.second.IsScalar() || kv.second.Scalar().empty()) {
            ctx.warn(rel, "runtimes." + tool + " must be a version (\"22\", \"3.12\", \"1.82.0\")");
            continue;
          }
          std::string note;
          const std::string v = kv.second.Scalar();
          auto range = read_tool_version(tool, v, ctx.kb(), note);  // before `note` is read
          ctx.constraint(tool, ConstraintKind::kPin, {rel, "runtimes." + tool, v}, range,
                         note.empty() ? "declared: the version to provision" : note);
        }
      }
    }
    // Needs beyond building and testing the repository that the sandbox
    // should carry too: `include: [run]` (what the production image needs).
    if (YAML::Node inc = doc["include"]; inc) {
      std::vector<std::string> needs;
      if (inc.IsScalar()) needs.push_back(inc.Scalar());
      else if (inc.IsSequence())
        for (const auto& n : inc) needs.push_back(n.IsScalar() ? n.Scalar() : "");
      else ctx.warn(rel, "include must be a list of needs ([run])");
      for (const auto& n : needs) {
        if (n == purpose_name(Purpose::kRun)) ctx.include(n);
        else if (n != purpose_name(Purpose::kBuild))  // build: always provisioned
          ctx.warn(rel, "include: " + str::quote(n, 40) + " is not a need strata knows (run); not used");
      }
    }
    if (YAML::Node tc = doc["toolchain"]; tc && tc.IsMap() && tc["required_commands"]) {
      YAML::Node cmds = tc["required_commands"];
      if (cmds.IsSequence())
        for (const auto& c : cmds) ctx.command(c.as<std::string>(), "declared in " + rel);
      else
        ctx.warn(rel, "toolchain.required_commands must be a list");
    }
  } catch (const YAML::Exception& e) {
    unusable(std::string("malformed YAML: ") + e.what());
  }
}

}  // namespace strata::contract
