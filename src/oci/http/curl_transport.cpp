#include "oci/http/curl_transport.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "oci/http/url.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci::http {

bool is_insecure_host(const std::vector<std::string>& insecure_hosts, std::string_view authority) {
  std::string auth = str::lower(authority);
  std::string host = auth.substr(0, auth.rfind(':') == std::string::npos || auth.ends_with("]")
                                        ? auth.size()
                                        : auth.rfind(':'));
  for (const auto& entry : insecure_hosts) {
    std::string e = str::lower(str::trim(entry));
    if (e == auth || e == host) return true;
  }
  return false;
}

// The share handle and the locks libcurl asks for around shared data.
struct CurlTransport::Shared {
  CURLSH* share = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> locks;

  static void lock(CURL*, curl_lock_data data, curl_lock_access, void* self) {
    static_cast<Shared*>(self)->locks[static_cast<std::size_t>(data)].lock();
  }
  static void unlock(CURL*, curl_lock_data data, void* self) {
    static_cast<Shared*>(self)->locks[static_cast<std::size_t>(data)].unlock();
  }
};

namespace {

constexpr long kDownloadBuffer = 256L << 10;
constexpr long kUploadBuffer = 512L << 10;

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Per-exchange state the callbacks see.
struct Exchange {
  Request* request = nullptr;
  Response response;
  bool in_final_headers = false;
  std::optional<Error> sink_error;
  std::optional<Error> body_error;
  bool body_too_large = false;
  bool headers_checked = false;
};

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  std::string_view line(data, size * n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.starts_with("HTTP/")) {
    // A new status line: interim (100 Continue) headers are discarded.
    ex->response.headers = Headers();
    auto parts = str::split_ws(line);
    ex->response.status = parts.size() >= 2 ? static_cast<int>(str::parse_u64(parts[1]).value_or(0)) : 0;
    return size * n;
  }
  auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    ex->response.headers.add(std::string(str::trim(line.substr(0, colon))),
                             std::string(str::trim(line.substr(colon + 1))));
  }
  return size * n;
}

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  std::size_t len = size * n;
  int status = ex->response.status;
  bool success = status >= 200 && status < 300;
  if (success && ex->request->sink != nullptr) {
    if (!ex->headers_checked) {
      ex->headers_checked = true;
      if (ex->request->on_headers) {
        auto ok = ex->request->on_headers(ex->response);
        if (!ok) {
          ex->sink_error = ok.error();
          return CURL_WRITEFUNC_ERROR;
        }
      }
    }
    auto r = ex->request->sink->write(std::as_bytes(std::span(data, len)));
    if (!r) {
      ex->sink_error = r.error();
      return CURL_WRITEFUNC_ERROR;
    }
    return len;
  }
  std::string& body = ex->response.body;
  if (body.size() + len > ex->request->max_body) {
    if (success) {
      ex->body_too_large = true;
      return CURL_WRITEFUNC_ERROR;
    }
    body.append(data, std::min(len, ex->request->max_body - body.size()));  // error bodies: keep the start
    return len;
  }
  body.append(data, len);
  return len;
}

std::size_t on_read(char* buffer, std::size_t size, std::size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  if (ex->request->body == nullptr) return 0;
  auto got = ex->request->body->read(std::as_writable_bytes(std::span(buffer, size * n)));
  if (!got) {
    ex->body_error = got.error();
    return CURL_READFUNC_ABORT;
  }
  return *got;
}

}  // namespace

CurlTransport::CurlTransport(CurlOptions options) : options_(std::move(options)), shared_(new Shared) {
  global_init();
  shared_->share = curl_share_init();
  curl_share_setopt(shared_->share, CURLSHOPT_LOCKFUNC, &Shared::lock);
  curl_share_setopt(shared_->share, CURLSHOPT_UNLOCKFUNC, &Shared::unlock);
  curl_share_setopt(shared_->share, CURLSHOPT_USERDATA, shared_.get());
  curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
  curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
}

CurlTransport::~CurlTransport() {
  for (void* h : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(h));
  curl_share_cleanup(shared_->share);
}

void* CurlTransport::acquire_handle() {
  {
    std::lock_guard lock(pool_mutex_);
    if (!idle_handles_.empty()) {
      void* h = idle_handles_.back();
      idle_handles_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void CurlTransport::release_handle(void* handle) {
  std::lock_guard lock(pool_mutex_);
  idle_handles_.push_back(handle);
}

Result<std::shared_ptr<const std::string>> CurlTransport::ca_bundle_for(const std::string& authority) {
  std::lock_guard lock(ca_mutex_);
  if (auto it = ca_bundles_.find(authority); it != ca_bundles_.end()) return it->second;
  std::vector<std::filesystem::path> dirs = options_.default_cert_dirs;
  dirs.insert(dirs.end(), options_.extra_cert_dirs.begin(), options_.extra_cert_dirs.end());
  std::string extra;
  for (const auto& root : dirs) {
    std::error_code ec;
    auto dir = root / authority;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".crt") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      STRATA_TRY(auto pem, fs::read_file(f, 1 << 20));
      extra += pem;
      extra += '\n';
    }
  }
  for (const auto& f : options_.extra_ca_files) {
    STRATA_TRY(auto pem, with_context(fs::read_file(f, 16 << 20), "extra CA certificates " + f.string()));
    extra += pem;
    extra += '\n';
  }
  std::shared_ptr<const std::string> bundle;
  if (!extra.empty()) {
    // CAINFO_BLOB replaces the default bundle, so the system CAs go in too.
    std::string all;
    const char* system_ca = curl_version_info(CURLVERSION_NOW)->cainfo;
    if (system_ca != nullptr) {
      auto sys = fs::read_file(system_ca, 16 << 20);
      if (sys) all = std::move(*sys) + "\n";
    }
    bundle = std::make_shared<const std::string>(all + extra);
  }
  ca_bundles_[authority] = bundle;
  return bundle;
}

Result<Response> CurlTransport::send(Request& request) {
  STRATA_TRY(auto url, parse_url(request.url));
  const std::string what = request.method + " " + without_query(request.url);
  const bool insecure = is_insecure_host(options_.insecure_hosts, url.authority);
  if (url.scheme == "http" && !insecure && !options_.allow_plain_http && url.host != "127.0.0.1" && url.host != "localhost" &&
      url.host != "[::1]") {
    return fail(ErrorCode::kInvalidArgument,
                what + ": plain HTTP is refused for " + url.authority +
                    "; pass --insecure-registry " + url.authority + " if this is intended");
  }
  std::shared_ptr<const std::string> ca;
  if (url.scheme == "https" && !insecure) {
    STRATA_TRY(ca, ca_bundle_for(url.authority));
  }

  CURL* h = static_cast<CURL*>(acquire_handle());
  if (h == nullptr) return fail(ErrorCode::kUnavailable, what + ": cannot initialise libcurl");
  struct Release {
    CurlTransport* self;
    CURL* h;
    curl_slist* headers = nullptr;
    ~Release() {
      curl_slist_free_all(headers);
      self->release_handle(h);
    }
  } release{this, h};

  Exchange ex;
  ex.request = &request;
  std::array<char, CURL_ERROR_SIZE> errbuf{};
  curl_easy_reset(h);
  curl_easy_setopt(h, CURLOPT_SHARE, shared_->share);
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf.data());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options_.stall_timeout.count()));
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  if (!options_.unix_socket.empty()) curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, options_.unix_socket.c_str());
  // Bigger buffers than the 16 KiB / 64 KiB defaults: blob bodies arrive and
  // leave in fewer callbacks (fewer sink writes, pipe hand-offs and wakeups).
  curl_easy_setopt(h, CURLOPT_BUFFERSIZE, kDownloadBuffer);
  curl_easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, kUploadBuffer);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &ex);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &ex);
  if (insecure) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (ca) {
    curl_blob blob{const_cast<char*>(ca->data()), ca->size(), CURL_BLOB_NOCOPY};
    curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob);
  }

  const bool has_body_method = request.method == "PUT" || request.method == "POST" || request.method == "PATCH";
  if (request.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (request.method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  bool chunked = false;
  if (has_body_method) {
    // UPLOAD sends a body (possibly empty, "Content-Length: 0") with the
    // custom method; libcurl would otherwise send POST/PUT semantics of its own.
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, &on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, &ex);
    std::int64_t size = request.body == nullptr ? 0 : request.body->size;
    if (size >= 0) {
      curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(size));
    } else {
      chunked = true;
    }
  }
  for (const auto& [k, v] : request.headers.items())
    release.headers = curl_slist_append(release.headers, (k + ": " + v).c_str());
  release.headers = curl_slist_append(release.headers, "Expect:");  // no 100-continue round trip
  if (chunked) release.headers = curl_slist_append(release.headers, "Transfer-Encoding: chunked");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, release.headers);

  CURLcode rc = curl_easy_perform(h);
  if (ex.sink_error) return fail(*ex.sink_error);
  if (ex.body_error) return fail(ex.body_error->context(what + ": reading the request body"));
  if (ex.body_too_large) {
    return fail(ErrorCode::kInvalidArgument, what + ": response body exceeds the limit of " +
                                                 std::to_string(request.max_body) + " bytes");
  }
  if (rc != CURLE_OK) {
    std::string detail = errbuf[0] != '\0' ? std::string(errbuf.data()) : curl_easy_strerror(rc);
    ErrorCode code = ErrorCode::kUnavailable;
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      detail += " (connect timeout " + std::to_string(options_.connect_timeout.count()) + " s, low-speed timeout " +
                std::to_string(options_.stall_timeout.count()) +
                " s: raise them with --connect-timeout and --low-speed-timeout)";
      code = ErrorCode::kDeadlineExceeded;
    } else if (rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY || rc == CURLE_COULDNT_CONNECT) {
      code = ErrorCode::kUnreachable;
    } else if (rc == CURLE_SSL_CONNECT_ERROR) {
      detail = std::string(kTlsHandshakeFailed) + ": " + detail;
      code = ErrorCode::kUnreachable;
    } else if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE) {
      detail += " (TLS verification failed: put the registry's CA in /etc/docker/certs.d/" +
                url.authority + "/ca.crt, or pass --insecure-registry " + url.authority + ")";
      code = ErrorCode::kFailedPrecondition;
    }
    return fail(code, what + ": " + detail);
  }
  char* effective = nullptr;
  curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &effective);
  ex.response.effective_url = effective != nullptr ? effective : request.url;
  return std::move(ex.response);
}

}  // namespace strata::oci::http
