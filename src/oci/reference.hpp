// Image references: Docker-style names ("debian", "ghcr.io/o/r:tag@sha256:…")
// normalised as Docker does, and the transports users know from skopeo
// (docker://, oci:, oci-archive:, docker-archive:, scratch).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "oci/digest.hpp"

namespace strata::oci {

inline constexpr std::string_view kDefaultRegistry = "docker.io";
inline constexpr std::string_view kDefaultTag = "latest";

struct DockerReference {
  std::string registry;    // "docker.io", "localhost:5000", "127.0.0.1:41233"
  std::string repository;  // "library/debian"
  std::optional<std::string> tag;
  std::optional<Digest> digest;
  // The text named the registry host ("registry.internal/…", "localhost:5000/…",
  // "docker.io/…"); false when docker.io was implied by a bare name ("debian").
  bool registry_named = false;

  // registry/repository
  std::string name() const;
  // The tag or digest the reference selects: the digest when both are given
  // (the digest pins the content), else the tag, else "latest".
  std::string tag_or_digest() const;
  // The normalised full reference: "docker.io/library/debian:latest".
  std::string str() const;
};

// Parses and normalises a Docker reference. Rejects uppercase repositories,
// empty or "."/".." path components, invalid tags and digests, and names over
// 255 characters, naming the input.
Result<DockerReference> parse_docker_reference(std::string_view text);

// Validates a tag ("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}").
bool is_valid_tag(std::string_view tag);

// kLocal is strata's embedded default store: `local:NAME[:TAG]` names an image
// in the OCI layout under $STRATA_HOME/images, tagged with its full reference.
// kContainerd, kDockerDaemon and kPodman are a runtime's own image store:
// `containerd:NAME[:TAG|@DIGEST]` (containerd's content and images services),
// `docker-daemon:NAME[:TAG]` (the Docker Engine API), `podman:NAME[:TAG]`
// (podman's API service); NAME normalises like Docker's.
enum class Transport {
  kDocker,
  kOciLayout,
  kOciArchive,
  kDockerArchive,
  kScratch,
  kLocal,
  kContainerd,
  kDockerDaemon,
  kPodman
};

// The transports whose images live in a runtime's store (a daemon's API).
bool is_runtime_store(Transport t);

std::string_view transport_name(Transport t);

struct ImageRef {
  Transport transport = Transport::kDocker;
  DockerReference docker;  // kDocker, kLocal and the runtime stores; for kDockerArchive the optional REF
  std::string path;        // kOciLayout, kOciArchive, kDockerArchive
  std::string ref;         // layout/archive tag or digest; "" when not given
  std::string original;    // the text as given

  // The transport-qualified form ("docker://…", "oci:/dir:tag").
  std::string str() const;
};

// Parses "docker://REF", a bare REF, "oci:DIR[:TAG]", "oci-archive:FILE[:TAG]",
// "docker-archive:FILE[:REF]", "local:NAME[:TAG]", "containerd:NAME[:TAG|@DIGEST]",
// "docker-daemon:NAME[:TAG]", "podman:NAME[:TAG]" or "scratch".
Result<ImageRef> parse_image_ref(std::string_view text);

}  // namespace strata::oci
