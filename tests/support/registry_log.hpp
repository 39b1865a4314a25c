// The requests a RegistryServer answered, read from its access log
// ("PUT /v2/team/app/blobs/uploads/…"), for tests that count requests
// (never times).
#pragma once

#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "support/registry_server.hpp"

namespace strata::testing {

// "METHOD /path" of each access-log line, query strings left off.
inline std::vector<std::string> registry_requests(const RegistryServer& server) {
  static const std::regex line(R"re("(GET|HEAD|POST|PUT|PATCH|DELETE) (/[^ ?"]*))re");
  std::vector<std::string> out;
  const std::string log = server.log();
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str() + " " + (*it)[2].str());
  return out;
}

// The access log is written after the response; wait (bounded) until it has
// at least `n` lines, then a little longer so that extra lines would show.
inline std::vector<std::string> registry_requests_after(const RegistryServer& server, std::size_t n) {
  for (int i = 0; i < 100 && registry_requests(server).size() < n; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return registry_requests(server);
}

}  // namespace strata::testing
