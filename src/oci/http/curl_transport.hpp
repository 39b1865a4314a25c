// CurlTransport: the production http::Transport on libcurl.
//
// One instance serves many threads: a pool of easy handles plus a curl share
// handle (connection cache, DNS cache, TLS sessions), so sequential and
// concurrent requests to a registry reuse connections. HTTP/2 is negotiated
// over TLS where the server offers it. The transport never follows redirects
// (see RedirectTransport) and never retries (see RetryTransport).
//
// TLS is verified against the system CAs plus, for a host, every `*.crt` in
// `<certs-dir>/<host[:port]>/` for each certs dir (defaults
// /etc/docker/certs.d and /etc/containers/certs.d, plus extras). Hosts listed
// as insecure may use plain HTTP and have TLS verification disabled; no other
// host is affected.
//
// Thread-safety: send() may be called concurrently.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "oci/http/transport.hpp"

namespace strata::oci::http {

// Defaults of the two timeouts (CurlOptions, RegistryOptions, the CLI): with
// the retry policy's two tries of a timed-out exchange, an unresponsive
// registry fails a command within about 30 s.
inline constexpr std::chrono::seconds kDefaultConnectTimeout{10};
inline constexpr std::chrono::seconds kDefaultLowSpeedTimeout{10};

struct CurlOptions {
  // "HOST" (any port) or "HOST:PORT": plain HTTP allowed, TLS unverified.
  std::vector<std::string> insecure_hosts;
  // certs.d-style roots searched after the defaults below.
  std::vector<std::filesystem::path> extra_cert_dirs;
  // Searched first; tests clear this to stay hermetic.
  std::vector<std::filesystem::path> default_cert_dirs = {"/etc/docker/certs.d",
                                                          "/etc/containers/certs.d"};
  // PEM files of CAs trusted for every host besides the system's (the CLI
  // passes NODE_EXTRA_CA_CERTS: the TLS proxy a CI's npm traffic goes through).
  std::vector<std::filesystem::path> extra_ca_files;
  // Plain HTTP to any host. For apt archives, whose integrity comes from the
  // signed InRelease chain rather than TLS (as apt itself does); registries
  // leave this off and name insecure hosts one by one.
  bool allow_plain_http = false;
  std::string user_agent = "strata";
  // TCP and TLS set-up (strata --connect-timeout).
  std::chrono::seconds connect_timeout{kDefaultConnectTimeout};
  // A transfer slower than 1 byte/s for this long is abandoned (strata
  // --low-speed-timeout): a peer that accepts the connection and never
  // answers costs this, not forever. There is no total timeout: blobs can
  // be gigabytes. Either ends the exchange with kDeadlineExceeded.
  std::chrono::seconds stall_timeout{kDefaultLowSpeedTimeout};
  // Every exchange goes over this unix socket instead of TCP (a container
  // runtime's API: oci/daemon); URLs still name a host for the Host header.
  std::string unix_socket;
};

// True when `authority` ("host" or "host:port") is covered by `insecure_hosts`.
bool is_insecure_host(const std::vector<std::string>& insecure_hosts, std::string_view authority);

class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(CurlOptions options);
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  Result<Response> send(Request& request) override;

 private:
  struct Shared;
  void* acquire_handle();
  void release_handle(void* handle);
  // The PEM bundle (system CAs + the host's extra CA files + extra_ca_files)
  // for an authority, or null when there are no extra CA files.
  Result<std::shared_ptr<const std::string>> ca_bundle_for(const std::string& authority);

  CurlOptions options_;
  std::unique_ptr<Shared> shared_;
  std::mutex pool_mutex_;
  std::vector<void*> idle_handles_;
  std::mutex ca_mutex_;
  std::map<std::string, std::shared_ptr<const std::string>> ca_bundles_;
};

}  // namespace strata::oci::http
