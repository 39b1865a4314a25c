#include "layer/apt/release.hpp"

#include <algorithm>
#include <array>
#include <ctime>

#include "layer/debian/deb822.hpp"
#include "util/strings.hpp"

namespace strata::layer {

int Release::pin_priority() const {
  if (not_automatic && but_automatic_upgrades) return 100;
  if (not_automatic) return 1;
  return 500;
}

Result<std::int64_t> parse_release_date(std::string_view text) {
  auto bad = [&] {
    return fail(ErrorCode::kInvalidArgument, "invalid date " + str::quote(text, 60) +
                                                 " (expected RFC 2822 in UTC, e.g. 'Sat, 10 Jun 2023 09:21:43 UTC')");
  };
  auto w = str::split_ws(text);
  if (!w.empty() && w[0].size() == 4 && w[0].back() == ',') w.erase(w.begin());
  if (w.size() != 5) return bad();
  static constexpr std::array<std::string_view, 12> months{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  auto day = str::parse_u64(w[0]);
  auto mon = std::find(months.begin(), months.end(), w[1]);
  auto year = str::parse_u64(w[2]);
  auto hms = str::split(w[3], ':');
  if (!day || mon == months.end() || !year || hms.size() != 3) return bad();
  auto h = str::parse_u64(hms[0]), m = str::parse_u64(hms[1]), s = str::parse_u64(hms[2]);
  if (!h || !m || !s || *day < 1 || *day > 31 || *year < 1970 || *year > 9999 || *h > 23 || *m > 59 || *s > 60)
    return bad();
  if (w[4] != "UTC" && w[4] != "GMT" && w[4] != "Z" && w[4] != "+0000") return bad();
  std::tm tm{};
  tm.tm_year = static_cast<int>(*year) - 1900;
  tm.tm_mon = static_cast<int>(mon - months.begin());
  tm.tm_mday = static_cast<int>(*day);
  tm.tm_hour = static_cast<int>(*h);
  tm.tm_min = static_cast<int>(*m);
  tm.tm_sec = static_cast<int>(*s);
  return static_cast<std::int64_t>(::timegm(&tm));
}

Result<Release> parse_release(std::string_view text, std::string_view what) {
  STRATA_TRY(auto stanzas, parse_deb822(text, what));
  if (stanzas.size() != 1) {
    return fail(ErrorCode::kInvalidArgument,
                std::string(what) + ": expected exactly one stanza, found " + std::to_string(stanzas.size()));
  }
  const Deb822Stanza& s = stanzas[0];
  Release r;
  r.origin = std::string(s.get("Origin").value_or(""));
  r.label = std::string(s.get("Label").value_or(""));
  r.suite = std::string(s.get("Suite").value_or(""));
  r.codename = std::string(s.get("Codename").value_or(""));
  auto words = [&](std::string_view field) {
    std::vector<std::string> out;
    for (auto w : str::split_ws(s.get(field).value_or(""))) out.emplace_back(w);
    return out;
  };
  r.architectures = words("Architectures");
  r.components = words("Components");
  r.not_automatic = s.get("NotAutomatic").value_or("no") == "yes";
  r.but_automatic_upgrades = s.get("ButAutomaticUpgrades").value_or("no") == "yes";
  r.acquire_by_hash = s.get("Acquire-By-Hash").value_or("no") == "yes";
  r.no_arch_all_packages = s.get("No-Support-for-Architecture-all").value_or("") == "Packages";
  if (auto d = s.get("Date")) {
    auto t = parse_release_date(*d);
    if (!t) return std::unexpected(t.error().context(std::string(what) + " Date"));
    r.date = *t;
  }
  if (auto d = s.get("Valid-Until")) {
    auto t = parse_release_date(*d);
    if (!t) return std::unexpected(t.error().context(std::string(what) + " Valid-Until"));
    r.valid_until = *t;
  }
  const Deb822Field* sums = s.find("SHA256");
  if (sums == nullptr) {
    return fail(ErrorCode::kInvalidArgument,
                std::string(what) + ": no SHA256 field (MD5Sum/SHA1-only archives are not trusted)");
  }
  std::size_t line = sums->line;
  for (std::string_view l : str::split(sums->value, '\n')) {
    if (str::trim(l).empty()) {
      ++line;
      continue;
    }
    auto w = str::split_ws(l);
    auto size = w.size() == 3 ? str::parse_u64(w[1]) : std::nullopt;
    bool hex = w.size() == 3 && w[0].size() == 64 &&
               std::all_of(w[0].begin(), w[0].end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
    if (!size || !hex || w[2].find("..") != std::string_view::npos || w[2].front() == '/') {
      return fail(ErrorCode::kInvalidArgument,
                  std::string(what) + ":" + std::to_string(line) + ": malformed SHA256 entry " + str::quote(l, 120));
    }
    r.sha256[std::string(w[2])] = ReleaseEntry{*size, std::string(w[0])};
    ++line;
  }
  return r;
}

Result<void> check_release(const Release& r, const ReleaseChecks& c, std::string_view what) {
  auto refuse = [&](std::string why) { return fail(ErrorCode::kFailedPrecondition, std::string(what) + ": " + why); };
  if (!r.date) return refuse("no Date field; refusing a Release that cannot be dated");
  if (*r.date > c.now + c.max_future_seconds) {
    return refuse("Date " + str::rfc3339(*r.date) + " is in the future (now " + str::rfc3339(c.now) +
                  "); check the system clock or the mirror");
  }
  if (c.check_valid_until && r.valid_until && *r.valid_until < c.now) {
    return refuse("expired: Valid-Until " + str::rfc3339(*r.valid_until) + " has passed (now " + str::rfc3339(c.now) +
                  "); the mirror is stale, or set 'Check-Valid-Until: no' for snapshot archives");
  }
  if (r.suite != c.suite && r.codename != c.suite) {
    return refuse("is for suite '" + r.suite + "' (codename '" + r.codename + "'), not the configured '" + c.suite +
                  "'; refusing a possibly substituted Release");
  }
  for (const auto& comp : c.components) {
    // The security archive lists "updates/main" for the "main" it serves;
    // apt accepts a listed component ending in "/<component>" too.
    bool listed = std::any_of(r.components.begin(), r.components.end(), [&](const std::string& l) {
      return l == comp || (l.size() > comp.size() && l.ends_with("/" + comp));
    });
    if (!listed)
      return refuse("component '" + comp + "' is not listed (Components: " + str::join(r.components, " ") + ")");
  }
  for (const auto& arch : c.architectures) {
    if (std::find(r.architectures.begin(), r.architectures.end(), arch) == r.architectures.end())
      return refuse("architecture '" + arch + "' is not listed (Architectures: " + str::join(r.architectures, " ") +
                    ")");
  }
  return {};
}

}  // namespace strata::layer
