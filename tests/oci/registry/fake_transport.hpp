// A scripted in-process http::Transport for unit tests: a handler decides
// each answer, every request is recorded, and 2xx bodies are delivered to the
// request's sink the way CurlTransport does (on_headers first).
// Thread-safety: send() is serialised by a mutex.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "oci/http/transport.hpp"

namespace strata::oci::testing {

struct RecordedRequest {
  std::string method;
  std::string url;
  http::Headers headers;
  std::string body;
};

class FakeTransport final : public http::Transport {
 public:
  using Handler = std::function<Result<http::Response>(http::Request&, const RecordedRequest&)>;
  explicit FakeTransport(Handler handler) : handler_(std::move(handler)) {}

  Result<http::Response> send(http::Request& request) override {
    std::lock_guard lock(mutex_);
    RecordedRequest rec{request.method, request.url, request.headers, {}};
    if (request.body != nullptr) {
      std::byte buf[4096];
      while (true) {
        auto n = request.body->read(buf);
        if (!n) return std::unexpected(n.error());
        if (*n == 0) break;
        rec.body.append(reinterpret_cast<const char*>(buf), *n);
      }
    }
    requests.push_back(rec);
    return handler_(request, rec);
  }

  // An answer; a 2xx body goes to the sink, as a real transport does.
  static Result<http::Response> respond(http::Request& req, int status, std::string body = {},
                                        std::vector<std::pair<std::string, std::string>> headers = {}) {
    http::Response r;
    r.status = status;
    r.effective_url = req.url;
    for (auto& [k, v] : headers) r.headers.add(k, v);
    if (status >= 200 && status < 300 && req.sink != nullptr) {
      if (req.on_headers) {
        auto ok = req.on_headers(r);
        if (!ok) return std::unexpected(ok.error());
      }
      if (!body.empty()) {
        auto ok = req.sink->write(std::as_bytes(std::span(body.data(), body.size())));
        if (!ok) return std::unexpected(ok.error());
      }
    } else {
      r.body = std::move(body);
    }
    return r;
  }

  std::vector<RecordedRequest> requests;

 private:
  std::mutex mutex_;
  Handler handler_;
};

}  // namespace strata::oci::testing
