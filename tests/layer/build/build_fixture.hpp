// The build pipeline driven as a library call, for tests: an in-memory
// destination, the overlay fixture archive (testdata/overlay) over HTTP and
// its base image, a recording observer and a throwaway home.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "layer/build/build.hpp"
#include "layer/overlay/overlay_fixture.hpp"
#include "oci/http/registry_transport.hpp"
#include "oci/open_store.hpp"
#include "support/temp_dir.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;
using testing::OverlayFixture;

const oci::Platform kAmd64{"linux", "amd64", "", ""};
const oci::Platform kArm64{"linux", "arm64", "", ""};

// Every callback, as one line each, in the order they came.
class Recorder final : public BuildObserver {
 public:
  std::vector<std::string> events;
  void cache_hit(const std::string& tag, const oci::Descriptor& found) override {
    events.push_back("hit " + tag + " " + found.digest.str());
  }
  void cache_expired(const std::string& tag, std::int64_t date) override {
    events.push_back("expired " + tag + " " + std::to_string(date));
  }
  void resolved(const oci::Platform& p, const Lock& lock) override {
    events.push_back("resolved " + p.str() + " " + std::to_string(lock.packages.size()));
  }
  void fetched(const oci::Platform& p, const FetchReport&) override { events.push_back("fetched " + p.str()); }
  void platform_built(const PlatformBuild& b) override { events.push_back("built " + b.platform.str()); }
};

inline std::shared_ptr<oci::http::Transport> archive_transport() {
  oci::http::RegistryTransportOptions o;
  o.curl.allow_plain_http = true;  // integrity comes from the signed Release
  o.curl.default_cert_dirs.clear();
  return oci::http::make_registry_transport(o);
}

class BuildPipeline : public ::testing::Test {
 protected:
  BuildPipeline() {
    auto& fx = OverlayFixture::get();
    base_ = std::move(*oci::open_store(*oci::parse_image_ref(fx.base_ref()), oci::Access::kRead, {}));
  }

  // The fixture base plus `packages`, for linux/amd64.
  OverlaySpec spec(std::vector<std::string> packages) {
    OverlaySpec s;
    s.base = OverlayFixture::get().base_ref();
    s.base_store = base_.store.get();
    s.base_ref = base_.ref;
    s.packages = std::move(packages);
    s.sources = {OverlayFixture::get().sources().string()};
    s.platforms = {kAmd64};
    return s;
  }

  OverlayPlan plan(OverlaySpec s) {
    auto p = plan_overlay(std::move(s));
    EXPECT_TRUE(p) << p.error().message();
    return p ? std::move(*p) : OverlayPlan{};
  }

  // Builds `r` with `home`, recording into `seen`.
  BuildResult run(BuildRequest r, const stdfs::path& home, Recorder& seen, Clock& clock = system_clock()) {
    BaseFsCache base_fs(home / "basefs");
    BuildContext ctx{.http = *http_, .clock = clock, .home = home, .jobs = 2, .base_fs = &base_fs, .observer = &seen};
    auto built = build(r, ctx);
    EXPECT_TRUE(built) << built.error().message();
    return built ? std::move(*built) : BuildResult{};
  }

  oci::OpenedStore base_;
  std::shared_ptr<oci::http::Transport> http_ = archive_transport();
  testing::TempDir t_;
};

}  // namespace strata::layer
