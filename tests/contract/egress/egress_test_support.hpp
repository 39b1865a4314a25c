// Shared by the egress tests: render a fixture repository the way `strata
// egress render` does, from the source tree (so the contract's root, and so
// its digest, read "testdata/repos/<name>" wherever the checkout is).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "contract/egress/render.hpp"
#include "support/source_dir.hpp"

namespace strata::contract::egress::testing {

inline constexpr const char* kTestVersion = "0.0.0-test";

// Runs `f` with the working directory at the source tree, then goes back.
template <class F>
auto in_source_dir(F f) {
  auto old = std::filesystem::current_path();
  std::filesystem::current_path(strata::testing::source_dir());
  struct Back {
    std::filesystem::path p;
    ~Back() { std::filesystem::current_path(p); }
  } back{old};
  return f();
}

inline RenderRequest request(const std::string& repo, const std::string& format) {
  RenderRequest r;
  r.repo = "testdata/repos/" + repo;
  r.format = format;
  r.strata_version = kTestVersion;
  return r;
}

inline Result<Rendered> render_fixture(RenderRequest r) {
  return in_source_dir([&] { return render_egress(r); });
}

inline std::string rendered(RenderRequest r) {
  auto out = render_fixture(std::move(r));
  EXPECT_TRUE(out.has_value()) << (out ? "" : out.error().message());
  return out ? out->text : std::string();
}

}  // namespace strata::contract::egress::testing
