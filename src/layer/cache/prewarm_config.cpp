#include "layer/cache/prewarm_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <initializer_list>

#include "layer/scratch/scratch_base.hpp"
#include "oci/yaml_load.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

constexpr std::size_t kMaxConfigBytes = 1 << 20;
constexpr std::size_t kMaxEntries = 10000;

Result<std::vector<std::string>> texts(const YAML::Node& node, const char* key, const std::string& where) {
  std::vector<std::string> out;
  auto v = node[key];
  if (!v) return out;
  if (!v.IsSequence()) return fail(ErrorCode::kInvalidArgument, where + ": `" + key + "` must be a list of strings");
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].IsScalar() || v[i].Scalar().empty()) {
      return fail(ErrorCode::kInvalidArgument,
                  where + ": `" + key + "[" + std::to_string(i) + "]` must be a non-empty string");
    }
    out.push_back(v[i].Scalar());
  }
  return out;
}

std::string relative(const std::filesystem::path& base, const std::string& p) {
  std::filesystem::path path(p);
  return path.is_absolute() || base.empty() ? p : (base / path).lexically_normal().string();
}

// An entry's `variant`: only with `base: scratch`, where it names the
// package set (minbase when absent).
Result<ScratchVariant> entry_variant(const YAML::Node& n, const std::string& base, const std::string& where) {
  STRATA_TRY(std::string text, oci::yaml_text(n, "variant", where, false));
  if (text.empty()) return ScratchVariant::kMinbase;
  if (base != kScratchBase)
    return fail(ErrorCode::kInvalidArgument, where + ": `variant` " + text + " is only for `base: scratch` (the base is " +
                                                 base + ")");
  return with_context(parse_scratch_variant(text), where + ": variant");
}

}  // namespace

Result<PrewarmConfig> parse_prewarm_config(std::string_view yaml, const std::string& file,
                                           const std::filesystem::path& relative_to) {
  STRATA_TRY(YAML::Node root, oci::load_yaml(yaml, file));
  STRATA_TRY_VOID(oci::yaml_known_keys(root, {"cache", "platforms", "sources", "overlays", "repos", "toolchains"}, file));
  PrewarmConfig c;
  STRATA_TRY(c.cache, oci::yaml_text(root, "cache", file, true));
  STRATA_TRY(c.platforms, texts(root, "platforms", file));
  STRATA_TRY(c.sources, texts(root, "sources", file));
  for (auto& s : c.sources) s = relative(relative_to, s);
  for (const char* list : {"overlays", "repos"}) {
    auto v = root[list];
    if (v && !v.IsSequence()) return fail(ErrorCode::kInvalidArgument, file + ": `" + list + "` must be a list");
    if (v && v.size() > kMaxEntries) {
      return fail(ErrorCode::kInvalidArgument, file + ": `" + list + "` has more than " +
                                                   std::to_string(kMaxEntries) + " entries");
    }
  }
  if (auto overlays = root["overlays"]) {
    for (std::size_t i = 0; i < overlays.size(); ++i) {
      const YAML::Node& n = overlays[i];
      PrewarmOverlaySpec o;
      o.where = file + ": overlays[" + std::to_string(i) + "]";
      STRATA_TRY_VOID(
          oci::yaml_known_keys(n, {"base", "packages", "platforms", "sources", "compression", "variant"}, o.where));
      STRATA_TRY(o.base, oci::yaml_text(n, "base", o.where, true));
      STRATA_TRY(o.variant, entry_variant(n, o.base, o.where));
      STRATA_TRY(o.packages, texts(n, "packages", o.where));
      if (o.packages.empty()) return fail(ErrorCode::kInvalidArgument, o.where + ": `packages` must name a package");
      STRATA_TRY(o.platforms, texts(n, "platforms", o.where));
      STRATA_TRY(o.sources, texts(n, "sources", o.where));
      for (auto& s : o.sources) s = relative(relative_to, s);
      STRATA_TRY(o.compression, oci::yaml_text(n, "compression", o.where, false));
      c.overlays.push_back(std::move(o));
    }
  }
  if (auto repos = root["repos"]) {
    for (std::size_t i = 0; i < repos.size(); ++i) {
      const YAML::Node& n = repos[i];
      PrewarmRepoSpec r;
      r.where = file + ": repos[" + std::to_string(i) + "]";
      STRATA_TRY_VOID(oci::yaml_known_keys(n, {"path", "base", "platforms", "sources", "variant"}, r.where));
      STRATA_TRY(auto path, oci::yaml_text(n, "path", r.where, true));
      r.path = relative(relative_to, path);
      STRATA_TRY(r.base, oci::yaml_text(n, "base", r.where, true));
      STRATA_TRY(r.variant, entry_variant(n, r.base, r.where));
      STRATA_TRY(r.platforms, texts(n, "platforms", r.where));
      STRATA_TRY(r.sources, texts(n, "sources", r.where));
      for (auto& s : r.sources) s = relative(relative_to, s);
      c.repos.push_back(std::move(r));
    }
  }
  STRATA_TRY(c.toolchains, toolchain::parse_toolchain_entries(root["toolchains"], file, relative_to));
  if (c.overlays.empty() && c.repos.empty() && c.toolchains.empty()) {
    return fail(ErrorCode::kInvalidArgument, file + ": nothing to warm (give `overlays`, `repos` or `toolchains`)");
  }
  return c;
}

Result<PrewarmConfig> load_prewarm_config(const std::filesystem::path& file) {
  STRATA_TRY(auto yaml, fs::read_file(file, kMaxConfigBytes));
  return parse_prewarm_config(yaml, file.string(), file.parent_path());
}

}  // namespace strata::layer
