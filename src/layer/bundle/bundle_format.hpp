// The bundle format (docs/format/bundle.md): what one OCI layout carries
// across an air gap, and the index that names and checksums all of it.
//
//   index.json                 the images, each tagged with its full name
//                              ("registry/repo:tag"), and the bundle index
//                              tagged `strata-bundle`
//   the bundle index           an OCI image index, artifactType
//                              application/vnd.strata.bundle.v1, listing every
//                              image, lock and .deb by digest and size (the
//                              manifest of checksums), in a fixed order
//   a lock                     an artifact manifest (artifactType
//                              application/vnd.strata.lock.v1) whose one layer
//                              is the lock file's exact bytes
//   a .deb                     an artifact manifest (artifactType
//                              application/vnd.strata.deb.v1) whose one layer
//                              is the package, digest sha256:<its SHA256>, with
//                              package, version, architecture, filename and
//                              sha256 annotations
//   a toolchain                an artifact manifest (artifactType
//                              application/vnd.strata.toolchain.v1) whose
//                              layers are the release record (JSON: tool,
//                              version, arch, source, archives with url,
//                              algorithm, hex, verified_by) and then each
//                              verified archive, in the record's order
//
// Pure functions: the same contents always give the same bytes. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "layer/apt/lock_file.hpp"
#include "layer/toolchain/release.hpp"
#include "oci/manifest.hpp"

namespace strata::layer {

inline constexpr std::string_view kBundleTag = "strata-bundle";
inline constexpr std::string_view kBundleArtifactType = "application/vnd.strata.bundle.v1";
inline constexpr std::string_view kLockArtifactType = "application/vnd.strata.lock.v1";
inline constexpr std::string_view kDebArtifactType = "application/vnd.strata.deb.v1";
inline constexpr std::string_view kLockMediaType = "application/vnd.strata.lock.v1+yaml";
inline constexpr std::string_view kDebMediaType = "application/vnd.debian.binary-package";
inline constexpr std::string_view kToolchainArtifactType = "application/vnd.strata.toolchain.v1";
inline constexpr std::string_view kToolchainRecordMediaType = "application/vnd.strata.toolchain.release.v1+json";
inline constexpr std::string_view kToolchainArchiveMediaType = "application/vnd.strata.toolchain.archive.v1";
inline constexpr std::string_view kBundleFormat = "1";

// Annotations of the bundle index's entries (and of the artifacts).
inline constexpr std::string_view kAnnotationBundleFormat = "dev.strata.bundle.format";
inline constexpr std::string_view kAnnotationKind = "dev.strata.bundle.kind";  // image | referrer | lock | deb | toolchain
inline constexpr std::string_view kAnnotationName = "dev.strata.bundle.name";
inline constexpr std::string_view kAnnotationSource = "dev.strata.bundle.source";
// A referrer's entry: the digest of the image manifest (or index) it refers to.
inline constexpr std::string_view kAnnotationSubject = "dev.strata.bundle.subject";
inline constexpr std::string_view kAnnotationLockPlatform = "dev.strata.lock.platform";
inline constexpr std::string_view kAnnotationDebPackage = "dev.strata.deb.package";
inline constexpr std::string_view kAnnotationDebVersion = "dev.strata.deb.version";
inline constexpr std::string_view kAnnotationDebArch = "dev.strata.deb.architecture";
inline constexpr std::string_view kAnnotationDebFilename = "dev.strata.deb.filename";
inline constexpr std::string_view kAnnotationDebSha256 = "dev.strata.deb.sha256";
inline constexpr std::string_view kAnnotationToolchainTool = "dev.strata.bundle.toolchain.tool";
inline constexpr std::string_view kAnnotationToolchainVersion = "dev.strata.bundle.toolchain.version";
inline constexpr std::string_view kAnnotationToolchainArch = "dev.strata.bundle.toolchain.arch";
inline constexpr std::string_view kAnnotationToolchainSource = "dev.strata.bundle.toolchain.source";
// On an archive layer: the digest its project publishes (sha256:… or sha512:…).
inline constexpr std::string_view kAnnotationToolchainDigest = "dev.strata.bundle.toolchain.digest";
inline constexpr std::string_view kAnnotationTitle = "org.opencontainers.image.title";

// Entries a bundle index may hold (each is one descriptor of about 500 bytes,
// and the index is read as one manifest, at most 4 MiB).
inline constexpr std::size_t kMaxBundleEntries = 7000;

struct BundleImage {
  std::string name;    // "registry/repository:tag" (or "@sha256:…"): where a load puts it
  std::string source;  // the reference it was copied from
  oci::Descriptor root;
};

// A manifest that refers to one of the bundle's images or its platforms
// (an SBOM, a provenance, a signature), carried with it by `--referrers`.
struct BundleReferrer {
  oci::Digest subject = oci::Digest::sha256_of("");  // an image's root, or a manifest its index names
  oci::Descriptor manifest;   // media type, digest, size, artifactType
};

struct BundleLock {
  std::string name;      // the lock file's name ("overlay.lock")
  std::string platform;  // the lock's platform
  oci::Descriptor manifest;
};

struct BundleDeb {
  std::string package, version, architecture, filename, sha256;
  std::int64_t size = 0;
  oci::Descriptor manifest;
};

struct BundleToolchain {
  std::string tool, version, arch;
  std::string source;  // Source::describe(): the URL, or npm:URL
  oci::Descriptor manifest;
};

struct BundleContents {
  std::vector<BundleImage> images;
  std::vector<BundleReferrer> referrers;
  std::vector<BundleLock> locks;
  std::vector<BundleDeb> debs;
  std::vector<BundleToolchain> toolchains;
};

// The name a bundle gives an image copied from `source` towards
// `destination` (a mirror entry): the destination's registry reference, else
// the source's; one of them must be a registry reference.
Result<std::string> bundle_image_name(std::string_view source, std::string_view destination);

// The config every artifact names: the empty descriptor ("{}").
oci::Descriptor empty_config();
inline constexpr std::string_view kEmptyConfigBytes = "{}";

// The artifact manifest of a lock file (`content` describes its bytes) and
// of one package of a lock (its layer is the .deb itself).
oci::RawManifest lock_artifact(const std::string& name, const std::string& platform, const oci::Descriptor& content);
oci::RawManifest deb_artifact(const LockPackage& package);

// The artifact manifest of a toolchain release: `record` describes the
// release record's bytes, `archives` each archive's bytes (sha256), in the
// release's order.
oci::RawManifest toolchain_artifact(const toolchain::Release& release, const oci::Descriptor& record,
                                    const std::vector<oci::Descriptor>& archives);

// The bundle's order: images by name, referrers by subject, artifact type
// and digest, locks by name, .debs by package,
// architecture, version and sha256, toolchains by tool, version, arch and source.
void sort_bundle_contents(BundleContents& contents);
// The bundle index, entries in that order.
oci::RawManifest bundle_index(BundleContents contents);
// Reads a bundle index back, validating every entry; `where` names it.
Result<BundleContents> parse_bundle_index(std::string_view bytes, std::string_view where);

// Checks an artifact manifest read from a bundle against its entry: the
// artifact type, one layer, and (for a .deb) the layer is the package the
// entry names. Returns the layer.
Result<oci::Descriptor> artifact_layer(const oci::ParsedManifest& parsed, std::string_view artifact_type,
                                       std::string_view where);

}  // namespace strata::layer
