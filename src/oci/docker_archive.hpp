// The docker-archive side of ArchiveStore: reading the manifest.json that
// `docker save` (before Docker 25) and skopeo write, synthesising a Docker
// schema 2 manifest per image, and writing manifest.json + repositories
// beside an OCI layout so `docker load` and `podman load` accept the archive.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "oci/layout_store.hpp"
#include "oci/reference.hpp"

namespace strata::oci {

// One image of a docker-archive's manifest.json: member names (relative,
// "./" stripped, never leaving the archive) and the RepoTags as written.
struct DockerArchiveImage {
  std::string config;
  std::vector<std::string> layers;
  std::vector<std::string> repo_tags;
};

// Parses manifest.json (at most kMaxManifestBytes). Refuses a document that
// is not an array of objects with Config and Layers, and member names that
// are absolute or climb out of the archive. `where` names the archive.
Result<std::vector<DockerArchiveImage>> parse_docker_manifest_json(std::string_view text, const std::string& where);

// Imports each image manifest.json in `staging` names into `layout`, tagged
// with its RepoTags (normalised references). `where` names the archive.
Result<void> import_docker_manifest_json(const std::filesystem::path& staging, LayoutStore& layout,
                                         const std::string& where);

// Writes manifest.json and repositories for the tagged images of `layout`
// into `staging`. Refuses indexes: a docker-archive holds single-platform images.
Result<void> write_docker_manifest_json(LayoutStore& layout, const std::filesystem::path& staging,
                                        const std::string& where);

// "docker.io/library/debian:12" → "debian:12", as `docker images` shows it.
std::string familiar_name(const DockerReference& ref);

// Archive member names must stay inside the extraction directory.
bool safe_relative(std::string_view name);
std::string strip_dot_slash(std::string name);

}  // namespace strata::oci
