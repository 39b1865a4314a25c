#include "contract/knowledge/tool_version.hpp"

#include <optional>

#include "contract/knowledge/ecosystem_versions.hpp"
#include "util/strings.hpp"

namespace strata::contract {

Result<Range> read_node_version(std::string_view text, const KnowledgeBase& kb, std::string& note) {
  std::string v = str::lower(str::trim(text));
  if (v.starts_with("lts/")) {
    std::string name = v.substr(4);
    auto majors = kb.node_lts_majors();
    std::string date = kb.dates().count("runtime_aliases.yaml") ? kb.dates().at("runtime_aliases.yaml") : "?";
    std::optional<int> major;
    if (name == "*") {
      if (!majors.empty()) major = majors.back();
    } else if (name.starts_with('-')) {
      auto n = str::parse_u64(name.substr(1));
      if (n && *n < majors.size()) major = majors[majors.size() - 1 - *n];
    } else {
      major = kb.node_lts_major(name);
    }
    if (!major) return fail(ErrorCode::kInvalidArgument, "unknown LTS alias " + str::quote(v) + " (table as of " + date + ")");
    note = v + " → Node " + std::to_string(*major) + " per runtime_aliases.yaml as of " + date;
    return parse_version_line(std::to_string(*major));
  }
  if (kb.node_latest_alias(v)) {
    note = "means the newest release; no lower bound";
    return Range::all();
  }
  if (kb.node_unknown_alias(v)) {
    note = "unknown";
    return Range::all();
  }
  // "20", "v20.11.1", ">=20": a bare version is a release line, else a range.
  if (auto p = parse_version_line(v)) return p;
  return parse_npm_range(v);
}

Result<Range> read_tool_version(const std::string& tool, std::string_view text, const KnowledgeBase& kb,
                                std::string& note) {
  if (tool == "node") return read_node_version(text, kb, note);
  if (tool == "java") {
    std::string vendor;
    auto r = read_java_version(text, vendor);
    if (r && !vendor.empty()) note = "distribution " + vendor;
    return r;
  }
  if (tool == "elixir" || tool == "erlang") return read_beam_version(text);
  if (auto r = parse_version_line(text)) return r;
  return tool == "python" ? parse_pep440(text) : parse_npm_range(text);
}

}  // namespace strata::contract
