#include "layer/test_curl_transport.hpp"

#include <curl/curl.h>

namespace strata::testing {

namespace {

struct Ctx {
  oci::http::Request* req;
  oci::http::Response* resp;
  Result<void> sink_status;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* c = static_cast<Ctx*>(user);
  size_t len = size * n;
  if (c->resp->status >= 200 && c->resp->status < 300 && c->req->sink) {
    auto r = c->req->sink->write(std::as_bytes(std::span(data, len)));
    if (!r) {
      c->sink_status = r;
      return 0;
    }
  } else {
    c->resp->body.append(data, len);
  }
  return len;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* c = static_cast<Ctx*>(user);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    c->resp->status = std::stoi(line.substr(line.find(' ') + 1, 3));
    c->resp->headers = {};
  } else if (auto colon = line.find(':'); colon != std::string::npos) {
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ')) value.erase(value.begin());
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
    c->resp->headers.add(line.substr(0, colon), value);
  }
  return size * n;
}

}  // namespace

Result<oci::http::Response> TestCurlTransport::send(oci::http::Request& request) {
  oci::http::Response resp;
  Ctx ctx{&request, &resp, {}};
  CURL* h = curl_easy_init();
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : request.headers.items()) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &ctx);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &ctx);
  if (request.method == "HEAD") curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  CURLcode rc = curl_easy_perform(h);
  curl_slist_free_all(headers);
  curl_easy_cleanup(h);
  if (!ctx.sink_status) return std::unexpected(ctx.sink_status.error());
  if (rc != CURLE_OK) return fail(ErrorCode::kUnavailable, request.url + ": " + curl_easy_strerror(rc));
  resp.effective_url = request.url;
  return resp;
}

}  // namespace strata::testing
