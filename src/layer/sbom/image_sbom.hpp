// What an image holds, as a bill of materials states it: its layers, its
// Debian distribution, and every installed Debian package with the layer it
// lives in, its source package, maintainer and licence. Read from the image
// itself — its dpkg database and copyright files, layers applied in order —
// without running it; the same facts whether strata built the image or not.
// A builder that knows more (each .deb's sha256 and URL) adds it.
//
// The documents written from it (spdx.hpp, cyclonedx.hpp) are functions of
// this value alone: the same image gives the same bytes on any machine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "oci/image_fs.hpp"
#include "oci/manifest.hpp"
#include "oci/platform.hpp"
#include "util/error.hpp"

namespace strata::oci {
class Store;
}

namespace strata::layer::sbom {

struct SbomLayer {
  oci::Descriptor descriptor;  // the layer blob as the manifest names it
  std::string diff_id;         // "sha256:…" of the uncompressed tar
};

struct SbomPackage {
  std::string name;
  std::string version;
  std::string architecture;
  std::string source;          // source package (the binary's own name when dpkg says none)
  std::string source_version;
  std::string maintainer;      // "Name <email>", verbatim; empty when absent
  std::string homepage;        // an http(s) URL, else empty
  std::string license;         // SPDX expression from a DEP-5 copyright file; empty: not stated
  std::size_t layer = 0;       // index into ImageSbom::layers
  // Known to the builder only (the lock): the .deb's sha256 and URL.
  std::string deb_sha256;
  std::string deb_url;
};

// A runtime strata installed as a toolchain layer (provision's task
// toolchains), read from the image's dev.strata.toolchain.<tool> annotation:
// its files are outside dpkg's database.
struct SbomToolchain {
  std::string tool;     // node, go, rust, python, java, dotnet
  std::string version;  // the exact release
  std::string source;   // where strata took it from (a URL, or npm:REGISTRY)
  struct Archive {
    std::string url;
    std::string algorithm;  // sha256 | sha512
    std::string hex;
  };
  std::vector<Archive> archives;
  std::size_t layer = 0;  // index into ImageSbom::layers
};

struct ImageSbom {
  oci::Descriptor image;       // the platform's image manifest
  oci::Platform platform;      // from the config
  std::string created;         // the config's `created`, as YYYY-MM-DDThh:mm:ssZ (1970-01-01T00:00:00Z when absent)
  std::vector<SbomLayer> layers;
  std::string distro_id;       // os-release ID ("debian"), empty when the image has none
  std::string distro_version;  // os-release VERSION_ID ("12")
  std::string distro_codename; // os-release VERSION_CODENAME ("bookworm")
  bool dpkg_database = false;  // false: the image has none, so its packages are unknown
  std::vector<SbomPackage> packages;  // sorted by name, then architecture
  std::vector<SbomToolchain> toolchains;  // sorted by tool
  std::string tool;            // "strata-<version>", the documents' creator
};

// The files an SBOM is read from, as an image's filesystem keeps them: the
// dpkg database and os-release captured, each copyright file summarized
// (copyright_summary). A builder that already holds the filesystem (the
// overlay's, from what it wrote) asks for these too.
oci::ImageFsOptions image_sbom_needs();

// The SBOM of an image whose filesystem (loaded with image_sbom_needs(),
// or a builder's own view of it) is `fs`: `image` is its manifest's
// descriptor, `config` its config.
Result<ImageSbom> image_sbom_of(const oci::ImageFilesystem& fs, const oci::Descriptor& image,
                                const oci::ImageManifest& manifest, const oci::ImageConfig& config,
                                std::string_view where, std::string tool);

// Reads `manifest` (the manifest `raw` holds) from `store`: its config, its
// layers applied in order capturing the dpkg database, os-release and each
// package's /usr/share/doc/<name>/copyright (read for its licence, then
// dropped). A package's layer is the one that last wrote its file list
// (var/lib/dpkg/info/<name>[:<arch>].list; a distroless status.d entry's
// own file), else the one that last wrote the database. Toolchain layers
// come from the manifest's dev.strata.toolchain.* annotations (one that does
// not read as strata writes it, or names no layer of the image, is left
// out). `where` names the image in errors; `tool` is recorded as the
// documents' creator.
Result<ImageSbom> read_image_sbom(oci::Store& store, const oci::RawManifest& raw, const oci::ImageManifest& manifest,
                                  std::string_view where, std::string tool);

// "2024-05-01T12:00:00.123+02:00" → "2024-05-01T10:00:00Z" (also "+0200");
// nullopt when not RFC 3339 or a field is out of range.
std::optional<std::string> sbom_time(std::string_view rfc3339);

}  // namespace strata::layer::sbom
