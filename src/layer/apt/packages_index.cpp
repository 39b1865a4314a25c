#include "layer/apt/packages_index.hpp"

#include "layer/apt/decompress.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

Result<std::optional<HttpGot>> http_get(oci::http::Transport& transport, const std::string& url,
                                        std::size_t max_bytes, const oci::http::Headers& headers) {
  oci::StringSink sink(max_bytes);
  oci::http::Request req;
  req.url = url;
  req.sink = &sink;
  req.headers = headers;
  auto resp = transport.send(req);
  if (!resp) return std::unexpected(resp.error().context("GET " + url));
  if (resp->status == 404 || resp->status == 410) return std::optional<HttpGot>{};
  if ((resp->status < 200 || resp->status > 299) && resp->status != 304) {
    return fail(resp->status >= 500 || resp->status == 429 ? ErrorCode::kUnavailable : ErrorCode::kFailedPrecondition,
                "GET " + url + ": HTTP " + std::to_string(resp->status));
  }
  return std::optional<HttpGot>(HttpGot{resp->status, std::move(resp->headers), std::move(sink.str())});
}

Result<std::optional<std::string>> http_get(oci::http::Transport& transport, const std::string& url,
                                            std::size_t max_bytes) {
  STRATA_TRY(auto got, http_get(transport, url, max_bytes, oci::http::Headers{}));
  if (!got) return std::optional<std::string>{};
  if (got->status == 304) {
    return fail(ErrorCode::kFailedPrecondition, "GET " + url + ": HTTP 304 to an unconditional request");
  }
  return std::optional<std::string>(std::move(got->body));
}

Result<VerifiedIndex> fetch_packages_index(oci::http::Transport& transport, const Release& release,
                                           const IndexRequest& req,
                                           const std::function<Result<void>(const VerifiedIndex&)>& accept) {
  std::string what = req.dist_url + "/" + req.path;
  auto plain = release.sha256.find(req.path);
  if (plain == release.sha256.end()) {
    return fail(ErrorCode::kFailedPrecondition,
                what + ": the signed Release lists no SHA256 for the uncompressed index; refusing to use it");
  }
  const ReleaseEntry& want = plain->second;
  stdfs::path cached = req.cache_dir / "sha256" / want.sha256;
  std::error_code ec;
  if (stdfs::exists(cached, ec)) {
    STRATA_TRY(std::string text, fs::read_file(cached, want.size + 1));
    if (text.size() == want.size && sha256_hex(text) == want.sha256) {
      fs::mark_used(cached);  // `cache gc` evicts the least recently used
      VerifiedIndex v{std::move(text), want.sha256, true};
      STRATA_TRY_VOID(accept(v));
      return v;
    }
    STRATA_TRY_VOID(fs::remove_file(cached));  // damaged cache entry: fetch again
  }
  std::string last_error = "the Release lists no compressed form";
  for (const char* ext : {".xz", ".gz", ".bz2", ""}) {
    auto entry = release.sha256.find(req.path + ext);
    if (entry == release.sha256.end()) continue;
    bool by_hash = req.by_hash == ByHash::kForce || (req.by_hash != ByHash::kNo && release.acquire_by_hash);
    std::string dir = req.path.substr(0, req.path.rfind('/') + 1);
    std::string url = by_hash ? req.dist_url + "/" + dir + "by-hash/SHA256/" + entry->second.sha256
                              : req.dist_url + "/" + req.path + ext;
    STRATA_TRY(auto body, http_get(transport, url, entry->second.size + 1));
    if (!body) {
      last_error = url + " is missing (HTTP 404)";
      continue;
    }
    if (body->size() != entry->second.size || sha256_hex(*body) != entry->second.sha256) {
      return fail(ErrorCode::kFailedPrecondition,
                  url + ": size or SHA256 does not match the signed Release (mirror out of sync or tampered); "
                        "nothing was cached");
    }
    STRATA_TRY(std::string text, decompress_index(*body, url, want.size));
    if (text.size() != want.size || sha256_hex(text) != want.sha256) {
      return fail(ErrorCode::kFailedPrecondition,
                  what + ": the uncompressed index does not match the SHA256 in the signed Release; nothing was cached");
    }
    VerifiedIndex v{std::move(text), want.sha256, false};
    STRATA_TRY_VOID(accept(v));
    STRATA_TRY_VOID(fs::make_dirs(cached.parent_path()));
    STRATA_TRY_VOID(fs::write_file_atomic(cached, v.text));
    return v;
  }
  return fail(ErrorCode::kNotFound, what + ": cannot fetch the index: " + last_error);
}

Result<std::vector<Package>> parse_packages_index(std::string_view text, std::string_view origin) {
  std::vector<Package> out;
  STRATA_TRY_VOID(for_each_deb822_stanza(text, origin, [&](Deb822Stanza&& s) -> Result<void> {
    STRATA_TRY(Package p, package_from_stanza(s, StanzaKind::kPackagesIndex, origin));
    out.push_back(std::move(p));
    return {};
  }));
  return out;
}

}  // namespace strata::layer
