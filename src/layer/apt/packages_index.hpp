// Packages indexes: fetched as the Release lists them (xz, gz, bz2, plain;
// by hash when the archive supports it), verified against the SHA256 of the
// *uncompressed* index in the signed Release, and kept in
// $STRATA_HOME/indexes/sha256/<hex> so a verified index is reused without
// touching the network. A file is visible under its hash only once verified.
// Thread-safe if the Transport is.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "layer/apt/apt_sources.hpp"
#include "layer/debian/package.hpp"
#include "layer/apt/release.hpp"
#include "oci/http/transport.hpp"

namespace strata::layer {

// GETs `url` into memory (at most `max_bytes`). nullopt for 404/410; an error
// for other non-2xx statuses, naming the URL.
Result<std::optional<std::string>> http_get(oci::http::Transport& transport, const std::string& url,
                                            std::size_t max_bytes);

// The same with request headers (a conditional GET): the status (2xx, or
// 304 Not Modified), the response headers and the body.
struct HttpGot {
  int status = 0;
  oci::http::Headers headers;
  std::string body;
};
Result<std::optional<HttpGot>> http_get(oci::http::Transport& transport, const std::string& url,
                                        std::size_t max_bytes, const oci::http::Headers& headers);

struct IndexRequest {
  std::string dist_url;   // URI/dists/SUITE
  std::string path;       // "main/binary-amd64/Packages", relative to dist_url
  ByHash by_hash = ByHash::kAuto;
  std::filesystem::path cache_dir;  // $STRATA_HOME/indexes
};

// The verified, uncompressed index text and its SHA256.
struct VerifiedIndex {
  std::string text;
  std::string sha256;
  bool from_cache = false;
};

// `accept` sees the verified text before it is cached (the caller parses it
// there), so an index that verifies but does not parse is never cached.
Result<VerifiedIndex> fetch_packages_index(oci::http::Transport& transport, const Release& release,
                                           const IndexRequest& request,
                                           const std::function<Result<void>(const VerifiedIndex&)>& accept);

// Parses a verified Packages index. `origin` names it in errors.
Result<std::vector<Package>> parse_packages_index(std::string_view text, std::string_view origin);

}  // namespace strata::layer
