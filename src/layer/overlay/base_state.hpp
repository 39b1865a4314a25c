// A base image's dpkg state as resolution needs it (the installed packages
// and dpkg's extra architectures), cached per image manifest digest so a
// `strata resolve --base` of a base seen before reads one small file instead
// of its layers: $STRATA_HOME/basestate/state-<format>-<algorithm>-<hex>.
//
// The key is the platform's image manifest (not an index): it names the
// layers by digest, and the state is a function of the layers and of how
// strata reads them (kBaseStateFormat, bumped when that reading or the
// package encoding changes). The entry repeats the digest it was made for;
// a file that is damaged, of another format or for another digest is
// ignored and rewritten. Reads are bounded; writes atomic (racing writers
// write the same bytes). Thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layer/debian/package.hpp"
#include "layer/overlay/base_fs_cache.hpp"
#include "layer/overlay/base_image.hpp"
#include "oci/digest.hpp"
#include "oci/store.hpp"

namespace strata::layer {

inline constexpr std::uint32_t kBaseStateFormat = 1;

struct BaseDpkgState {
  std::vector<Package> installed;  // base_packages()
  std::string dpkg_arch;           // var/lib/dpkg/arch as written, empty when absent
};

// The state of a loaded base.
Result<BaseDpkgState> base_dpkg_state(const BaseImage& base);

class BaseStateCache {
 public:
  explicit BaseStateCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  std::optional<BaseDpkgState> find(const oci::Digest& manifest) const;
  // Best effort: without the entry the next resolve reads the layers again.
  void remember(const oci::Digest& manifest, const BaseDpkgState& state) const;

  std::filesystem::path entry_path(const oci::Digest& manifest) const;

 private:
  std::filesystem::path dir_;
};

struct BaseState {
  oci::Descriptor descriptor;  // the platform's image manifest
  BaseDpkgState state;
  bool cached = false;  // answered by the cache, no layer read
};

// `ref` in `store` for `platform`: its manifest (an index resolved to the
// platform's), then the state from `cache` when it holds it, else from the
// layers (through `fs_cache` when given), recorded in `cache`.
Result<BaseState> load_base_state(oci::Store& store, std::string_view ref, const oci::Platform& platform,
                                  const BaseStateCache* cache, const BaseFsCache* fs_cache = nullptr);

}  // namespace strata::layer
