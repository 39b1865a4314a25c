#include "layer/debian/package.hpp"

#include "util/strings.hpp"

namespace strata::layer {

std::string_view multi_arch_name(MultiArch m) {
  switch (m) {
    case MultiArch::kNo: return "no";
    case MultiArch::kSame: return "same";
    case MultiArch::kForeign: return "foreign";
    case MultiArch::kAllowed: return "allowed";
  }
  return "no";
}

namespace {

bool is_hex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

Result<Package> package_from_stanza(const Deb822Stanza& stanza, StanzaKind kind, std::string_view origin) {
  std::string where = std::string(origin) + ":" + std::to_string(stanza.line);
  auto bad = [&](std::string_view why) { return fail(ErrorCode::kInvalidArgument, where + ": " + std::string(why)); };
  Package p;
  auto name = stanza.get("Package");
  if (!name) return bad("stanza has no Package field");
  if (!valid_package_name(*name)) return bad("invalid package name " + str::quote(*name, 60));
  p.name = std::string(*name);
  where += " (" + p.name + ")";
  auto version = stanza.get("Version");
  if (!version) return bad("no Version field");
  STRATA_TRY_VOID(validate_version(*version, where));
  p.version = std::string(*version);
  auto arch = stanza.get("Architecture");
  if (!arch || arch->empty() || arch->find_first_of(" \t\n") != std::string_view::npos)
    return bad("missing or invalid Architecture field");
  p.architecture = std::string(*arch);
  if (auto ma = stanza.get("Multi-Arch")) {
    if (*ma == "same") p.multi_arch = MultiArch::kSame;
    else if (*ma == "foreign") p.multi_arch = MultiArch::kForeign;
    else if (*ma == "allowed") p.multi_arch = MultiArch::kAllowed;
    else if (*ma == "no") p.multi_arch = MultiArch::kNo;
    else return bad("unknown Multi-Arch value " + str::quote(*ma, 40));
  }
  p.essential = stanza.get("Essential").value_or("no") == "yes";
  p.important = stanza.get("Important").value_or("no") == "yes" ||
                stanza.get("Protected").value_or("no") == "yes";
  if (auto prio = stanza.get("Priority")) {
    if (*prio == "required") p.priority = 1;
    else if (*prio == "important") p.priority = 2;
    else if (*prio == "standard") p.priority = 3;
    else if (*prio == "optional") p.priority = 4;
  }
  p.source = p.name;
  p.source_version = p.version;
  if (auto src = stanza.get("Source")) {
    std::string_view sv = str::trim(*src);
    auto paren = sv.find('(');
    std::string_view name = str::trim(sv.substr(0, paren));
    if (!valid_package_name(name)) return bad("invalid Source field " + str::quote(*src, 80));
    p.source = std::string(name);
    if (paren != std::string_view::npos) {
      auto close = sv.find(')', paren);
      if (close == std::string_view::npos || !str::trim(sv.substr(close + 1)).empty())
        return bad("invalid Source field " + str::quote(*src, 80) + ": expected 'name (version)'");
      std::string_view ver = str::trim(sv.substr(paren + 1, close - paren - 1));
      STRATA_TRY_VOID(validate_version(ver, where + " Source"));
      p.source_version = std::string(ver);
    }
  }
  auto relations = [&](std::string_view field, Alternatives alts) -> Result<std::vector<OrGroup>> {
    auto v = stanza.get(field);
    if (!v) return std::vector<OrGroup>{};
    return parse_relations(*v, where + " " + std::string(field), alts);
  };
  auto flat = [](std::vector<OrGroup> groups) {
    std::vector<Relation> out;
    for (auto& g : groups) out.push_back(std::move(g.front()));
    return out;
  };
  STRATA_TRY(p.pre_depends, relations("Pre-Depends", Alternatives::kAllowed));
  STRATA_TRY(p.depends, relations("Depends", Alternatives::kAllowed));
  STRATA_TRY(auto conflicts, relations("Conflicts", Alternatives::kForbidden));
  STRATA_TRY(auto breaks, relations("Breaks", Alternatives::kForbidden));
  STRATA_TRY(auto provides, relations("Provides", Alternatives::kForbidden));
  p.conflicts = flat(std::move(conflicts));
  p.breaks = flat(std::move(breaks));
  p.provides = flat(std::move(provides));
  for (const auto& pr : p.provides) {
    if (pr.op != RelOp::kAny && pr.op != RelOp::kEq) return bad("Provides allows only '=' versions: " + pr.str());
    if (!pr.arch.empty()) return bad("Provides may not carry an architecture qualifier: " + pr.str());
  }
  if (kind == StanzaKind::kPackagesIndex) {
    auto filename = stanza.get("Filename");
    if (!filename || filename->empty()) return bad("no Filename field");
    std::string_view f = *filename;
    if (f.front() == '/' || f.find("..") != std::string_view::npos || f.find('\n') != std::string_view::npos ||
        f.find_first_of(" \t?#") != std::string_view::npos)
      return bad("unsafe Filename " + str::quote(f, 120));
    p.filename = std::string(f);
    auto size = stanza.get("Size");
    auto parsed = size ? str::parse_u64(*size) : std::nullopt;
    if (!parsed) return bad("missing or invalid Size field");
    p.size = *parsed;
    auto sha = stanza.get("SHA256");
    if (!sha || sha->size() != 64 || !is_hex(*sha)) return bad("missing or invalid SHA256 field");
    p.sha256 = std::string(*sha);
  }
  return p;
}

}  // namespace strata::layer
