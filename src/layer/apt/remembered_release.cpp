#include "layer/apt/remembered_release.hpp"

#include "layer/apt/packages_index.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

constexpr std::string_view kMarker = "#strata-remembered 2";

// A validator as a header line may carry it: no line breaks.
bool header_safe(const std::string& v) { return v.find_first_of("\r\n") == std::string::npos; }

}  // namespace

std::filesystem::path remembered_release_path(const std::filesystem::path& home, const std::string& dist) {
  return home / "releases" / "by-url" / sha256_hex(dist);
}

std::optional<RememberedRelease> read_remembered_release(const std::filesystem::path& home, const std::string& dist,
                                                         std::size_t max_bytes) {
  auto p = remembered_release_path(home, dist);
  std::error_code ec;
  if (!std::filesystem::exists(p, ec)) return std::nullopt;
  auto bytes = fs::read_file(p, max_bytes + 4096);
  if (!bytes) return std::nullopt;
  std::string_view rest(*bytes);
  auto line = [&]() -> std::optional<std::string_view> {
    auto nl = rest.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;
    std::string_view l = rest.substr(0, nl);
    rest.remove_prefix(nl + 1);
    return l;
  };
  auto url = line();
  if (!url || *url != dist) return std::nullopt;
  RememberedRelease out;
  if (rest.starts_with(std::string(kMarker) + "\n")) {
    line();
    for (;;) {
      auto l = line();
      if (!l) return std::nullopt;
      if (l->empty()) break;
      auto sp = l->find(' ');
      std::string_view key = l->substr(0, sp), value = sp == std::string_view::npos ? "" : l->substr(sp + 1);
      if (key == "checked") {
        auto n = str::parse_u64(value);
        if (!n || *n > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
        out.checked = static_cast<std::int64_t>(*n);
      } else if (key == "etag") {
        out.etag = value;
      } else if (key == "last-modified") {
        out.last_modified = value;
      }  // other keys: from a later strata, ignored
    }
  }
  out.bytes = rest;
  return out;
}

void remember_release(const std::filesystem::path& home, const std::string& dist, const RememberedRelease& r) {
  auto p = remembered_release_path(home, dist);
  std::string text = dist + "\n" + std::string(kMarker) + "\nchecked " + std::to_string(r.checked) + "\n";
  if (!r.etag.empty() && header_safe(r.etag)) text += "etag " + r.etag + "\n";
  if (!r.last_modified.empty() && header_safe(r.last_modified)) text += "last-modified " + r.last_modified + "\n";
  text += "\n";
  text += r.bytes;
  // Best effort: the Release in hand is verified either way; one not
  // remembered is fetched again next time (--offline names it as missing).
  if (fs::make_dirs(p.parent_path())) (void)fs::write_file_atomic(p, text);
}

bool is_fresh(const RememberedRelease& r, std::int64_t now, std::int64_t max_age) {
  return max_age > 0 && r.checked > 0 && r.checked <= now && now - r.checked < max_age;
}

Result<std::optional<RememberedRelease>> fetch_release(oci::http::Transport& transport, const std::string& url,
                                                       const RememberedRelease* known, std::size_t max_bytes,
                                                       std::int64_t now) {
  oci::http::Headers conditional;
  if (known && !known->etag.empty()) conditional.set("If-None-Match", known->etag);
  if (known && !known->last_modified.empty()) conditional.set("If-Modified-Since", known->last_modified);
  STRATA_TRY(auto got, http_get(transport, url, max_bytes, conditional));
  if (!got) return std::optional<RememberedRelease>{};
  if (got->status == 304 && !known) {
    return fail(ErrorCode::kFailedPrecondition, "GET " + url + ": HTTP 304 to an unconditional request");
  }
  RememberedRelease out;
  out.checked = now;
  bool same = got->status == 304;
  out.bytes = same ? known->bytes : std::move(got->body);
  out.etag = got->headers.get("ETag").value_or(same ? known->etag : "");
  out.last_modified = got->headers.get("Last-Modified").value_or(same ? known->last_modified : "");
  return std::optional<RememberedRelease>(std::move(out));
}

}  // namespace strata::layer
