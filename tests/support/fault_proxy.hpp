// FaultProxy: tests/support/fault_proxy.py in front of a real server on
// 127.0.0.1 (the registry, the fixture apt archive), started in `dir` and
// stopped by PID on destruction. script() sets its fault rules (the JSON list
// fault_proxy.py documents); log() returns what it applied.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>

#include "oci/http/curl_transport.hpp"
#include "support/registry_server.hpp"
#include "support/source_dir.hpp"

namespace strata::testing {

class FaultProxy {
 public:
  // `upstream` is "127.0.0.1:PORT"; the proxy's output goes to dir/fault_proxy.out.
  static Result<std::unique_ptr<FaultProxy>> start(const std::string& upstream, const std::filesystem::path& dir) {
    std::unique_ptr<FaultProxy> p(new FaultProxy());
    p->log_ = dir / "fault_proxy.out";
    auto script = source_dir() / "tests" / "support" / "fault_proxy.py";
    STRATA_TRY(p->pid_, spawn_process({"python3", script.string(), "--upstream", upstream}, p->log_));
    STRATA_TRY(auto port, wait_for_log(p->log_, "listening on ", p->pid_));
    p->host_port_ = "127.0.0.1:" + port;
    return p;
  }
  ~FaultProxy() { stop_process(pid_); }
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  const std::string& host_port() const { return host_port_; }

  void script(const std::string& rules_json) {
    auto r = control("POST", "/__fault__/script", rules_json);
    ASSERT_TRUE(r && r->status == 200);
  }
  nlohmann::json log() {
    auto r = control("GET", "/__fault__/log", "");
    EXPECT_TRUE(r);
    return r ? nlohmann::json::parse(r->body) : nlohmann::json();
  }

 private:
  FaultProxy() : transport_(oci::http::CurlOptions{}) {}
  Result<oci::http::Response> control(const std::string& method, const std::string& path, const std::string& body) {
    oci::http::Request req;
    req.method = method;
    req.url = "http://" + host_port_ + path;
    oci::http::BodySource src = oci::http::body_from_string(std::make_shared<const std::string>(body));
    if (method == "POST") req.body = &src;
    return transport_.send(req);
  }
  std::filesystem::path log_;
  pid_t pid_ = -1;
  std::string host_port_;
  oci::http::CurlTransport transport_;
};

}  // namespace strata::testing
