// build_overlay: base image + verified .debs → `base + one layer` in a Store
// (docs/ARCHITECTURE.md, "Data flow of strata build"). Fragments come from the
// FragmentCache (converted in parallel, `jobs` threads), are ordered by
// package name with a package that Replaces another's files after it, and
// are checked for files shipped twice (allowed with Replaces, or identical
// content from one Multi-Arch: same package); then the effects (dpkg
// database, alternatives, ld.so.cache) and the end-of-archive blocks. Every
// path appears once (layer_plan.hpp): the directories of all fragments and
// effects first, then the fragments (which hold no directories; one that
// loses a file to a later piece is taken without it), then the effects' files. The
// layer digest and diff_id are computed over the concatenated pieces in one
// pass; the config is the base's with diff_ids and history appended and
// `created` = the epoch; the manifest carries the annotations given.
//
// Output bytes depend only on the base, the .debs, the requested names,
// compression, epoch and annotations: never on jobs, the cache's state, the
// clock, umask, locale or timezone.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "layer/overlay/base_image.hpp"
#include "oci/compress.hpp"
#include "layer/effects/effects.hpp"
#include "oci/store.hpp"

namespace strata::layer {

// Bump when the overlay's bytes change for the same inputs: part of the
// overlay cache key (docs/format/overlay.md "Cache key"), so overlays cached
// by an older recipe are not found.
inline constexpr int kOverlayRecipe = 7;  // 7: ucf, PHP modules, alternatives in for-loops reproduced

struct OverlayDeb {
  std::string name, version, architecture;
  std::string sha256;
  std::filesystem::path path;  // verified file in the .deb cache
};

struct OverlayOptions {
  std::filesystem::path home;  // $STRATA_HOME (fragment cache)
  oci::Compression compression = oci::Compression::kGzip;
  std::int64_t epoch = 0;
  std::string debian_arch = "amd64";
  std::set<std::string> requested;  // names the user asked for
  unsigned jobs = 4;
  std::map<std::string, std::string> annotations;
  std::optional<std::string> tag;
  std::string created_by = "strata build";
  // More effects after the standard ones (the scratch root's); it may edit
  // the list of unreproduced script effects it covers.
  std::function<Result<Effects>(const OverlayView&, std::vector<std::string>& unreproduced)> extra_effects;
  std::string extra_effects_name;  // what they reproduce, for OverlayResult::reproduced
  // Also the result's filesystem (OverlayResult::fs): the base's as loaded
  // plus the new layer, holding what these options ask for, made from what
  // the build knows (the plan, the fragments' headers and kept files, the
  // effects) without reading the layer back.
  std::optional<oci::ImageFsOptions> result_fs;
};

struct OverlayResult {
  oci::Descriptor manifest;
  oci::Descriptor config;
  oci::Descriptor layer;
  oci::LayerDigests digests;
  std::size_t converted = 0;  // fragments converted in this build
  std::size_t reused = 0;     // fragments taken from the cache
  std::vector<std::string> reproduced;    // the effects written: "dpkg database", "alternatives", …
  std::vector<std::string> unreproduced;  // script effects not reproduced (also the kAnnotationUnreproduced annotation)
  std::vector<std::string> notes;
  std::vector<std::string> warnings;  // about the base (a layer Docker and podman would refuse)
  // With OverlayOptions::result_fs: the image's filesystem, as load() would
  // read it with those options; absent when the build did not keep a file
  // they ask for (a package shipping its own dpkg database file, a copyright
  // file that is a hardlink to a dropped path), `fs_unknown` then says why.
  std::optional<oci::ImageFilesystem> fs;
  std::string fs_unknown;
};

// What the overlay builder needs of a base beyond its dpkg state (files to
// capture and to summarize); for load_base_image.
oci::ImageFsOptions overlay_base_needs();

// `base_store` holds the base's blobs; they are copied to `dest` when missing.
// `base` is taken: with OverlayOptions::result_fs its filesystem becomes the
// result's.
Result<OverlayResult> build_overlay(BaseImage base, oci::Store& base_store, const std::vector<OverlayDeb>& debs,
                                    const OverlayOptions& options, oci::Store& dest);

inline constexpr std::string_view kAnnotationKey = "dev.strata.overlay.key";
inline constexpr std::string_view kAnnotationLockDigest = "dev.strata.overlay.lock.digest";
inline constexpr std::string_view kAnnotationArchiveDate = "dev.strata.overlay.archive.date";
inline constexpr std::string_view kAnnotationPackages = "dev.strata.overlay.packages";
inline constexpr std::string_view kAnnotationUnreproduced = "dev.strata.overlay.unreproduced";

}  // namespace strata::layer
