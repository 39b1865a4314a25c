#include "cli/cmd_import.hpp"

#include <cstdlib>
#include <iostream>

#include "layer/import.hpp"

namespace strata::cli {

namespace {

struct ImportArgs {
  std::string rootfs;
  std::string dest;
  std::vector<std::string> changes;
  std::string platform;
  std::string compression = "gzip";
};

Result<std::string> run_import(const ImportArgs& a, const ImportCommandDeps& deps) {
  layer::ImportOptions o;
  o.changes = a.changes;
  STRATA_TRY(o.compression, layer::parse_compression(a.compression));
  if (!a.platform.empty()) {
    STRATA_TRY(o.platform, oci::parse_platform(a.platform));
  } else {
    o.platform = oci::host_platform();
  }
  auto env = deps.getenv ? deps.getenv("SOURCE_DATE_EPOCH") : std::optional<std::string>();
  if (!deps.getenv) {
    if (const char* v = std::getenv("SOURCE_DATE_EPOCH")) env = v;
  }
  if (env && !env->empty()) {
    STRATA_TRY(o.epoch, layer::parse_source_date_epoch(*env));
  }
  if (!deps.open_dest) return fail(ErrorCode::kInvalidArgument, "import: no way to open --dest was configured");
  STRATA_TRY(ImportDest dest, deps.open_dest(a.dest));
  o.tag = dest.tag;
  STRATA_TRY(auto result, layer::import_rootfs(a.rootfs, o, *dest.store));
  STRATA_TRY_VOID(dest.store->close());
  std::string name = dest.name.empty() ? a.dest : dest.name;
  return name + "@" + result.manifest.digest.str();
}

}  // namespace

CLI::App* register_import(CLI::App& app, ImportCommandDeps deps, int& exit_code) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* sub = app.add_subcommand("import", "Make a single-layer image from a root filesystem tarball");
  sub->footer(
      "Entries are sorted, owners kept numeric, mtimes clamped to SOURCE_DATE_EPOCH when set;\n"
      "tarballs with escaping paths or links are refused.\n\n"
      "Examples:\n"
      "  strata import rootfs.tar.zst --dest oci:/srv/images:bookworm\n"
      "  SOURCE_DATE_EPOCH=1700000000 strata import rootfs.tar --dest docker://localhost:5000/base:1 \\\n"
      "      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \\\n"
      "      --change 'CMD [\"/bin/bash\"]'");
  sub->add_option("rootfs", args->rootfs, "Root filesystem tarball (.tar, .tar.gz, .tar.xz, .tar.zst)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--dest", args->dest, "Destination image reference")->required();
  sub->add_option("--change", args->changes,
                  "Dockerfile instruction for the config: ENV, CMD, ENTRYPOINT, WORKDIR, USER, LABEL, EXPOSE "
                  "(repeatable)");
  sub->add_option("--platform", args->platform, "Platform recorded in the config (default: this machine's)");
  sub->add_option("--compression", args->compression, "Layer compression: gzip (default), zstd or none");
  sub->callback([args, deps = std::move(deps), &exit_code] {
    std::ostream& out = deps.out ? *deps.out : std::cout;
    std::ostream& err = deps.err ? *deps.err : std::cerr;
    auto r = run_import(*args, deps);
    if (!r) {
      err << "strata import: " << r.error().message() << "\n";
      exit_code = 1;
      return;
    }
    out << *r << "\n";
    exit_code = 0;
  });
  return sub;
}

}  // namespace strata::cli
