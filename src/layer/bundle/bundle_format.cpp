#include "layer/bundle/bundle_format.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <variant>

#include "oci/media_types.hpp"
#include "oci/reference.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

std::string annotation(const oci::Descriptor& d, std::string_view key) {
  auto it = d.annotations.find(std::string(key));
  return it == d.annotations.end() ? std::string() : it->second;
}

bool is_hex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// A lock's name is a file name: no directory, nothing a load could write
// outside the directory it is given.
bool is_plain_file_name(std::string_view s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string_view::npos &&
         s.find('\0') == std::string_view::npos && s.size() <= 255;
}

oci::RawManifest artifact(std::string_view artifact_type, oci::Descriptor layer,
                          std::map<std::string, std::string> annotations) {
  oci::ImageManifest m;
  m.media_type = std::string(oci::media::kOciManifest);
  m.artifact_type = std::string(artifact_type);
  m.config = empty_config();
  m.layers = {std::move(layer)};
  m.annotations = std::move(annotations);
  return oci::make_raw_manifest(m.media_type, oci::serialize(m));
}

std::map<std::string, std::string> deb_annotations(const LockPackage& p) {
  return {{std::string(kAnnotationDebPackage), p.name},
          {std::string(kAnnotationDebVersion), p.version},
          {std::string(kAnnotationDebArch), p.architecture},
          {std::string(kAnnotationDebFilename), p.filename},
          {std::string(kAnnotationDebSha256), p.sha256}};
}

}  // namespace

Result<std::string> bundle_image_name(std::string_view source, std::string_view destination) {
  for (auto text : {destination, source}) {
    STRATA_TRY(auto ref, oci::parse_image_ref(text));
    if (ref.transport != oci::Transport::kDocker) continue;
    const auto& d = ref.docker;
    std::string name = d.name();
    if (d.tag) return name + ":" + *d.tag;
    if (d.digest) return name + "@" + d.digest->str();
    return name + ":" + std::string(oci::kDefaultTag);
  }
  return fail(ErrorCode::kInvalidArgument,
              str::quote(source) + " → " + str::quote(destination) +
                  ": a bundle names each image by its registry reference, so a load knows where it goes; give "
                  "the entry a docker:// source or destination");
}

oci::Descriptor empty_config() { return oci::descriptor_for(oci::media::kOciEmpty, kEmptyConfigBytes); }

oci::RawManifest lock_artifact(const std::string& name, const std::string& platform, const oci::Descriptor& content) {
  oci::Descriptor layer = content;
  layer.annotations = {{std::string(kAnnotationTitle), name}};
  return artifact(kLockArtifactType, std::move(layer),
                  {{std::string(kAnnotationTitle), name}, {std::string(kAnnotationLockPlatform), platform}});
}

oci::RawManifest deb_artifact(const LockPackage& p) {
  oci::Descriptor layer;
  layer.media_type = std::string(kDebMediaType);
  layer.digest = oci::Digest::from_hex(HashAlgorithm::kSha256, p.sha256);
  layer.size = static_cast<std::int64_t>(p.size);
  layer.annotations = {{std::string(kAnnotationTitle), std::string(str::split(p.filename, '/').back())}};
  return artifact(kDebArtifactType, std::move(layer), deb_annotations(p));
}

std::map<std::string, std::string> toolchain_annotations(const std::string& tool, const std::string& version,
                                                         const std::string& arch, const std::string& source) {
  return {{std::string(kAnnotationToolchainTool), tool},
          {std::string(kAnnotationToolchainVersion), version},
          {std::string(kAnnotationToolchainArch), arch},
          {std::string(kAnnotationToolchainSource), source}};
}

oci::RawManifest toolchain_artifact(const toolchain::Release& rel, const oci::Descriptor& record,
                                    const std::vector<oci::Descriptor>& archives) {
  oci::ImageManifest m;
  m.media_type = std::string(oci::media::kOciManifest);
  m.artifact_type = std::string(kToolchainArtifactType);
  m.config = empty_config();
  oci::Descriptor r = record;
  r.media_type = std::string(kToolchainRecordMediaType);
  r.annotations = {{std::string(kAnnotationTitle), rel.tool + "-" + rel.version + "-" + rel.arch + ".json"}};
  m.layers.push_back(std::move(r));
  for (std::size_t i = 0; i < archives.size() && i < rel.archives.size(); ++i) {
    oci::Descriptor a = archives[i];
    a.media_type = std::string(kToolchainArchiveMediaType);
    a.annotations = {{std::string(kAnnotationTitle), rel.archives[i].name},
                     {std::string(kAnnotationToolchainDigest), rel.archives[i].algorithm + ":" + rel.archives[i].hex}};
    m.layers.push_back(std::move(a));
  }
  m.annotations = toolchain_annotations(rel.tool, rel.version, rel.arch, rel.source.describe());
  return oci::make_raw_manifest(m.media_type, oci::serialize(m));
}

void sort_bundle_contents(BundleContents& c) {
  std::sort(c.toolchains.begin(), c.toolchains.end(), [](const auto& a, const auto& b) {
    return std::tie(a.tool, a.version, a.arch, a.source) < std::tie(b.tool, b.version, b.arch, b.source);
  });
  std::sort(c.images.begin(), c.images.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::sort(c.referrers.begin(), c.referrers.end(), [](const auto& a, const auto& b) {
    return std::tie(a.subject, a.manifest.artifact_type, a.manifest.digest) <
           std::tie(b.subject, b.manifest.artifact_type, b.manifest.digest);
  });
  std::sort(c.locks.begin(), c.locks.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::sort(c.debs.begin(), c.debs.end(), [](const auto& a, const auto& b) {
    return std::tie(a.package, a.architecture, a.version, a.sha256) <
           std::tie(b.package, b.architecture, b.version, b.sha256);
  });
}

oci::RawManifest bundle_index(BundleContents c) {
  sort_bundle_contents(c);
  oci::ImageIndex idx;
  idx.media_type = std::string(oci::media::kOciIndex);
  idx.artifact_type = std::string(kBundleArtifactType);
  idx.annotations = {{std::string(kAnnotationBundleFormat), std::string(kBundleFormat)}};
  for (const auto& i : c.images) {
    oci::Descriptor d;
    d.media_type = i.root.media_type;
    d.digest = i.root.digest;
    d.size = i.root.size;
    d.annotations = {{std::string(kAnnotationKind), "image"},
                     {std::string(kAnnotationName), i.name},
                     {std::string(kAnnotationSource), i.source}};
    idx.manifests.push_back(std::move(d));
  }
  for (const auto& r : c.referrers) {
    oci::Descriptor d;
    d.media_type = r.manifest.media_type;
    d.digest = r.manifest.digest;
    d.size = r.manifest.size;
    d.artifact_type = r.manifest.artifact_type;
    d.annotations = {{std::string(kAnnotationKind), "referrer"}, {std::string(kAnnotationSubject), r.subject.str()}};
    idx.manifests.push_back(std::move(d));
  }
  for (const auto& l : c.locks) {
    oci::Descriptor d = l.manifest;
    d.artifact_type = std::string(kLockArtifactType);
    d.annotations = {{std::string(kAnnotationKind), "lock"},
                     {std::string(kAnnotationTitle), l.name},
                     {std::string(kAnnotationLockPlatform), l.platform}};
    idx.manifests.push_back(std::move(d));
  }
  for (const auto& p : c.debs) {
    oci::Descriptor d = p.manifest;
    d.artifact_type = std::string(kDebArtifactType);
    LockPackage lp;
    lp.name = p.package;
    lp.version = p.version;
    lp.architecture = p.architecture;
    lp.filename = p.filename;
    lp.sha256 = p.sha256;
    d.annotations = deb_annotations(lp);
    d.annotations[std::string(kAnnotationKind)] = "deb";
    idx.manifests.push_back(std::move(d));
  }
  for (const auto& t : c.toolchains) {
    oci::Descriptor d = t.manifest;
    d.artifact_type = std::string(kToolchainArtifactType);
    d.annotations = toolchain_annotations(t.tool, t.version, t.arch, t.source);
    d.annotations[std::string(kAnnotationKind)] = "toolchain";
    idx.manifests.push_back(std::move(d));
  }
  return oci::make_raw_manifest(idx.media_type, oci::serialize(idx));
}

Result<BundleContents> parse_bundle_index(std::string_view bytes, std::string_view where) {
  const std::string w(where);
  STRATA_TRY(auto parsed, oci::parse_manifest(bytes, oci::media::kOciIndex, where));
  auto* idx = std::get_if<oci::ImageIndex>(&parsed);
  if (idx == nullptr || idx->artifact_type != kBundleArtifactType) {
    return fail(ErrorCode::kInvalidArgument,
                w + " is not a strata bundle index (artifactType " + std::string(kBundleArtifactType) + ")");
  }
  auto format = idx->annotations.find(std::string(kAnnotationBundleFormat));
  if (format == idx->annotations.end() || format->second != kBundleFormat) {
    return fail(ErrorCode::kUnsupported, w + ": bundle format " +
                                             (format == idx->annotations.end() ? "(none)" : str::quote(format->second)) +
                                             " is not one this strata reads (" + std::string(kBundleFormat) +
                                             "); load it with the strata that created it");
  }
  if (idx->manifests.size() > kMaxBundleEntries) {
    return fail(ErrorCode::kInvalidArgument, w + ": " + std::to_string(idx->manifests.size()) + " entries, over " +
                                                 std::to_string(kMaxBundleEntries));
  }
  BundleContents c;
  std::set<std::string> names;
  for (std::size_t i = 0; i < idx->manifests.size(); ++i) {
    const auto& d = idx->manifests[i];
    const std::string at = w + ": entry " + std::to_string(i);
    if (!d.digest.verifiable()) return fail(ErrorCode::kInvalidArgument, at + ": digest " + d.digest.str() + " cannot be verified");
    const std::string kind = annotation(d, kAnnotationKind);
    if (kind == "image") {
      BundleImage img;
      img.name = annotation(d, kAnnotationName);
      img.source = annotation(d, kAnnotationSource);
      auto ref = oci::parse_docker_reference(img.name);
      if (!ref) return fail(ref.error().context(at + ": image name"));
      if (!oci::media::is_manifest_or_index(d.media_type))
        return fail(ErrorCode::kInvalidArgument, at + ": image " + img.name + " has media type " + d.media_type);
      if (!names.insert("image:" + img.name).second)
        return fail(ErrorCode::kInvalidArgument, at + ": image " + img.name + " is listed twice");
      img.root = d;
      img.root.annotations.clear();
      c.images.push_back(std::move(img));
    } else if (kind == "referrer") {
      BundleReferrer ref;
      auto subject = oci::Digest::parse(annotation(d, kAnnotationSubject));
      if (!subject || !subject->verifiable())
        return fail(ErrorCode::kInvalidArgument, at + ": a referrer entry needs the sha256 digest of its subject (" +
                                                      std::string(kAnnotationSubject) + ")");
      if (!oci::media::is_image_manifest(d.media_type))
        return fail(ErrorCode::kInvalidArgument, at + ": referrer " + d.digest.str() + " has media type " +
                                                      d.media_type + "; a bundle carries referrers that are manifests");
      if (!names.insert("referrer:" + d.digest.str() + " " + subject->str()).second)
        return fail(ErrorCode::kInvalidArgument, at + ": referrer " + d.digest.str() + " is listed twice");
      ref.subject = *subject;
      ref.manifest = d;
      ref.manifest.annotations.clear();
      c.referrers.push_back(std::move(ref));
    } else if (kind == "lock") {
      BundleLock l;
      l.name = annotation(d, kAnnotationTitle);
      l.platform = annotation(d, kAnnotationLockPlatform);
      if (!is_plain_file_name(l.name))
        return fail(ErrorCode::kInvalidArgument, at + ": lock name " + str::quote(l.name) + " is not a file name");
      if (!names.insert("lock:" + l.name).second)
        return fail(ErrorCode::kInvalidArgument, at + ": lock " + l.name + " is listed twice");
      l.manifest = d;
      c.locks.push_back(std::move(l));
    } else if (kind == "deb") {
      BundleDeb p;
      p.package = annotation(d, kAnnotationDebPackage);
      p.version = annotation(d, kAnnotationDebVersion);
      p.architecture = annotation(d, kAnnotationDebArch);
      p.filename = annotation(d, kAnnotationDebFilename);
      p.sha256 = annotation(d, kAnnotationDebSha256);
      if (p.package.empty() || p.version.empty() || p.architecture.empty() || !is_hex64(p.sha256))
        return fail(ErrorCode::kInvalidArgument, at + ": a .deb entry needs package, version, architecture and a "
                                                      "sha256 of 64 lowercase hex digits");
      if (!names.insert("deb:" + p.sha256).second)
        return fail(ErrorCode::kInvalidArgument, at + ": .deb " + p.sha256 + " is listed twice");
      p.manifest = d;
      c.debs.push_back(std::move(p));
    } else if (kind == "toolchain") {
      BundleToolchain t;
      t.tool = annotation(d, kAnnotationToolchainTool);
      t.version = annotation(d, kAnnotationToolchainVersion);
      t.arch = annotation(d, kAnnotationToolchainArch);
      t.source = annotation(d, kAnnotationToolchainSource);
      if (!toolchain::is_toolchain_tool(t.tool) || !toolchain::is_release_version(t.version) || t.arch.empty() ||
          t.arch.size() > 32 || t.arch.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789") != std::string::npos ||
          t.source.empty())
        return fail(ErrorCode::kInvalidArgument, at + ": a toolchain entry needs a tool strata installs (" +
                                                      std::string(toolchain::kToolchainTools) +
                                                      "), a release version, an arch and a source");
      if (!names.insert("toolchain:" + t.tool + " " + t.version + " " + t.arch + " " + t.source).second)
        return fail(ErrorCode::kInvalidArgument, at + ": toolchain " + t.tool + " " + t.version + " " + t.arch +
                                                      " from " + t.source + " is listed twice");
      t.manifest = d;
      c.toolchains.push_back(std::move(t));
    } else {
      return fail(ErrorCode::kInvalidArgument,
                  at + ": unknown kind " + str::quote(kind) + " (image, referrer, lock, deb or toolchain)");
    }
  }
  return c;
}

Result<oci::Descriptor> artifact_layer(const oci::ParsedManifest& parsed, std::string_view artifact_type,
                                       std::string_view where) {
  const auto* m = std::get_if<oci::ImageManifest>(&parsed);
  if (m == nullptr || m->artifact_type != artifact_type || m->layers.size() != 1) {
    return fail(ErrorCode::kCorruption, std::string(where) + ": not an artifact of type " + std::string(artifact_type) +
                                            " with one layer");
  }
  if (!m->layers[0].digest.verifiable())
    return fail(ErrorCode::kCorruption, std::string(where) + ": its layer's digest cannot be verified");
  return m->layers[0];
}

}  // namespace strata::layer
