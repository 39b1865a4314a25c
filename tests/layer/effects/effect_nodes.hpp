// What the effects tests share: image-filesystem nodes built in memory (a
// directory, a symlink, a file with its content) and an Effects' files by
// path ("-> target" for a symlink, the content for a file).
#pragma once

#include <map>
#include <string>

#include "layer/effects/effects.hpp"
#include "oci/image_fs.hpp"

namespace strata::layer::testing {

inline oci::FsNode dir() { return oci::FsNode{}; }

inline oci::FsNode link(std::string target) {
  oci::FsNode n;
  n.type = oci::TarEntryType::kSymlink;
  n.link_target = std::move(target);
  return n;
}

inline oci::FsNode file(std::string text) {
  oci::FsNode n;
  n.type = oci::TarEntryType::kRegular;
  n.mode = 0644;
  n.size = text.size();
  n.content = std::move(text);
  return n;
}

inline std::map<std::string, std::string> by_path(const Effects& fx) {
  std::map<std::string, std::string> out;
  for (const auto& f : fx.files)
    out[f.entry.path] = f.entry.type == oci::TarEntryType::kSymlink ? "-> " + f.entry.link_target : f.content;
  return out;
}

}  // namespace strata::layer::testing
