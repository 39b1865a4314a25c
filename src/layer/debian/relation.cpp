#include "layer/debian/relation.hpp"

#include <cctype>

#include "util/strings.hpp"

namespace strata::layer {

bool valid_package_name(std::string_view name) {
  if (name.empty() || name.size() > 256) return false;
  if (!std::islower(static_cast<unsigned char>(name[0])) && !std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!std::islower(u) && !std::isdigit(u) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

namespace {

bool valid_arch_name(std::string_view a) {
  if (a.empty() || a.size() > 64) return false;
  for (char c : a) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!std::islower(u) && !std::isdigit(u) && c != '-') return false;
  }
  return true;
}

Result<Relation> parse_one(std::string_view text, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::kInvalidArgument,
                std::string(what) + ": " + std::string(why) + " in " + str::quote(str::trim(text), 120));
  };
  std::string_view s = str::trim(text);
  if (s.empty()) return bad("empty relation");
  if (s.find('[') != std::string_view::npos ||
      (s.find('<') != std::string_view::npos && s.find('(') == std::string_view::npos))
    return bad("architecture restrictions and build profiles are not allowed in binary package relations");
  std::size_t name_end = 0;
  while (name_end < s.size() && !std::isspace(static_cast<unsigned char>(s[name_end])) && s[name_end] != '(')
    ++name_end;
  std::string_view full = s.substr(0, name_end);
  Relation r;
  std::size_t colon = full.find(':');
  std::string_view name = colon == std::string_view::npos ? full : full.substr(0, colon);
  if (!valid_package_name(name)) return bad("invalid package name " + str::quote(name, 60));
  r.name = std::string(name);
  if (colon != std::string_view::npos) {
    std::string_view arch = full.substr(colon + 1);
    if (!valid_arch_name(arch)) return bad("invalid architecture qualifier " + str::quote(arch, 60));
    r.arch = std::string(arch);
  }
  std::string_view rest = str::trim(s.substr(name_end));
  if (rest.empty()) return r;
  if (rest.front() != '(' || rest.back() != ')') return bad("expected '(op version)' after the name");
  std::string_view inner = str::trim(rest.substr(1, rest.size() - 2));
  std::size_t op_len = 0;
  while (op_len < inner.size() && (inner[op_len] == '<' || inner[op_len] == '>' || inner[op_len] == '='))
    ++op_len;
  std::string_view op = inner.substr(0, op_len);
  if (op == "<<") r.op = RelOp::kLess;
  else if (op == "<=" || op == "<") r.op = RelOp::kLessEq;
  else if (op == "=") r.op = RelOp::kEq;
  else if (op == ">=" || op == ">") r.op = RelOp::kGreaterEq;
  else if (op == ">>") r.op = RelOp::kGreater;
  else return bad("unknown relation operator " + str::quote(op, 10));
  std::string_view ver = str::trim(inner.substr(op_len));
  STRATA_TRY_VOID(validate_version(ver, what));
  r.version = std::string(ver);
  return r;
}

}  // namespace

std::string Relation::str() const {
  std::string s = name;
  if (!arch.empty()) s += ":" + arch;
  if (op != RelOp::kAny) s += " (" + std::string(rel_op_text(op)) + " " + version + ")";
  return s;
}

Result<std::vector<OrGroup>> parse_relations(std::string_view field, std::string_view what,
                                             Alternatives alternatives) {
  std::vector<OrGroup> out;
  if (str::trim(field).empty()) return out;
  auto items = str::split(field, ',');
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string_view item = items[i];
    if (str::trim(item).empty()) {
      // dpkg tolerates a trailing comma; an empty item elsewhere is an error.
      if (i + 1 == items.size()) continue;
      return fail(ErrorCode::kInvalidArgument, std::string(what) + ": empty item in relation list");
    }
    OrGroup group;
    auto alts = str::split(item, '|');
    if (alts.size() > 1 && alternatives == Alternatives::kForbidden)
      return fail(ErrorCode::kInvalidArgument,
                  std::string(what) + ": alternatives ('|') are not allowed in this field");
    for (std::string_view alt : alts) {
      STRATA_TRY(Relation r, parse_one(alt, what));
      group.push_back(std::move(r));
    }
    out.push_back(std::move(group));
  }
  return out;
}

}  // namespace strata::layer
