#include "layer/debian/version.hpp"

#include <cctype>
#include <cstdint>

#include "util/strings.hpp"

namespace strata::layer {

namespace {

struct Parts {
  std::uint64_t epoch = 0;
  std::string_view upstream;
  std::string_view revision;
};

Parts split(std::string_view v) {
  Parts p;
  std::size_t colon = v.find(':');
  if (colon != std::string_view::npos) {
    std::uint64_t e = 0;
    for (char c : v.substr(0, colon)) {
      if (c < '0' || c > '9') break;
      e = e * 10 + static_cast<std::uint64_t>(c - '0');
      if (e > 0xffffffffu) break;
    }
    p.epoch = e;
    v.remove_prefix(colon + 1);
  }
  std::size_t dash = v.rfind('-');
  if (dash != std::string_view::npos) {
    p.upstream = v.substr(0, dash);
    p.revision = v.substr(dash + 1);
  } else {
    p.upstream = v;
  }
  return p;
}

// dpkg's order() for one character: '~' < end/digit < letters < others.
int order(int c) {
  if (std::isdigit(c)) return 0;
  if (std::isalpha(c)) return c;
  if (c == '~') return -1;
  if (c) return c + 256;
  return 0;
}

int verrevcmp(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto at = [](std::string_view s, std::size_t k) -> int {
    return k < s.size() ? static_cast<unsigned char>(s[k]) : 0;
  };
  while (i < a.size() || j < b.size()) {
    int first_diff = 0;
    while ((i < a.size() && !std::isdigit(at(a, i))) || (j < b.size() && !std::isdigit(at(b, j)))) {
      int ac = order(at(a, i));
      int bc = order(at(b, j));
      if (ac != bc) return ac - bc;
      ++i;
      ++j;
    }
    while (at(a, i) == '0') ++i;
    while (at(b, j) == '0') ++j;
    while (std::isdigit(at(a, i)) && std::isdigit(at(b, j))) {
      if (!first_diff) first_diff = at(a, i) - at(b, j);
      ++i;
      ++j;
    }
    if (std::isdigit(at(a, i))) return 1;
    if (std::isdigit(at(b, j))) return -1;
    if (first_diff) return first_diff;
  }
  return 0;
}

}  // namespace

Result<void> validate_version(std::string_view version, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::kInvalidArgument,
                std::string(what) + ": invalid version " + str::quote(version, 80) + ": " + std::string(why));
  };
  if (version.empty()) return bad("empty");
  if (version.size() > 256) return bad("longer than 256 characters");
  std::string_view rest = version;
  std::size_t colon = rest.find(':');
  if (colon != std::string_view::npos) {
    std::string_view epoch = rest.substr(0, colon);
    auto e = str::parse_u64(epoch);
    if (!e || *e > 0x7fffffff) return bad("epoch is not a number");
    rest.remove_prefix(colon + 1);
  }
  std::size_t dash = rest.rfind('-');
  std::string_view upstream = dash == std::string_view::npos ? rest : rest.substr(0, dash);
  std::string_view revision = dash == std::string_view::npos ? std::string_view{} : rest.substr(dash + 1);
  if (upstream.empty()) return bad("empty upstream version");
  if (!std::isdigit(static_cast<unsigned char>(upstream[0]))) return bad("upstream version must start with a digit");
  for (char c : upstream) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '+' && c != '~' && c != '-' && c != ':')
      return bad("character not allowed in upstream version");
  }
  if (dash != std::string_view::npos && revision.empty()) return bad("empty revision after '-'");
  for (char c : revision) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '+' && c != '~')
      return bad("character not allowed in revision");
  }
  return {};
}

int compare_versions(std::string_view a, std::string_view b) {
  Parts pa = split(a);
  Parts pb = split(b);
  if (pa.epoch != pb.epoch) return pa.epoch < pb.epoch ? -1 : 1;
  int r = verrevcmp(pa.upstream, pb.upstream);
  if (r) return r < 0 ? -1 : 1;
  r = verrevcmp(pa.revision, pb.revision);
  return r < 0 ? -1 : (r > 0 ? 1 : 0);
}

bool version_satisfies(std::string_view version, RelOp op, std::string_view reference) {
  if (op == RelOp::kAny) return true;
  int c = compare_versions(version, reference);
  switch (op) {
    case RelOp::kLess: return c < 0;
    case RelOp::kLessEq: return c <= 0;
    case RelOp::kEq: return c == 0;
    case RelOp::kGreaterEq: return c >= 0;
    case RelOp::kGreater: return c > 0;
    case RelOp::kAny: return true;
  }
  return false;
}

std::string_view rel_op_text(RelOp op) {
  switch (op) {
    case RelOp::kLess: return "<<";
    case RelOp::kLessEq: return "<=";
    case RelOp::kEq: return "=";
    case RelOp::kGreaterEq: return ">=";
    case RelOp::kGreater: return ">>";
    case RelOp::kAny: return "";
  }
  return "";
}

}  // namespace strata::layer
