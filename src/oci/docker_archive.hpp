// The docker-archive side of ArchiveStore: reading the manifest.json that
// `docker save` (before Docker 25) and skopeo write, synthesising a Docker
// schema 2 manifest per image, and writing manifest.json + repositories
// beside an OCI layout so `docker load` and `podman load` accept the archive.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "oci/layout_store.hpp"
#include "oci/reference.hpp"

namespace strata::oci {

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
