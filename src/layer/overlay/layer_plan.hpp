// Every path once in an overlay layer (docs/format/overlay.md "Every path
// once"). Docker's layer store and containers/storage (podman, buildah,
// CRI-O) refuse a layer that names one path twice; per-package fragments
// concatenated as they are repeat every directory two packages share and
// every file one package replaces in another.
//
// plan_layer decides, from the fragments' info alone (no fragment body is
// read), what each path becomes, as dpkg would leave it unpacking the
// packages in layer order:
//   - directories, from every fragment and the effects, go once into a
//     directories piece ahead of the fragments (which hold no directories);
//     the first package in layer order that ships a directory gives its
//     mode, owner, mtime and xattrs (dpkg leaves an existing directory
//     alone), an effect's directory (a maintainer script's result) overrides;
//   - a non-directory shipped by several fragments (allowed by Replaces, or
//     identical in a Multi-Arch: same package) is kept in the last one that
//     ships it and dropped from the others; an effect's file drops a
//     package's file at its path;
//   - a symlink shipped where an earlier package ships a directory is
//     dropped (dpkg keeps the directory); any other directory/non-directory
//     clash is refused, as dpkg would refuse it.
// fragment_without makes a fragment without its dropped paths (hardlink
// sets re-rooted on the first kept member), cached beside the fragment, so a
// warm build of the same combination reads no fragment body either.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "layer/deb/fragment.hpp"
#include "layer/effects/effects.hpp"
#include "oci/compress.hpp"

namespace strata::layer {

struct LayerPlan {
  std::vector<oci::TarEntry> directories;    // the directories piece, tar_path_less order
  std::vector<std::set<std::string>> drop;   // per fragment (in the order given): paths it loses
  std::vector<EffectFile> effect_files;      // the effects piece: no directories, tar_path_less order
  std::vector<std::string> notes;
};

// `fragments` in layer order; `effects` unique by path (effects_tar's input
// after completion), any order.
Result<LayerPlan> plan_layer(const std::vector<const FragmentInfo*>& fragments, const std::vector<EffectFile>& effects);

// The directories piece: the entries as a tar without end-of-archive blocks.
Result<std::string> directories_tar(const std::vector<oci::TarEntry>& directories);

// `f` without the non-directory paths in `drop`, in f's cache directory
// (`without-<hash>/`), made when absent or damaged. The result's `converted`
// is true when it was made now (its CRC-32s need no check).
Result<Fragment> fragment_without(const Fragment& f, const std::set<std::string>& drop, oci::Compression compression,
                                  unsigned compress_jobs = 1);

}  // namespace strata::layer
