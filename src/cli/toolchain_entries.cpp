#include "cli/toolchain_entries.hpp"

#include <algorithm>

#include "util/version_range.hpp"
#include "oci/platform.hpp"

namespace strata::cli {

namespace tc = layer::toolchain;

Result<tc::VersionWant> toolchain_want(const std::string& tool, const std::string& text) {
  tc::VersionWant w;
  w.text = text;
  if (tc::is_release_version(text) && std::count(text.begin(), text.end(), '.') == 2) {
    w.exact = text;
    return w;
  }
  auto range = tc::is_release_version(text) ? parse_version_line(text) : parse_npm_range(text);
  if (!range) {
    return fail(ErrorCode::kInvalidArgument, tool + "@" + text + ": " + range.error().message() +
                                                 " (give X.Y.Z, a line such as 22 or 3.12, or a range such as "
                                                 "\">=20 <21\")");
  }
  w.admits = [r = *range](std::string_view v) {
    auto pv = parse_version(v);
    return pv && pv->pre.empty() && r.contains(*pv);
  };
  if (tc::is_release_version(text)) w.line = tc::line_of(tool, text);  // java@21: Adoptium's feature release 21 only
  return w;
}

bool npm_range_admits(std::string_view range, std::string_view version) {
  auto r = parse_npm_range(range);
  auto pv = parse_version(version);
  return r && pv && r->contains(*pv);
}

Result<std::vector<EntryRequest>> toolchain_requests(const std::vector<tc::ToolchainEntry>& entries,
                                                     const std::vector<std::string>& platforms) {
  std::vector<EntryRequest> out;
  for (const auto& e : entries) {
    std::vector<std::string> ps = e.platforms.empty() ? platforms : e.platforms;
    if (ps.empty()) ps.emplace_back();  // this machine's
    for (const auto& p : ps) {
      oci::Platform platform = oci::host_platform();
      if (!p.empty()) {
        STRATA_TRY(platform, with_context(oci::parse_platform(p), e.where));
      }
      STRATA_TRY(auto q, tc::entry_request(e, platform.architecture, toolchain_want, npm_range_admits));
      out.push_back({e.where + (ps.size() > 1 ? " (" + p + ")" : ""), std::move(q)});
    }
  }
  return out;
}

}  // namespace strata::cli
