// `strata bundle load`: a bundle (docs/format/bundle.md) on the far side of
// an air gap. Every .deb goes into $STRATA_HOME/debs/sha256/ (verified
// against its sha256 and size, renamed into place only then), every
// toolchain release into $STRATA_HOME/toolchains/ (all verified before any
// is published: bundle_toolchains.hpp), every lock is
// checked (it parses, and the bundle holds each package it names) and
// optionally written out, and every image is copied to where its name says,
// or under `dest`:
//
//   ""                       each image to its own name (docker://NAME)
//   docker://HOST[/PREFIX]   HOST/PREFIX/REPOSITORY:TAG (the registry replaced,
//                            the repository path and tag kept, as a mirror does)
//   oci:DIR                  a layout, each image tagged with its full name
//
// Pinned: `BUNDLE@sha256:…`, as `bundle create` prints it, refuses a bundle
// whose index is another, before anything moves. The index names every
// image, lock and .deb by digest, and each is verified, so a pinned load
// takes exactly what was created or nothing.
//
// Idempotent: what the destination and the cache already hold is not moved
// again. Kill-safe: each blob, manifest, .deb and lock appears whole or not
// at all, and a re-run finishes the rest.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "layer/bundle/bundle_format.hpp"
#include "layer/bundle/bundle_toolchains.hpp"
#include "oci/copy.hpp"
#include "oci/open_store.hpp"

namespace strata::layer {

// A bundle as the user names it: its path, and the index digest after the
// last '@' when one is given ("site.tar@sha256:…").
struct BundleRef {
  std::filesystem::path path;
  std::optional<oci::Digest> index;
};
Result<BundleRef> parse_bundle_ref(std::string_view text);

struct BundleLoadRequest {
  std::filesystem::path bundle;     // a bundle directory, or a bundle tar
  std::optional<oci::Digest> expect_index;  // refuse any other bundle index
  std::string dest;                 // see above
  std::filesystem::path locks_out;  // write the locks into this directory; empty: do not
  std::filesystem::path home;       // $STRATA_HOME: the .deb cache
  oci::OpenOptions open;            // the destination's stores
  oci::CopyOptions copy;            // jobs, observer
};

struct LoadedImage {
  BundleImage image;
  std::string destination;  // the reference it was copied to
  bool already_present = false;
};

struct BundleLoadReport {
  oci::Descriptor index;  // the bundle index
  std::vector<LoadedImage> images;
  std::size_t referrers = 0;       // carried to the images' destinations
  std::size_t referrers_left = 0;  // not carried: the destination keeps none (a daemon's store)
  std::size_t debs_seeded = 0, debs_present = 0;
  std::uint64_t deb_bytes = 0;  // seeded
  std::vector<BundleLock> locks;
  std::vector<std::filesystem::path> locks_written;  // with locks_out (those whose content changed)
  ToolchainSeedReport toolchains;  // the releases, and their archives seeded into $STRATA_HOME/toolchains
};

// Where an image named `name` goes for `dest` (see above).
Result<std::string> bundle_destination(const std::string& name, const std::string& dest);

Result<BundleLoadReport> load_bundle(const BundleLoadRequest& request);

}  // namespace strata::layer
