#include "layer/scratch/scratch_accounts.hpp"

#include "util/strings.hpp"

namespace strata::layer {

namespace {

struct Line {
  std::vector<std::string> fields;
};

Result<std::vector<Line>> parse_lines(std::string_view text, std::size_t fields, std::string_view what) {
  std::vector<Line> out;
  std::size_t n = 0;
  for (auto raw : str::split(text, '\n')) {
    ++n;
    if (raw.empty()) continue;
    auto f = str::split(raw, ':');
    if (f.size() != fields || f[0].empty() || !str::parse_u64(f[2])) {
      return fail(ErrorCode::kInvalidArgument, std::string(what) + " line " + std::to_string(n) + ": expected " +
                                                   std::to_string(fields) + " ':'-separated fields with a numeric id");
    }
    Line l;
    for (auto x : f) l.fields.emplace_back(x);
    out.push_back(std::move(l));
  }
  return out;
}

std::string join_line(const std::vector<std::string>& f) { return str::join(f, ":") + "\n"; }

}  // namespace

std::optional<std::uint64_t> account_id(std::string_view text, std::string_view name) {
  for (auto line : str::split(text, '\n')) {
    auto f = str::split(line, ':');
    if (f.size() >= 3 && f[0] == name) return str::parse_u64(f[2]);
  }
  return std::nullopt;
}

Result<std::vector<EffectFile>> account_effects(std::string_view passwd_master, std::string_view group_master,
                                                std::int64_t epoch, std::string_view what) {
  STRATA_TRY(auto users, parse_lines(passwd_master, 7, std::string(what) + " passwd.master"));
  STRATA_TRY(auto groups, parse_lines(group_master, 4, std::string(what) + " group.master"));
  std::string day = std::to_string(epoch / 86400);
  std::string passwd, shadow, group, gshadow;
  for (auto& u : users) {
    shadow += join_line({u.fields[0], u.fields[1], day, "0", "99999", "7", "", "", ""});
    u.fields[1] = "x";
    passwd += join_line(u.fields);
  }
  for (auto& g : groups) {
    gshadow += join_line({g.fields[0], g.fields[1], "", g.fields[3]});
    g.fields[1] = "x";
    group += join_line(g.fields);
  }
  auto shadow_gid = account_id(group_master, "shadow");
  if (!shadow_gid) {
    return fail(ErrorCode::kInvalidArgument,
                std::string(what) + " group.master has no shadow group; /etc/shadow would have no owner group");
  }
  std::vector<EffectFile> out;
  out.push_back(effect_file("etc/passwd", passwd, 0644, epoch));
  out.push_back(effect_file("etc/group", group, 0644, epoch));
  for (auto [path, content] : {std::pair{"etc/shadow", &shadow}, std::pair{"etc/gshadow", &gshadow}}) {
    auto f = effect_file(path, *content, 0640, epoch);
    f.entry.gid = *shadow_gid;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace strata::layer
