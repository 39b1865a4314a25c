// One behavioural suite every Store implementation must pass (blobs,
// verification, manifests and tags, deletion, concurrent writers). The
// checks are in store_conformance.cpp; each test binary instantiates them
// over the stores it can make: store_conformance_test.cpp the ones that live
// on this machine (memory, OCI layout, archives in write mode),
// registry/registry_conformance_test.cpp a real registry (integration).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "oci/store.hpp"
#include "support/temp_dir.hpp"

namespace strata::oci {

// Makes a fresh, empty store; `dir` is a temporary directory of its own.
using StoreFactory = std::function<std::unique_ptr<Store>(const std::filesystem::path& dir)>;

struct NamedFactory {
  std::string name;  // the test name suffix
  StoreFactory make;
};

class StoreConformance : public ::testing::TestWithParam<NamedFactory> {
 protected:
  void SetUp() override {
    store_ = GetParam().make(dir_.path());
    ASSERT_NE(store_, nullptr);
  }
  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
};

inline std::string factory_name(const ::testing::TestParamInfo<NamedFactory>& info) { return info.param.name; }

}  // namespace strata::oci
