// docker-daemon:NAME[:TAG] and podman:NAME[:TAG]: images in the Docker
// Engine's or podman's store, through their HTTP APIs on a unix socket.
//
// Where: DOCKER_HOST (default unix:///var/run/docker.sock) for Docker;
// CONTAINER_HOST, else podman's rootful socket /run/podman/podman.sock (as
// root) or the rootless $XDG_RUNTIME_DIR/podman/podman.sock. `unix://PATH`
// and `tcp://HOST:PORT` (plain HTTP, as the daemons serve it) are spoken;
// `ssh://` is refused with what to do instead. Opening asks GET /_ping and
// speaks the version it answers (Api-Version; podman's Libpod-Api-Version;
// DOCKER_API_VERSION pins Docker's), refusing one older than strata needs.
//
// Writing: blobs the copy engine offers from a local file (link_blob with
// the source's blob_file, an OCI layout's) are held open and recorded, not
// copied; other blobs are staged, verified on commit, in a directory under
// $STRATA_HOME/tmp removed at close. close() sends the images as ONE tar
// body made as it is sent (layout_tar.hpp's writer into a bounded pipe: no
// archive on disk): a docker-archive in Docker 25+'s layout (oci-layout,
// index.json, blobs/sha256/…, and manifest.json pointing into blobs/ plus
// repositories), which Docker's classic and containerd stores and podman
// load. A linked blob is verified as it is sent. Docker gets it on
// POST /images/load (its JSON message stream is read for errors), podman on
// POST /libpod/images/load (the names it reports are checked); then each
// image is inspected: its ID must be the config's digest. A failure before
// the last byte (a blob that does not verify, the daemon gone) ends the
// request without the end of the body, so the daemon loads nothing: both
// read the whole body before they register anything. A daemon gone after
// the whole body may have loaded it; the error says so rather than
// claiming it did not.
//
// What the daemons keep: Docker's classic store and podman's
// containers/storage keep the config (image ID = config digest) and the
// layers' uncompressed contents (diff IDs), not the manifest or compressed
// layers, so an image read back has the same config and diff IDs but a
// manifest and layer blobs of the daemon's making.
//
// Reading: when a tag is first resolved, GET /images/{name}/get (Docker: a
// docker-archive) or /libpod/images/{name}/get?format=oci-archive (podman)
// is streamed into the staging directory, bounded by its free space, and
// read as an archive (ArchiveStore, with its limits and checks); a missing
// image is kNotFound naming the image and the socket. Opening asks for no
// image, so `strata tags` needs none.
//
// has_blob knows only the blobs written in this session (the APIs cannot
// be asked by digest); list_tags reads GET /images/json; delete_manifest is
// kUnsupported. Every error is one line naming the store and the socket and
// what to do next. Thread-safe except close().
#pragma once

#include <memory>
#include <string>

#include "oci/open_store.hpp"
#include "oci/reference.hpp"
#include "oci/store.hpp"

namespace strata::oci::daemon {

enum class Daemon { kDocker, kPodman };

// Where a daemon's API is reached.
struct Endpoint {
  std::string socket;    // the unix socket's path; empty for tcp://
  std::string base_url;  // "http://localhost" (unix socket) or "http://HOST:PORT"
  std::string shown;     // how messages name it: the socket path, or tcp://HOST:PORT
  bool from_env = false; // DOCKER_HOST / CONTAINER_HOST chose it
};

// The endpoint DOCKER_HOST / CONTAINER_HOST (or the default) names; `what`
// names the store in errors (an ssh:// or unknown scheme).
Result<Endpoint> daemon_endpoint(Daemon daemon, const std::string& what);

// The API version strata speaks with a daemon answering `advertised`
// (Api-Version, "1.41"; for podman Libpod-Api-Version, "4.3.1"): nullopt
// when it is older than strata needs.
std::optional<std::string> negotiate_api_version(Daemon daemon, std::string_view advertised);

Result<std::unique_ptr<Store>> open_daemon_store(Daemon daemon, const DockerReference& ref, Access access,
                                                 const OpenOptions& options);

}  // namespace strata::oci::daemon
