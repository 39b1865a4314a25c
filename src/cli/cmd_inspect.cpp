// strata inspect REF [--raw] [--config] [--platform P]
#include <iostream>

#include "cli/commands.hpp"
#include "oci/media_types.hpp"

namespace strata::cli {
namespace {

struct InspectOptions {
  std::string ref;
  bool raw = false;
  bool config = false;
  std::string platform;
};

void run_inspect(const GlobalOptions& g, const InspectOptions& o) {
  auto opened = open_ref(g, o.ref, oci::Access::kRead);
  auto& store = *opened.store;
  auto fetched = check(oci::fetch_manifest(store, opened.ref));
  // --platform (and --config, which needs one image) pick an index child.
  if (std::holds_alternative<oci::ImageIndex>(fetched.parsed) && (o.config || !o.platform.empty())) {
    oci::Platform want = o.platform.empty() ? oci::host_platform() : check(oci::parse_platform(o.platform));
    fetched = check(oci::select_platform_manifest(store, std::move(fetched), want, o.ref));
  }
  std::string bytes = fetched.raw.bytes;
  std::string media_type = fetched.raw.descriptor.media_type;
  oci::Digest digest = fetched.raw.descriptor.digest;
  if (o.config) {
    const auto* m = std::get_if<oci::ImageManifest>(&fetched.parsed);
    if (!m) throw Exit{kExitFailure, o.ref + " is an index; --config needs one image"};
    bytes = check(oci::read_blob(store, m->config));
    media_type = m->config.media_type;
    digest = m->config.digest;
  }
  if (g.json) {
    nlohmann::ordered_json out;
    out["reference"] = o.ref;
    out["digest"] = digest.str();
    out["mediaType"] = media_type;
    out["size"] = bytes.size();
    auto doc = nlohmann::ordered_json::parse(bytes, nullptr, false);
    out[o.config ? "config" : "manifest"] = doc.is_discarded() ? nlohmann::ordered_json(nullptr) : doc;
    std::cout << oci::dump_json(out, 2) << "\n";
    return;
  }
  if (o.raw) {
    std::cout << bytes;  // the exact bytes, no newline added
    return;
  }
  auto doc = nlohmann::ordered_json::parse(bytes, nullptr, false);
  if (doc.is_discarded()) throw Exit{kExitFailure, o.ref + ": content is not JSON; use --raw"};
  std::cout << oci::dump_json(doc, 2) << "\n";
  log_debug(g, "digest " + digest.str());
}

}  // namespace

void register_inspect(CLI::App& app, GlobalOptions& g) {
  auto o = std::make_shared<InspectOptions>();
  auto* cmd = add_command(app, "inspect", "Print an image's manifest (or index), or its config",
                          "  strata inspect docker://registry.example/team/app:1.2\n"
                          "  strata inspect --raw oci:/srv/layout:v1 | sha256sum\n"
                          "  strata inspect --config --platform linux/arm64 debian:bookworm\n");
  cmd->add_option("REF", o->ref, "Image reference (docker://, oci:, oci-archive:, docker-archive:, local:, containerd:, docker-daemon:, podman:)")->required();
  cmd->add_flag("--raw", o->raw, "Print the exact bytes as stored");
  cmd->add_flag("--config", o->config, "Print the image config instead of the manifest");
  cmd->add_option("--platform", o->platform, "Pick this platform from an index (os/arch[/variant])");
  cmd->callback([&g, o] { run_inspect(g, *o); });
}

}  // namespace strata::cli
