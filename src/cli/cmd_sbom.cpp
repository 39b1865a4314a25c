// strata sbom REF [--format spdx|cyclonedx] [--provenance] [--derive] [--platform P]
#include <iostream>

#include "cli/commands.hpp"
#include "layer/sbom/image_document.hpp"

namespace strata::cli {
namespace {

struct SbomOptions {
  std::string ref;
  std::string format = "spdx";
  bool provenance = false;
  bool derive = false;
  std::string platform;
};

void run_sbom(const GlobalOptions& g, const SbomOptions& o) {
  auto opened = open_ref(g, o.ref, oci::Access::kRead);
  layer::sbom::DocumentRequest r;
  r.ref = opened.ref;
  r.platform = o.platform.empty() ? oci::host_platform() : check(oci::parse_platform(o.platform));
  r.kind = o.provenance             ? layer::sbom::DocumentKind::kProvenance
           : o.format == "cyclonedx" ? layer::sbom::DocumentKind::kCycloneDx
                                     : layer::sbom::DocumentKind::kSpdx;
  r.derive = o.derive;
  r.where = o.ref;
  auto result = check(layer::sbom::image_document(*opened.store, r));
  std::cout << result.document;
  if (!result.dpkg_database)
    std::cerr << "strata: warning: " << o.ref
              << " has no dpkg database (/var/lib/dpkg/status or status.d): the document lists no Debian packages "
                 "and says why\n";
  log_debug(g, std::string(result.attached ? "attached to " : "derived from ") + result.image.digest.str());
}

}  // namespace

void register_sbom(CLI::App& app, GlobalOptions& g) {
  auto o = std::make_shared<SbomOptions>();
  auto* cmd = add_command(app, "sbom", "Print an image's SBOM (SPDX 2.3 or CycloneDX 1.5) or its build provenance",
                          "  strata sbom oci:/srv/overlays:app\n"
                          "  strata sbom --format cyclonedx docker://registry.example/team/app:1.2\n"
                          "  strata sbom docker://debian:12 --platform linux/arm64 > debian.spdx.json\n"
                          "  strata sbom --provenance oci:/srv/overlays:app\n");
  cmd->add_option("REF", o->ref, "Image reference (docker://, oci:, oci-archive:, docker-archive:, local:, containerd:, docker-daemon:, podman:)")->required();
  cmd->add_option("--format", o->format, "spdx (SPDX 2.3 JSON, the default) or cyclonedx (CycloneDX 1.5 JSON)")
      ->check(CLI::IsMember({"spdx", "cyclonedx"}));
  cmd->add_flag("--provenance", o->provenance, "Print the SLSA provenance (an in-toto statement) strata attached when it built the image");
  cmd->add_flag("--derive", o->derive, "Read the SBOM from the image's dpkg database even when one is attached");
  cmd->add_option("--platform", o->platform, "Pick this platform from an index (os/arch[/variant]; default: this machine's)");
  cmd->callback([&g, o] { run_sbom(g, *o); });
}

}  // namespace strata::cli
