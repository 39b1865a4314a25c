// Opens the Store an ImageRef names: a registry repository, an OCI layout, an
// oci-archive or docker-archive file, or strata's embedded default store
// (`local:NAME[:TAG]`, an OCI layout under $STRATA_HOME/images whose tags are
// full references).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oci/reference.hpp"
#include "oci/registry/host_settings.hpp"
#include "oci/store.hpp"

namespace strata::oci {

enum class Access { kRead, kWrite };

namespace registry {
class RegistryClientCache;
}

struct OpenOptions {
  std::filesystem::path home;                   // $STRATA_HOME
  std::string authfile;                         // empty: the default search
  std::vector<std::string> insecure_registries; // HOST[:PORT]
  std::vector<std::string> cert_dirs;           // extra certs.d-style dirs
  int jobs = 4;
  // Registry HTTP timeouts in seconds (0: the defaults, http::CurlOptions).
  int connect_timeout = 0;
  int low_speed_timeout = 0;
  // Registry stores opened with the same cache share one HTTP transport and
  // one client per registry host (connections, auth challenge, tokens).
  // nullptr: every registry store gets its own.
  std::shared_ptr<registry::RegistryClientCache> registries;
  // Per registry host (a mirror config's `registries:`): TLS, auth file,
  // retries, timeouts over the settings above.
  registry::HostSettingsMap registry_hosts;
  // --offline: a registry reference that names no registry host (a bare
  // name, Docker Hub by default) fails at open, naming it; a registry the
  // reference names (the site's own) is reached.
  bool offline = false;
  // The runtime stores. Empty: CONTAINERD_ADDRESS / CONTAINERD_NAMESPACE,
  // else containerd's defaults (/run/containerd/containerd.sock, "default").
  std::string containerd_address;
  std::string containerd_namespace;
};

// `options` with a fresh shared registry client cache built from them: pass
// the result to every open_store() of one command (copy, mirror).
OpenOptions with_shared_registries(OpenOptions options);

struct OpenedStore {
  std::unique_ptr<Store> store;
  std::string ref;  // the tag or digest within the store; may be empty
};

Result<OpenedStore> open_store(const ImageRef& ref, Access access, const OpenOptions& options);
// The tag or digest open_store() would give as OpenedStore::ref, without opening.
std::string store_ref(const ImageRef& ref);
// The tag a copy, build or import into `ref` writes there: the tag of a
// docker:// reference (default "latest"; none when it pins a digest only),
// the full reference for local:, the tag of a layout or archive (none when
// it names a digest or nothing). nullopt: the image is written by digest.
std::optional<std::string> destination_tag(const ImageRef& ref);

// $STRATA_HOME, else $XDG_CACHE_HOME/strata, else ~/.cache/strata.
std::filesystem::path default_home();

}  // namespace strata::oci
