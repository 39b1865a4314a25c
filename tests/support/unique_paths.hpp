// Holds a layer to the rule Docker's layer store and containers/storage
// apply: no path twice (oci::DuplicatePaths::kRefuse). For tests of every
// strata writer (overlay, scratch, import).
#pragma once

#include <filesystem>
#include <string>

#include "oci/store.hpp"
#include "oci/tar_reader.hpp"

namespace strata::testing {

// Reads every entry of the layer file (any compression strata reads); the
// error names the first path seen twice. Returns the number of entries.
inline Result<std::uint64_t> read_refusing_duplicates(const std::filesystem::path& layer) {
  oci::ReadLimits limits;
  limits.duplicates = oci::DuplicatePaths::kRefuse;
  STRATA_TRY(auto reader, oci::TarReader::open_file(layer, limits));
  while (true) {
    STRATA_TRY(auto e, reader->next());
    if (!e) break;
  }
  return reader->entries();
}

// The same for a layer blob in a store.
inline Result<std::uint64_t> read_refusing_duplicates(oci::Store& store, const oci::Descriptor& layer) {
  oci::ReadLimits limits;
  limits.duplicates = oci::DuplicatePaths::kRefuse;
  STRATA_TRY(auto reader, oci::TarReader::open_blob(store, layer, limits));
  while (true) {
    STRATA_TRY(auto e, reader->next());
    if (!e) break;
  }
  return reader->entries();
}

}  // namespace strata::testing
