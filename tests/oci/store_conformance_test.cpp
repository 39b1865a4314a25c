// The Store conformance suite (store_conformance.hpp) over every store that
// lives on this machine: memory, an OCI layout, an oci-archive being written.
// The registry store runs it in registry/registry_conformance_test.cpp.
#include "oci/store_conformance.hpp"

#include "oci/archive_store.hpp"
#include "oci/layout_store.hpp"
#include "oci/memory_store.hpp"

namespace strata::oci {
namespace {

INSTANTIATE_TEST_SUITE_P(
    Stores, StoreConformance,
    ::testing::Values(
        NamedFactory{"memory", [](const std::filesystem::path&) -> std::unique_ptr<Store> {
                       return std::make_unique<MemoryStore>();
                     }},
        NamedFactory{"layout", [](const std::filesystem::path& d) -> std::unique_ptr<Store> {
                       return std::move(*LayoutStore::open(d / "layout", LayoutMode::kCreate));
                     }},
        NamedFactory{"oci_archive", [](const std::filesystem::path& d) -> std::unique_ptr<Store> {
                       return std::move(*ArchiveStore::open(d / "x.tar", ArchiveFormat::kOci, ArchiveMode::kWrite));
                     }}),
    factory_name);

}  // namespace
}  // namespace strata::oci
