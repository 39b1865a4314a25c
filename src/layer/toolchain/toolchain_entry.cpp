#include "layer/toolchain/toolchain_entry.hpp"

#include <algorithm>
#include <initializer_list>

#include "oci/platform.hpp"
#include "oci/yaml_load.hpp"
#include "util/strings.hpp"

namespace strata::layer::toolchain {

namespace {

constexpr std::size_t kMaxEntries = 1000;

std::size_t dots(std::string_view v) { return static_cast<std::size_t>(std::count(v.begin(), v.end(), '.')); }

}  // namespace

Result<std::vector<ToolchainEntry>> parse_toolchain_entries(const YAML::Node& list, const std::string& file,
                                                            const std::filesystem::path& relative_to) {
  std::vector<ToolchainEntry> out;
  if (!list) return out;
  if (!list.IsSequence()) return fail(ErrorCode::kInvalidArgument, file + ": `toolchains` must be a list");
  if (list.size() > kMaxEntries) {
    return fail(ErrorCode::kInvalidArgument,
                file + ": `toolchains` has more than " + std::to_string(kMaxEntries) + " entries");
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node& n = list[i];
    ToolchainEntry e;
    e.where = file + ": toolchains[" + std::to_string(i) + "]";
    STRATA_TRY_VOID(oci::yaml_known_keys(n, {"tool", "version", "source", "keyring", "platforms"}, e.where));
    STRATA_TRY(e.tool, oci::yaml_text(n, "tool", e.where, true));
    if (!is_toolchain_tool(e.tool)) {
      return fail(ErrorCode::kInvalidArgument, e.where + ": `tool` " + str::quote(e.tool) +
                                                   " has no toolchain (tools with one: " +
                                                   std::string(kToolchainTools) + ")");
    }
    STRATA_TRY(e.version, oci::yaml_text(n, "version", e.where, true));
    STRATA_TRY(e.source, oci::yaml_text(n, "source", e.where, false));
    if (!e.source.empty()) STRATA_TRY_VOID(with_context(parse_source(e.tool, e.source), e.where));
    STRATA_TRY(auto keyring, oci::yaml_text(n, "keyring", e.where, false));
    if (!keyring.empty()) {
      std::filesystem::path k(keyring);
      e.keyring = k.is_absolute() || relative_to.empty() ? k : (relative_to / k).lexically_normal();
    }
    if (auto p = n["platforms"]) {
      if (!p.IsSequence()) return fail(ErrorCode::kInvalidArgument, e.where + ": `platforms` must be a list of strings");
      for (std::size_t j = 0; j < p.size(); ++j) {
        const std::string at = e.where + ": `platforms[" + std::to_string(j) + "]`";
        if (!p[j].IsScalar() || p[j].Scalar().empty())
          return fail(ErrorCode::kInvalidArgument, at + " must be a non-empty string");
        STRATA_TRY_VOID(with_context(oci::parse_platform(p[j].Scalar()), at));
        e.platforms.push_back(p[j].Scalar());
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<VersionWant> line_want(std::string_view text, std::string_view tool) {
  VersionWant w;
  w.text = std::string(text);
  if (!is_release_version(text)) {
    return fail(ErrorCode::kInvalidArgument, str::quote(text) + " is not a version: give X.Y.Z or a line such as "
                                                                 "20 or 3.12");
  }
  if (dots(text) >= 2) {
    w.exact = std::string(text);
    return w;
  }
  // 20 admits 20.x.y; 3.12 admits 3.12.z: the release's leading numbers are the line's.
  w.admits = [line = std::string(text)](std::string_view v) {
    return is_release_version(v) && v.size() > line.size() && v.starts_with(line) && v[line.size()] == '.';
  };
  if (!tool.empty()) w.line = line_of(tool, text);
  return w;
}

Result<ResolveRequest> entry_request(const ToolchainEntry& e, const std::string& arch, const WantOf& want_of,
                                     RangeCheck satisfies) {
  ResolveRequest q;
  q.tool = e.tool;
  q.arch = arch;
  if (e.source.empty()) {
    q.source = official_source(e.tool);
  } else {
    STRATA_TRY(q.source, with_context(parse_source(e.tool, e.source), e.where));
  }
  if (!e.keyring.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(e.keyring, ec)) {
      return fail(ErrorCode::kInvalidArgument, e.where + ": keyring " + e.keyring.string() +
                                                   " is not a file (an OpenPGP keyring, armored or binary)");
    }
    q.extra_keyrings.push_back(e.keyring);
  }
  if (want_of) {
    STRATA_TRY(q.want, with_context(want_of(e.tool, e.version), e.where + ": " + e.tool + "@" + e.version));
  } else {
    STRATA_TRY(q.want, with_context(line_want(e.version, e.tool), e.where + ": " + e.tool + "@" + e.version));
  }
  q.satisfies = std::move(satisfies);
  return q;
}

}  // namespace strata::layer::toolchain
