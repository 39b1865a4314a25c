#include "layer/apt/resolve_request.hpp"

#include <algorithm>

#include "util/clock.hpp"

namespace strata::layer {

Result<std::string> debian_arch(const oci::Platform& p) {
  if (p.os != "linux") return fail(ErrorCode::kInvalidArgument, "platform " + p.str() + ": Debian images are linux only");
  const std::string& a = p.architecture;
  if (a == "amd64" || a == "arm64" || a == "s390x" || a == "riscv64") return a;
  if (a == "386") return std::string("i386");
  if (a == "ppc64le") return std::string("ppc64el");
  if (a == "mips64le") return std::string("mips64el");
  if (a == "arm") return std::string(p.variant == "v5" ? "armel" : "armhf");
  return fail(ErrorCode::kInvalidArgument, "platform " + p.str() + ": no Debian architecture for '" + a + "'");
}

Result<std::vector<AptSource>> load_sources(const std::vector<std::string>& files,
                                            const std::filesystem::path& apt_dir) {
  if (files.empty()) return load_host_sources(apt_dir);
  std::vector<AptSource> sources;
  for (const auto& f : files) {
    STRATA_TRY(auto v, load_sources_file(f));
    sources.insert(sources.end(), v.begin(), v.end());
  }
  return sources;
}

Result<ResolvedRequest> resolve_request(oci::http::Transport& transport, ResolveRequest r) {
  STRATA_TRY(std::string arch, debian_arch(r.platform));
  r.archive.arch = arch;
  r.archive.foreign_archs = r.foreign_archs;
  if (!r.archive.clock) r.archive.clock = &system_clock();
  // The resolver reads the indexes by name; only a request that scans the
  // archive itself (a scratch root's Essential set) needs every package.
  r.archive.decode_packages = static_cast<bool>(r.more_requests);
  STRATA_TRY(LoadedArchive archive, load_archive(transport, r.sources, r.archive));
  if (r.more_requests) {
    STRATA_TRY(auto more, r.more_requests(archive, arch));
    r.packages.insert(r.packages.end(), more.begin(), more.end());
    std::sort(r.packages.begin(), r.packages.end());
    r.packages.erase(std::unique(r.packages.begin(), r.packages.end()), r.packages.end());
  }
  ResolvedRequest out;
  out.warnings = archive.warnings;
  ResolveOptions ro;
  ro.native_arch = arch;
  ro.foreign_archs = r.foreign_archs;
  std::vector<std::size_t> origin_source;
  {
    Resolver resolver(ro);
    for (auto& idx : archive.indexes) {
      resolver.add_index(idx.index, archive.sources[idx.source].priority);
      origin_source.push_back(idx.source);
    }
    resolver.set_installed(std::move(r.installed));
    STRATA_TRY(out.resolution, resolver.resolve(r.packages));
  }
  out.warnings.insert(out.warnings.end(), out.resolution.notes.begin(), out.resolution.notes.end());

  Lock lock;
  lock.platform = r.platform.str();
  lock.base_reference = r.base_reference;
  lock.base_digest = r.base_digest;
  lock.request = r.packages;
  for (const auto& s : archive.sources) {
    lock.sources.push_back({s.source.uri, s.source.suite, s.source.components, s.release_sha256,
                            s.release.date.value_or(0), s.fingerprint, source_key_identities(s.source)});
  }
  for (const auto& p : out.resolution.install) {
    lock.packages.push_back({p.package.name, p.package.version, p.package.architecture, p.package.filename,
                             p.package.size, p.package.sha256, origin_source[p.origin]});
  }
  // Round-trip so the lock returned is exactly the lock a file would hold.
  STRATA_TRY(out.lock, parse_lock(write_lock(std::move(lock)), "the resolved lock"));
  return out;
}

}  // namespace strata::layer
