// strata import ROOTFS.tar[.gz|.xz|.zst] --dest REF [--change 'ENV K=V']…
#include <cstdlib>
#include <iostream>

#include "cli/commands.hpp"
#include "layer/import/import.hpp"

namespace strata::cli {
namespace {

struct ImportArgs {
  std::string rootfs;
  std::string dest;
  std::vector<std::string> changes;
  std::string platform;
  std::string compression = "gzip";
};

void run_import(const GlobalOptions& g, const ImportArgs& a) {
  layer::ImportOptions o;
  o.changes = a.changes;
  o.compression = check(oci::parse_compression(a.compression));
  o.platform = a.platform.empty() ? oci::host_platform() : check(oci::parse_platform(a.platform));
  if (const char* sde = std::getenv("SOURCE_DATE_EPOCH"); sde && *sde) o.epoch = check(layer::parse_source_date_epoch(sde));
  auto ref = check(oci::parse_image_ref(a.dest));
  auto dest = check(oci::open_store(ref, oci::Access::kWrite, g.open_options()));
  o.tag = oci::destination_tag(ref);
  auto result = check(layer::import_rootfs(a.rootfs, o, *dest.store));
  check(dest.store->close());
  for (const auto& n : result.notes) log_info(g, "strata import: " + n);
  if (g.json) {
    nlohmann::ordered_json out;
    out["destination"] = a.dest;
    out["digest"] = result.manifest.digest.str();
    out["layer"] = result.layer.digest.str();
    out["diffId"] = result.digests.diff_id.value().str();
    out["entries"] = result.entries;
    out["notes"] = result.notes;
    std::cout << oci::dump_json(out, 2) << "\n";
    return;
  }
  std::cout << a.dest << "@" << result.manifest.digest.str() << "\n";
}

}  // namespace

void register_import(CLI::App& app, GlobalOptions& g) {
  auto args = std::make_shared<ImportArgs>();
  auto* cmd = add_command(
      app, "import", "Make a single-layer image from a root filesystem tarball",
      "  strata import rootfs.tar.zst --dest oci:/srv/images:bookworm\n"
      "  SOURCE_DATE_EPOCH=1700000000 strata import rootfs.tar --dest docker://localhost:5000/base:1 \\\n"
      "      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \\\n"
      "      --change 'CMD [\"/bin/bash\"]'\n\n"
      "Entries are sorted, owners kept numeric, mtimes clamped to SOURCE_DATE_EPOCH when set;\n"
      "tarballs with escaping paths or links are refused.\n");
  cmd->add_option("ROOTFS", args->rootfs, "Root filesystem tarball (.tar, .tar.gz, .tar.xz, .tar.zst)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--dest", args->dest, "Destination image reference")->required();
  cmd->add_option("--change", args->changes,
                  "Dockerfile instruction for the config: ENV, CMD, ENTRYPOINT, WORKDIR, USER, LABEL, EXPOSE "
                  "(repeatable)");
  cmd->add_option("--platform", args->platform, "Platform recorded in the config (default: this machine's)");
  cmd->add_option("--compression", args->compression, "Layer compression: gzip (default), zstd or none");
  cmd->callback([&g, args] { run_import(g, *args); });
}

}  // namespace strata::cli
