// RegistryStore: an oci::Store for one repository of an OCI distribution
// registry (`docker://HOST/REPO`), and the factory that opens one.
//
// Reads verify what they can (manifest digests are computed from the bytes,
// never taken from Docker-Content-Digest); blob downloads resume with Range
// requests after a dropped connection; uploads stream with bounded memory
// (blob_upload.hpp); cross-repository mounts are used within one registry;
// referrers use the API when the registry has it and the tag schema
// otherwise, which this store also maintains when it pushes a manifest with
// a subject.
//
// Thread-safety: as oci::Store: every method may be called concurrently.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oci/http/curl_transport.hpp"
#include "oci/http/retry_transport.hpp"
#include "oci/http/transport.hpp"
#include "oci/reference.hpp"
#include "oci/registry/host_settings.hpp"
#include "oci/registry/keychain.hpp"
#include "oci/store.hpp"
#include "util/clock.hpp"

namespace strata::oci::registry {

struct RegistryOptions {
  // "HOST[:PORT]": plain HTTP allowed and TLS unverified for exactly these.
  std::vector<std::string> insecure_hosts;
  // --authfile; nullopt: the default Docker/containers files (keychain.hpp).
  std::optional<std::filesystem::path> authfile;
  // Extra certs.d-style roots (<dir>/<host[:port]>/*.crt) after the defaults.
  std::vector<std::filesystem::path> cert_dirs;
  // Whether /etc/docker/certs.d and /etc/containers/certs.d are searched.
  bool use_default_cert_dirs = true;
  // The transport to use; nullptr: make_registry_transport() from the options
  // below. An injected transport is used as is (no decorators added).
  std::shared_ptr<http::Transport> transport;
  // Credentials; nullptr: Keychain::load() from `authfile` and the environment.
  std::shared_ptr<const Keychain> keychain;
  Clock* clock = nullptr;  // nullptr: system_clock(); must outlive the store
  std::string user_agent = "strata/0.1";
  std::size_t chunk_size = 0;            // 0: monolithic PUT uploads; else chunked PATCH of this size
  std::size_t upload_buffer_bytes = 4 << 20;
  http::RetryPolicy retry;               // used by the default transport
  std::chrono::seconds connect_timeout{http::kDefaultConnectTimeout};  // see http::CurlOptions
  std::chrono::seconds stall_timeout{http::kDefaultLowSpeedTimeout};
  int max_blob_resumes = 5;              // Range resumes per blob download
  // Per registry host: TLS, credentials file, retries, timeouts. A host
  // named here gets a transport (and, with an authfile, a keychain) of its
  // own; an injected `transport` is still used as is.
  HostSettingsMap hosts;
};

// The host API requests go to: "docker.io" → "registry-1.docker.io".
std::string api_authority(std::string_view registry);

class RegistryClient;

class RegistryStore final : public Store {
 public:
  RegistryStore(DockerReference ref, std::shared_ptr<RegistryClient> client, const RegistryOptions& options);

  std::string describe() const override;
  Result<Descriptor> resolve(std::string_view ref) override;
  Result<RawManifest> get_manifest(std::string_view ref) override;
  Result<void> put_manifest(const RawManifest& manifest, std::optional<std::string_view> tag) override;
  Result<bool> has_blob(const Descriptor& desc) override;
  Result<void> fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset = 0) override;
  Result<std::unique_ptr<BlobWriter>> blob_writer(const Descriptor& desc) override;
  // Mounts from another RegistryStore on the same registry host; false when
  // the source is elsewhere or the registry declines (its session is deleted).
  Result<bool> mount_blob(const Descriptor& desc, Store& source) override;
  bool can_mount_from(const Store& source) const override;
  Result<std::vector<std::string>> list_tags() override;
  Result<void> delete_manifest(const Digest& digest) override;
  Result<ImageIndex> referrers(const Digest& digest) override;

  const std::string& registry() const { return ref_.registry; }
  const std::string& repository() const { return ref_.repository; }
  RegistryClient& client() { return *client_; }

 private:
  Result<std::string> repo_url();
  std::string scope(std::string_view actions) const;
  Result<std::optional<Descriptor>> head_manifest(std::string_view ref);
  Result<void> add_to_referrers_index(const Digest& subject, const Descriptor& referrer);

  DockerReference ref_;
  std::shared_ptr<RegistryClient> client_;
  std::size_t chunk_size_;
  std::size_t upload_buffer_bytes_;
  int max_blob_resumes_;
  Clock& clock_;
};

// Opens the repository `ref.registry/ref.repository` (the tag/digest of `ref`
// is ignored; pass them to the Store methods). Does no network I/O yet.
// Stores opened this way share nothing; use a RegistryClientCache to share.
Result<std::unique_ptr<Store>> open_registry_store(const DockerReference& ref, const RegistryOptions& options);

// Opens RegistryStores that share one transport (one libcurl connection
// cache), one keychain and one RegistryClient per registry host, so a copy
// between two repositories of a registry, or a mirror job, reuses
// connections, the learned challenge and tokens. The transport and keychain
// are made on first use. Thread-safe.
class RegistryClientCache {
 public:
  explicit RegistryClientCache(RegistryOptions options) : options_(std::move(options)) {}

  Result<std::unique_ptr<Store>> open(const DockerReference& ref);
  // The client for a registry host, made on first use.
  Result<std::shared_ptr<RegistryClient>> client(const std::string& registry);
  std::size_t clients() const;

 private:
  RegistryOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<RegistryClient>> clients_;
};

}  // namespace strata::oci::registry
