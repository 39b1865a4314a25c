// The InRelease of a dist URL as last fetched on this machine, with when it
// was last confirmed current and the validators to ask the archive whether
// it changed since: $STRATA_HOME/releases/by-url/<sha256 of the dist URL>.
// `--offline` uses it whatever its age; otherwise it spares the network
// within `--index-max-age`, and past it makes the revalidation a
// conditional GET (If-None-Match / If-Modified-Since; a 304 keeps the
// bytes). The bytes are verified (gpgv, or its remembered result) and the
// Release checked (Date, Valid-Until) as if just fetched, on every run.
//
// File: the dist URL on the first line; then "#strata-remembered 2", then
// "checked <unix seconds>", then optional "etag <value>" and
// "last-modified <value>" lines, then an empty line; then the InRelease
// bytes. A file of the first form (URL line, then the bytes) reads as never
// confirmed. Written atomically; read bounded. Thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "oci/http/transport.hpp"
#include "util/error.hpp"

namespace strata::layer {

struct RememberedRelease {
  std::string bytes;            // the InRelease as served
  std::int64_t checked = 0;     // when the archive last served or confirmed it (0: unknown)
  std::string etag, last_modified;  // validators the archive sent with it
};

std::filesystem::path remembered_release_path(const std::filesystem::path& home, const std::string& dist);

// nullopt: never fetched here (or the file names another URL, or is damaged).
std::optional<RememberedRelease> read_remembered_release(const std::filesystem::path& home, const std::string& dist,
                                                         std::size_t max_bytes);
// Best effort: without it only an offline or a fresh run loses.
void remember_release(const std::filesystem::path& home, const std::string& dist, const RememberedRelease& r);

// Whether `r` was confirmed less than `max_age` seconds before `now`
// (never when max_age is 0, or when its time is in the future).
bool is_fresh(const RememberedRelease& r, std::int64_t now, std::int64_t max_age);

// GET `url`, conditional on `known` when given: the body of a 200 (with its
// validators), `known`'s bytes on a 304, nullopt for 404/410; an error for
// other statuses, naming the URL. `checked` is set to `now`.
Result<std::optional<RememberedRelease>> fetch_release(oci::http::Transport& transport, const std::string& url,
                                                       const RememberedRelease* known, std::size_t max_bytes,
                                                       std::int64_t now);

}  // namespace strata::layer
