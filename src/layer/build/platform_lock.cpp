#include "layer/build/platform_lock.hpp"

#include "layer/apt/resolver.hpp"
#include "layer/build/build_observer.hpp"
#include "layer/scratch/scratch_packages.hpp"

namespace strata::layer {

Result<ResolvedRequest> resolve_platform_lock(const OverlaySpec& spec, const BaseImage& base,
                                              std::vector<Package> installed, const oci::Platform& platform,
                                              const BuildContext& ctx) {
  STRATA_TRY(std::string native_arch, debian_arch(platform));
  ResolveRequest req;
  req.packages = spec.packages;
  STRATA_TRY(req.sources, load_sources(spec.sources));
  req.platform = platform;
  req.base_reference = spec.base;
  req.base_digest = spec.scratch() ? "" : base.descriptor.digest.str();
  req.archive.home = ctx.home;
  req.archive.clock = &ctx.clock;
  req.archive.allow_unsigned = spec.allow_unsigned;
  req.archive.offline = ctx.offline;
  req.archive.index_max_age = ctx.index_max_age;
  if (ctx.observer) req.archive.on_fetch = [o = ctx.observer](const std::string& m) { o->warning(m); };
  req.foreign_archs = foreign_architectures(native_arch, base.fs.read_small_file("var/lib/dpkg/arch").value_or(""),
                                            installed, spec.packages);
  req.installed = std::move(installed);
  if (spec.scratch()) {
    // Nothing is installed: request the variant's set explicitly, as
    // mmdebstrap does, so apt's walk pulls in its dependencies.
    req.more_requests = [variant = spec.variant](const LoadedArchive& archive,
                                                 const std::string& arch) -> Result<std::vector<std::string>> {
      std::vector<ScratchIndex> indexes;
      for (const auto& idx : archive.indexes) indexes.push_back({&idx.packages, archive.sources[idx.source].priority});
      auto set = scratch_requests(indexes, arch, variant);
      if (set.empty()) {
        return fail(ErrorCode::kFailedPrecondition,
                    "--base scratch: the sources have no Essential packages for " + arch +
                        "; they cannot make a Debian root (check --sources and --platform)");
      }
      return set;
    };
  }
  return resolve_request(ctx.http, std::move(req));
}

}  // namespace strata::layer
