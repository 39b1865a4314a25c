// What a test asks of an OCI layout after a gc: it validates (index.json
// parses, every blob's bytes hash to its name, every blob an entry reaches
// is there) and which blobs no entry reaches. Reads the files directly, not
// through the store under test.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "support/run.hpp"
#include "util/sha.hpp"

namespace strata::testing {

struct LayoutCheck {
  std::vector<std::string> problems;   // empty: the layout is valid
  std::set<std::string> blobs;         // every blob file, "sha256:<hex>"
  std::set<std::string> reachable;     // what index.json's entries reach
  std::set<std::string> unreferenced() const {
    std::set<std::string> out;
    for (const auto& b : blobs)
      if (!reachable.contains(b)) out.insert(b);
    return out;
  }
};

inline void reach_from(const std::filesystem::path& dir, const oci::Descriptor& d, LayoutCheck& c, int depth = 0) {
  const std::string digest = d.digest.str();
  if (!c.reachable.insert(digest).second || depth > 8) return;
  auto file = dir / "blobs" / std::string(d.digest.algorithm()) / std::string(d.digest.hex());
  if (!std::filesystem::exists(file)) {
    c.problems.push_back("missing blob " + digest);
    return;
  }
  if (!oci::media::is_manifest_or_index(d.media_type)) return;
  auto parsed = oci::parse_manifest(slurp(file), d.media_type, digest);
  if (!parsed) {
    c.problems.push_back(digest + ": " + parsed.error().message());
    return;
  }
  if (auto* m = std::get_if<oci::ImageManifest>(&*parsed)) {
    reach_from(dir, m->config, c, depth + 1);
    for (const auto& l : m->layers) reach_from(dir, l, c, depth + 1);
  } else if (auto* idx = std::get_if<oci::ImageIndex>(&*parsed)) {
    for (const auto& child : idx->manifests) reach_from(dir, child, c, depth + 1);
  }
}

inline LayoutCheck check_layout(const std::filesystem::path& dir) {
  LayoutCheck c;
  if (!std::filesystem::exists(dir / "oci-layout")) c.problems.push_back("no oci-layout");
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir / "blobs" / "sha256", ec)) {
    const std::string name = f.path().filename().string();
    c.blobs.insert("sha256:" + name);
    if (sha256_hex(slurp(f.path())) != name) c.problems.push_back("blob " + name + " does not hash to its name");
  }
  auto idx = oci::parse_manifest(slurp(dir / "index.json"), oci::media::kOciIndex, "index.json", 64 << 20);
  if (!idx || !std::holds_alternative<oci::ImageIndex>(*idx)) {
    c.problems.push_back("index.json does not parse");
    return c;
  }
  for (const auto& e : std::get<oci::ImageIndex>(*idx).manifests) reach_from(dir, e, c);
  return c;
}

}  // namespace strata::testing
