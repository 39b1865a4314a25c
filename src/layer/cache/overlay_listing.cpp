#include "layer/cache/overlay_listing.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "layer/build/overlay_use.hpp"
#include "layer/overlay/overlay.hpp"
#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

constexpr std::string_view kOverlayTagPrefix = "overlay-";

// One image manifest's facts, and the blobs (with sizes) it refers to.
struct ManifestFacts {
  std::map<std::string, std::uint64_t> blobs;  // digest → size, the manifest itself included
  std::map<std::string, std::string> annotations;
  std::string platform;
};

Result<ManifestFacts> manifest_facts(oci::Store& store, const oci::Descriptor& desc, bool want_platform) {
  STRATA_TRY(auto fetched, oci::fetch_manifest(store, desc.digest.str()));
  ManifestFacts f;
  f.blobs[desc.digest.str()] = static_cast<std::uint64_t>(fetched.raw.bytes.size());
  if (auto* m = std::get_if<oci::ImageManifest>(&fetched.parsed)) {
    f.annotations = m->annotations;
    f.blobs[m->config.digest.str()] = static_cast<std::uint64_t>(m->config.size);
    for (const auto& l : m->layers) f.blobs[l.digest.str()] = static_cast<std::uint64_t>(l.size);
    if (want_platform && desc.platform) f.platform = desc.platform->str();
    if (want_platform && !desc.platform && m->config.media_type != oci::media::kOciEmpty) {
      STRATA_TRY(auto bytes, oci::read_blob(store, m->config, oci::kMaxConfigBytes));
      STRATA_TRY(auto config, oci::parse_config(std::move(bytes), store.describe() + "@" + m->config.digest.str()));
      f.platform = config.platform().str();
    }
  }
  return f;
}

// Every manifest under a root (the root, and an index's children one level
// down: what strata writes and what images are).
Result<std::vector<std::pair<oci::Descriptor, ManifestFacts>>> walk(oci::Store& store, const oci::Descriptor& root,
                                                                    bool want_platform) {
  std::vector<std::pair<oci::Descriptor, ManifestFacts>> out;
  STRATA_TRY(auto fetched, oci::fetch_manifest(store, root.digest.str()));
  if (auto* idx = std::get_if<oci::ImageIndex>(&fetched.parsed)) {
    ManifestFacts self;
    self.blobs[root.digest.str()] = static_cast<std::uint64_t>(fetched.raw.bytes.size());
    self.annotations = idx->annotations;
    out.emplace_back(root, std::move(self));
    for (const auto& child : idx->manifests) {
      // Nested indexes and unknown children are not an overlay's shape.
      if (oci::media::is_index(child.media_type) || !oci::media::is_manifest_or_index(child.media_type)) continue;
      STRATA_TRY(auto facts, manifest_facts(store, child, want_platform));
      out.emplace_back(child, std::move(facts));
    }
    return out;
  }
  STRATA_TRY(auto facts, manifest_facts(store, root, want_platform));
  out.emplace_back(root, std::move(facts));
  return out;
}

std::string annotation(const std::map<std::string, std::string>& a, std::string_view key) {
  auto it = a.find(std::string(key));
  return it == a.end() ? "" : it->second;
}

}  // namespace

bool is_overlay_tag(std::string_view tag) {
  if (!tag.starts_with(kOverlayTagPrefix) || tag.size() != kOverlayTagPrefix.size() + 64) return false;
  return std::ranges::all_of(tag.substr(kOverlayTagPrefix.size()),
                             [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_referrers_tag(std::string_view tag) {
  constexpr std::string_view prefix = "sha256-";
  if (!tag.starts_with(prefix) || tag.size() != prefix.size() + 64) return false;
  return std::ranges::all_of(tag.substr(prefix.size()),
                             [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string ignored_uses_summary(const std::vector<IgnoredUse>& ignored) {
  if (ignored.empty()) return "";
  const auto& first = ignored.front();
  // A key is 64 hex digits: its first 12 name it, as cache ls does.
  const std::string tag = first.tag.size() > 20 ? first.tag.substr(0, 20) + "…" + std::string(kUseTagSuffix) : first.tag;
  std::string out = "ignored " + std::to_string(ignored.size()) +
                    (ignored.size() == 1 ? " use record" : " use records") + " with impossible times (" + tag + ": " +
                    first.reason;
  if (ignored.size() > 1) out += "; and " + std::to_string(ignored.size() - 1) + " more";
  return out + "); their overlays count as never used until the next use rewrites the record";
}

Result<CacheListing> list_overlays(oci::Store& store, const Clock& clock, std::vector<std::string>& problems) {
  const std::int64_t now = clock.now();
  CacheListing out;
  STRATA_TRY(auto tags, store.list_tags());
  std::sort(tags.begin(), tags.end());
  // Roots by digest: which overlay keys name each, and every other tagged image.
  std::map<std::string, oci::Descriptor> roots;
  std::map<std::string, std::vector<std::string>> keys_of;
  std::set<std::string> other_roots;  // tagged by something other than a key or a use record
  std::map<std::string, std::string> tag_of;  // a tag naming each root, for messages
  std::set<std::string> referrers_indexes;  // roots tagged by the referrers tag schema
  for (const auto& tag : tags) {
    const bool referrers_tag = is_referrers_tag(tag);
    auto desc = store.resolve(tag);
    if (!desc && referrers_tag && desc.error().is(ErrorCode::kNotFound)) continue;  // gone: nothing to say
    if (desc && referrers_tag) {
      // Bookkeeping of a registry without the referrers API: left over once
      // its subject is gone (a gc, a delete by another tool).
      auto subject = store.resolve("sha256:" + tag.substr(7));
      if (!subject && subject.error().is(ErrorCode::kNotFound)) {
        out.dangling_referrers.emplace(tag, desc->digest.str());
        continue;
      }
      referrers_indexes.insert(desc->digest.str());
    }
    if (!desc) {
      problems.push_back(store.describe() + ":" + tag + ": " + desc.error().message());
      // Gone since the tag list (another gc): it names nothing any more.
      if (desc.error().code() != ErrorCode::kNotFound) out.unreadable.push_back(problems.back());
      continue;
    }
    roots.emplace(desc->digest.str(), *desc);
    tag_of.emplace(desc->digest.str(), tag);
    if (is_overlay_tag(tag)) keys_of[desc->digest.str()].push_back(tag.substr(kOverlayTagPrefix.size()));
    const bool use_record = tag.ends_with(kUseTagSuffix) && is_overlay_tag(tag.substr(0, tag.size() - kUseTagSuffix.size()));
    if (!is_overlay_tag(tag) && !use_record) other_roots.insert(desc->digest.str());
  }
  // Every blob's users, over every tagged image (bases and use records too).
  std::map<std::string, std::set<std::string>> users;
  std::map<std::string, std::vector<std::pair<oci::Descriptor, ManifestFacts>>> walked;
  for (const auto& [digest, desc] : roots) {
    auto w = walk(store, desc, keys_of.contains(digest));
    // A referrers index naming referrers since deleted: stale, not unreadable.
    if (!w && referrers_indexes.contains(digest) && w.error().is(ErrorCode::kNotFound)) continue;
    if (!w) {
      problems.push_back(store.describe() + "@" + digest + ": " + w.error().message());
      out.unreadable.push_back(store.describe() + ":" + tag_of[digest] + "@" + digest + ": " + w.error().message());
      continue;
    }
    for (const auto& [_, facts] : *w)
      for (const auto& [blob, size] : facts.blobs) users[blob].insert(digest);
    walked.emplace(digest, std::move(*w));
  }

  for (const auto& digest : other_roots) {
    auto w = walked.find(digest);
    if (w == walked.end()) continue;
    for (const auto& [_, facts] : w->second)
      for (const auto& [blob, size] : facts.blobs) out.other_blobs.insert(blob);
  }
  std::set<std::string> overlay_blobs;
  for (const auto& [digest, keys] : keys_of) {
    auto w = walked.find(digest);
    if (w == walked.end()) continue;
    CachedOverlayEntry e;
    e.root = roots.at(digest);
    e.keys = keys;
    std::map<std::string, std::uint64_t> blobs;
    for (const auto& [desc, facts] : w->second) {
      blobs.insert(facts.blobs.begin(), facts.blobs.end());
      if (facts.platform.empty()) continue;  // the index itself
      e.platforms.push_back(facts.platform);
      e.base_digests.push_back(annotation(facts.annotations, "org.opencontainers.image.base.digest"));
      if (e.packages.empty()) {
        const std::string packages = annotation(facts.annotations, kAnnotationPackages);
        for (auto p : str::split(packages, ','))
          if (!p.empty()) e.packages.emplace_back(p);
      }
      if (w->second.size() == 1) {
        e.lock_digest = annotation(facts.annotations, kAnnotationLockDigest);
        // A resolving build answers for its request key (what `strata key`
        // and prewarm print, and provision looks up) and for its content key
        // (the manifest's own annotation): the request key first.
        const std::string content = annotation(facts.annotations, kAnnotationKey);
        std::stable_partition(e.keys.begin(), e.keys.end(), [&](const std::string& k) { return k != content; });
      }
    }
    for (const auto& [blob, size] : blobs) {
      e.size += size;
      if (users[blob].size() == 1) e.unique_size += size;
      if (overlay_blobs.insert(blob).second) out.overlay_bytes += size;
    }
    e.blobs = std::move(blobs);
    for (const auto& key : keys) {
      auto use = read_use(store, std::string(kOverlayTagPrefix) + key);
      if (!use || use->subject.digest.str() != digest) continue;
      if (auto why = implausible_use(*use, now); !why.empty()) {
        out.ignored_uses.push_back({use_tag(std::string(kOverlayTagPrefix) + key), std::move(why)});
        continue;
      }
      if (use->last_used >= e.last_used) {
        e.last_used = use->last_used;
        if (!use->base_name.empty()) e.base_name = use->base_name;
      }
      if (e.first_used == 0 || use->first_used < e.first_used) e.first_used = use->first_used;
    }
    out.overlays.push_back(std::move(e));
  }
  std::stable_sort(out.overlays.begin(), out.overlays.end(),
                   [](const auto& a, const auto& b) { return a.last_used > b.last_used; });
  return out;
}

}  // namespace strata::layer
