#include "contract/provision/toolchain_stack.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "util/version_range.hpp"
#include "oci/append_layer.hpp"
#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::contract::provision {
namespace tc = layer::toolchain;
namespace {

// Copies the cached layer blob into `dest` unless it is there.
Result<void> put_layer(oci::Store& dest, const tc::ToolchainLayer& t) {
  return with_context(oci::write_blob_file(dest, t.layer, t.blob, t.blob.string()),
                      "writing the " + t.release.tool + " " + t.release.version + " layer to " + dest.describe());
}

// The line a floor means (tc::line_parts): node's and java's major, the
// others' major.minor.
bool same_line(const std::string& tool, const Version& floor, const Version& v) {
  if (tc::line_parts(tool) == 1) return v.major == floor.major;
  return v.major == floor.major && v.minor == floor.minor;
}

}  // namespace

std::vector<route::TaskToolchain> deliverable_toolchains(const route::Plan& plan) {
  std::vector<route::TaskToolchain> out;
  for (const auto& r : plan.rows) {
    if (r.layer == route::Layer::kTaskToolchain && r.kind == route::Kind::kRuntime && r.toolchain &&
        tc::is_toolchain_tool(r.toolchain->tool))
      out.push_back(*r.toolchain);
  }
  return out;
}

Result<tc::ResolveRequest> toolchain_request(const route::TaskToolchain& row, const oci::Platform& platform,
                                             const ToolchainOptions& o) {
  tc::ResolveRequest q;
  q.tool = row.tool;
  q.arch = platform.architecture.empty() ? "amd64" : platform.architecture;
  q.source = tc::official_source(row.tool);
  if (auto s = o.sources.find(row.tool); s != o.sources.end()) {
    STRATA_TRY(q.source, tc::parse_source(row.tool, s->second));
  }
  if (auto k = o.keyrings.find(row.tool); k != o.keyrings.end()) q.extra_keyrings = k->second;
  auto floor = parse_version(row.version);
  if (!floor) {
    return fail(ErrorCode::kInvalidArgument,
                row.tool + " " + str::quote(row.version) + ": the plan names no release version to install");
  }
  Range range = Range::at_least(*floor);
  if (!row.range.empty()) {
    STRATA_TRY(range, parse_npm_range(row.range));
  }
  if (range.any_of.size() == 1) {  // a range of one version pins it
    const Interval& iv = range.any_of.front();
    if (iv.lo && iv.hi && iv.lo->inclusive && iv.hi->inclusive && iv.lo->v == iv.hi->v) q.want.exact = iv.lo->v.str();
  }
  const std::string tool = row.tool;
  const Version f = *floor;
  q.want.line = tc::line_of(tool, f.str());
  q.want.text = (row.range.empty() ? ">=" + row.version : row.range) + ", newest of " + tool + " " + q.want.line;
  q.want.admits = [range, tool, f](std::string_view v) {
    auto pv = parse_version(v);
    return pv && pv->pre.empty() && range.contains(*pv) && same_line(tool, f, *pv);
  };
  q.satisfies = [](std::string_view r, std::string_view v) {
    auto range = parse_npm_range(r);
    auto pv = parse_version(v);
    return range && pv && range->contains(*pv);
  };
  return q;
}

Result<Stacked> stack_toolchains(oci::Store& dest, const oci::Descriptor& lower,
                                 const std::vector<route::TaskToolchain>& rows, const oci::Platform& platform,
                                 const ToolchainOptions& o, oci::http::Transport& http,
                                 const std::filesystem::path& home, std::optional<std::string_view> tag) {
  Stacked out;
  STRATA_TRY(oci::RawManifest raw, dest.get_manifest(lower.digest.str()));
  STRATA_TRY(oci::ParsedManifest parsed, oci::parse_manifest(raw.bytes, raw.descriptor.media_type, dest.describe()));
  auto* m = std::get_if<oci::ImageManifest>(&parsed);
  if (!m) return fail(ErrorCode::kInvalidArgument, lower.digest.str() + " is an index, not an image manifest");
  STRATA_TRY(std::string config_bytes, oci::read_blob(dest, m->config));
  STRATA_TRY(oci::ImageConfig config, oci::parse_config(std::move(config_bytes), lower.digest.str()));

  oci::LayersOnTop image{config.json, m->layers, {}, std::nullopt, {}};
  image.annotations["org.opencontainers.image.base.digest"] = lower.digest.str();
  std::vector<std::string> env = config.env();
  std::string path;
  for (const auto& e : env)
    if (e.starts_with("PATH=")) path = e.substr(5);
  if (path.empty()) path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  std::vector<std::string> extra;
  for (const auto& row : rows) {
    STRATA_TRY(tc::ResolveRequest q, toolchain_request(row, platform, o));
    tc::ToolchainRequest request{std::move(q), home, o.offline};
    STRATA_TRY(tc::ToolchainLayer t, tc::ensure_toolchain(http, request));
    STRATA_TRY_VOID(put_layer(dest, t));
    path = t.path_with(path);
    for (const auto& e : t.env) extra.push_back(e);
    image.layers.push_back({t.layer, t.diff_id, "strata toolchain " + t.release.tool + " " + t.release.version +
                                                    " from " + t.release.source.describe()});
    image.annotations[std::string(tc::kAnnotationPrefix) + t.release.tool] = t.annotation();
    out.toolchains.push_back(std::move(t));
  }
  // PATH and the tools' variables replace what the image set for the same names.
  std::vector<std::string> new_env;
  auto name_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
  std::vector<std::string> replaced = {"PATH"};
  for (const auto& e : extra) replaced.push_back(name_of(e));
  for (const auto& e : env)
    if (std::find(replaced.begin(), replaced.end(), name_of(e)) == replaced.end()) new_env.push_back(e);
  new_env.push_back("PATH=" + path);
  for (const auto& e : extra) new_env.push_back(e);
  image.config["config"]["Env"] = new_env;
  STRATA_TRY(oci::AppendedImage written, oci::append_layers(dest, std::move(image), tag));
  out.manifest = written.manifest;
  return out;
}

layer::sbom::ProvenanceInput toolchain_provenance(const oci::Descriptor& lower, const Stacked& stacked,
                                                  const oci::Platform& platform) {
  using Json = nlohmann::ordered_json;
  layer::sbom::ProvenanceInput in;
  in.build_type = kToolchainsBuildType;
  Json toolchains = Json::array();
  in.resolved.push_back({"", "image", std::string(lower.digest.algorithm()), std::string(lower.digest.hex())});
  for (const auto& t : stacked.toolchains) {
    toolchains.push_back({{"tool", t.release.tool}, {"release", t.release.version}, {"source", t.release.source.describe()}});
    for (const auto& a : t.release.archives)
      in.resolved.push_back({a.url, t.release.tool + " " + t.release.version, a.algorithm, a.hex});
  }
  in.external_parameters = {{"image", {{"digest", lower.digest.str()}}},
                            {"platform", platform.str()},
                            {"toolchains", toolchains}};
  return in;
}

}  // namespace strata::contract::provision
