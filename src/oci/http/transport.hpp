// The network seam. Everything in strata that speaks HTTP (registries, apt
// archives, token servers) goes through an HttpTransport, so tests can
// substitute a fake and production can stack decorators (retry, auth) over
// the libcurl implementation.
//
// Thread-safety: send() may be called concurrently from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "oci/blob_io.hpp"
#include "util/error.hpp"

namespace strata::oci::http {

// In the message of a kUnreachable error when the peer answered the TLS
// handshake with something else (a plain-HTTP server, typically).
inline constexpr std::string_view kTlsHandshakeFailed = "TLS handshake failed";

// Header names compare case-insensitively; values keep their case. A name may
// repeat (WWW-Authenticate, Link), so lookups return the first or all.
class Headers {
 public:
  void add(std::string name, std::string value);
  void set(std::string name, std::string value);  // replaces every value
  void remove(std::string_view name);
  std::optional<std::string> get(std::string_view name) const;
  std::vector<std::string> get_all(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// A request body that can be produced again from the start (for retries and
// redirects). `read` fills `buf` and returns the bytes written, 0 at the end.
struct BodySource {
  std::int64_t size = -1;  // -1: unknown (chunked transfer)
  std::function<Result<std::size_t>(std::span<std::byte> buf)> read;
  std::function<Result<void>()> rewind;  // empty: not rewindable
};

// A body held in memory, rewindable.
BodySource body_from_string(std::shared_ptr<const std::string> data);

struct Response;

struct Request {
  std::string method = "GET";  // GET HEAD PUT POST PATCH DELETE
  std::string url;
  Headers headers;
  BodySource* body = nullptr;     // upload, or nullptr
  ByteSink* sink = nullptr;       // where a 2xx response body goes; nullptr: into Response::body
  std::size_t max_body = 1 << 20; // cap for bodies collected into Response::body
  bool follow_redirects = false;  // transports never follow; the caller decides
  // Caps the tries of a retrying transport for this request (0: its policy).
  // A probe whose failure is expected (https against a plain-HTTP port) uses 1.
  int max_attempts = 0;
  // Called with the final status and headers of a 2xx response before any
  // body byte reaches `sink`; an error aborts the exchange and is returned by
  // send(). Lets a caller refuse a body it cannot accept (a 200 where a 206
  // with an exact Content-Range was required) before the sink sees it.
  std::function<Result<void>(const Response&)> on_headers;
};

struct Response {
  int status = 0;
  Headers headers;
  std::string body;           // non-2xx bodies, and 2xx when Request::sink is null
  std::string effective_url;  // the URL that answered
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Performs one exchange. A Result error means no HTTP answer (connection
  // refused or reset, TLS failure, timeout, a sink error); an HTTP error
  // status is a successful Response.
  virtual Result<Response> send(Request& request) = 0;
};

}  // namespace strata::oci::http
