#include "oci/open_store.hpp"

#include <cstdlib>

#include "oci/archive_store.hpp"
#include "oci/containerd/containerd_store.hpp"
#include "oci/daemon/daemon_store.hpp"
#include "oci/layout_store.hpp"
#include "oci/registry/registry_store.hpp"

namespace strata::oci {

std::filesystem::path default_home() {
  if (const char* h = std::getenv("STRATA_HOME"); h && *h) return h;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "strata";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "strata";
  return std::filesystem::path("/var/cache/strata");
}

namespace {

registry::RegistryOptions registry_options(const OpenOptions& options) {
  registry::RegistryOptions ro;
  ro.insecure_hosts = options.insecure_registries;
  if (!options.authfile.empty()) ro.authfile = options.authfile;
  for (const auto& d : options.cert_dirs) ro.cert_dirs.emplace_back(d);
  if (options.connect_timeout > 0) ro.connect_timeout = std::chrono::seconds(options.connect_timeout);
  if (options.low_speed_timeout > 0) ro.stall_timeout = std::chrono::seconds(options.low_speed_timeout);
  ro.hosts = options.registry_hosts;
  return ro;
}

}  // namespace

OpenOptions with_shared_registries(OpenOptions options) {
  options.registries = std::make_shared<registry::RegistryClientCache>(registry_options(options));
  return options;
}

Result<OpenedStore> open_store(const ImageRef& ref, Access access, const OpenOptions& options) {
  OpenedStore out;
  switch (ref.transport) {
    case Transport::kScratch:
      return fail(ErrorCode::kInvalidArgument, "scratch is a base (`strata build|plan|provision --base scratch`, `strata preflight --image scratch`), not a store");
    case Transport::kDocker: {
      // --offline refuses the Debian archive and the internet, not the
      // site's own registry: a registry the reference names is reached; a
      // bare name, which only implies Docker Hub, is refused.
      if (options.offline && !ref.docker.registry_named) {
        return fail(ErrorCode::kUnreachable,
                    "--offline (or STRATA_OFFLINE=1): " + (ref.original.empty() ? ref.str() : ref.original) + " names no registry, so it means Docker Hub (" +
                        ref.docker.str() + "), which --offline does not reach; name your registry " +
                        "(docker://HOST/REPO:TAG) or use a local copy (oci:DIR, local:NAME)");
      }
      if (options.registries) {
        STRATA_TRY(out.store, options.registries->open(ref.docker));
      } else {
        STRATA_TRY(out.store, registry::open_registry_store(ref.docker, registry_options(options)));
      }
      out.ref = store_ref(ref);
      return out;
    }
    case Transport::kLocal: {
      // Reading takes no writer's lease, so a gc of the local store does not
      // hold up `inspect local:…` or a build reading its base from it.
      std::filesystem::path dir = options.home / "images";
      std::error_code ec;
      if (access == Access::kRead && !std::filesystem::exists(dir / "oci-layout", ec)) {
        return fail(ErrorCode::kNotFound, ref.original + ": the local store (" + dir.string() +
                                              ") holds no images yet; put one there with `strata copy SRC local:NAME`");
      }
      STRATA_TRY(auto s, LayoutStore::open(dir, access == Access::kWrite ? LayoutMode::kCreate : LayoutMode::kReadOnly));
      out.store = std::move(s);
      out.ref = store_ref(ref);
      return out;
    }
    case Transport::kOciLayout: {
      STRATA_TRY(auto s, LayoutStore::open(ref.path, access == Access::kWrite ? LayoutMode::kCreate : LayoutMode::kReadOnly));
      out.store = std::move(s);
      out.ref = store_ref(ref);
      return out;
    }
    case Transport::kOciArchive:
    case Transport::kDockerArchive: {
      auto fmt = ref.transport == Transport::kOciArchive ? ArchiveFormat::kOci : ArchiveFormat::kDocker;
      STRATA_TRY(auto s, ArchiveStore::open(ref.path, fmt, access == Access::kWrite ? ArchiveMode::kWrite : ArchiveMode::kRead));
      out.store = std::move(s);
      out.ref = store_ref(ref);
      return out;
    }
    case Transport::kContainerd: {
      STRATA_TRY(auto co, with_context(containerd::containerd_options(options), ref.str()));
      STRATA_TRY(out.store, containerd::open_containerd_store(ref.docker, access, co));
      out.ref = store_ref(ref);
      return out;
    }
    case Transport::kDockerDaemon:
    case Transport::kPodman: {
      auto which = ref.transport == Transport::kPodman ? daemon::Daemon::kPodman : daemon::Daemon::kDocker;
      STRATA_TRY(out.store, daemon::open_daemon_store(which, ref.docker, access, options));
      out.ref = store_ref(ref);
      return out;
    }
  }
  return fail(ErrorCode::kInvalidArgument, "unknown transport in " + ref.original);
}

std::string store_ref(const ImageRef& ref) {
  switch (ref.transport) {
    case Transport::kDocker:
    case Transport::kContainerd:
    case Transport::kDockerDaemon:
    case Transport::kPodman: return ref.docker.tag_or_digest();
    case Transport::kLocal: return ref.docker.str();
    // A digest alone ("docker-archive:FILE@sha256:…") parses to no name.
    case Transport::kDockerArchive: return ref.ref.empty() || ref.docker.repository.empty() ? ref.ref : ref.docker.str();
    default: return ref.ref;
  }
}

std::optional<std::string> destination_tag(const ImageRef& ref) {
  if (ref.transport == Transport::kLocal) return ref.docker.str();
  if (ref.transport == Transport::kDocker || is_runtime_store(ref.transport)) {
    // containerd names a record by digest as CRI does ("NAME@sha256:…"):
    // without a record the collector would take the content.
    if (ref.docker.digest && !ref.docker.tag) {
      if (ref.transport == Transport::kContainerd) return ref.docker.digest->str();
      return std::nullopt;
    }
    return ref.docker.tag.value_or("latest");
  }
  std::string in_store = store_ref(ref);
  if (in_store.empty() || Digest::parse(in_store)) return std::nullopt;
  return in_store;
}

}  // namespace strata::oci
