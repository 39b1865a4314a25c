#include "oci/registry/registry_store.hpp"

#include <algorithm>
#include <set>

#include "oci/http/registry_transport.hpp"
#include "oci/http/url.hpp"
#include "oci/media_types.hpp"
#include "oci/registry/blob_upload.hpp"
#include "oci/registry/registry_client.hpp"
#include "oci/registry/registry_errors.hpp"
#include "util/strings.hpp"

namespace strata::oci::registry {

static_assert(std::derived_from<RegistryStore, Store>);

namespace {

constexpr int kMaxPages = 1000;
// A tag list is the registry's bytes, held whole: bounded per page, in all
// pages together, and in tags (a million tags is far past any repository a
// mirror copies; a registry that pages on past it is refused, not followed
// until memory runs out).
constexpr std::size_t kMaxTagPageBytes = std::size_t{16} << 20;
constexpr std::size_t kMaxTagListBytes = std::size_t{64} << 20;
constexpr std::size_t kMaxTags = 1'000'000;
constexpr int kManifestBlobUnknownRetries = 3;  // 0.1 + 0.2 + 0.4 s

// Counts bytes delivered to the caller's sink and remembers whether the sink
// itself failed (a sink failure is never resumed). When a ranged request is
// answered with the whole blob, the caller's sink starts over (restart());
// one that cannot has the bytes it already holds skipped instead.
class ResumeSink final : public ByteSink {
 public:
  explicit ResumeSink(ByteSink& next) : next_(next) {}
  Result<void> write(std::span<const std::byte> data) override {
    if (skip_ > 0) {
      std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, data.size()));
      skip_ -= n;
      received_ += n;
      data = data.subspan(n);
      if (data.empty()) return {};
    }
    auto ok = next_.write(data);
    if (!ok) {
      sink_failed_ = true;
      return ok;
    }
    delivered_ += data.size();
    received_ += data.size();
    return {};
  }
  // The body about to arrive is the whole blob, whose first `held` bytes the
  // caller's sink has (`held` counts an earlier attempt's bytes too).
  Result<void> whole_body_follows(std::uint64_t held) {
    auto restarted = next_.restart();
    if (restarted) {
      restarted_ = true;
      delivered_ = 0;
      return {};
    }
    if (!restarted.error().is(ErrorCode::kUnsupported)) {
      sink_failed_ = true;
      return restarted;
    }
    skip_ = held;
    return {};
  }
  ByteSink& next_;
  std::uint64_t delivered_ = 0;  // what the caller's sink holds beyond `offset`
  std::uint64_t received_ = 0;   // every byte passed on, across restarts (progress)
  std::uint64_t skip_ = 0;
  bool sink_failed_ = false;
  bool restarted_ = false;  // the caller's sink now starts at byte 0
};

Result<Digest> digest_like(const Digest& want, std::string_view bytes) {
  if (!want.verifiable()) {
    return fail(ErrorCode::kUnsupported, "cannot verify digest algorithm " + std::string(want.algorithm()));
  }
  Hasher h(want.hash_algorithm());
  h.update(bytes);
  return Digest::from_hex(want.hash_algorithm(), h.finish_hex());
}

// The URL of the `rel="next"` entry of a Link header, if any.
std::optional<std::string> next_link(const http::Response& resp) {
  for (const auto& value : resp.headers.get_all("Link")) {
    for (auto part : str::split(value, ',')) {
      auto lt = part.find('<');
      auto gt = part.find('>');
      if (lt == std::string_view::npos || gt == std::string_view::npos || gt < lt) continue;
      std::string params = str::lower(part.substr(gt + 1));
      if (params.find("rel=\"next\"") != std::string::npos || params.find("rel=next") != std::string::npos)
        return std::string(part.substr(lt + 1, gt - lt - 1));
    }
  }
  return std::nullopt;
}

}  // namespace

std::string api_authority(std::string_view registry) {
  return registry == "docker.io" ? std::string("registry-1.docker.io") : std::string(registry);
}

RegistryStore::RegistryStore(DockerReference ref, std::shared_ptr<RegistryClient> client,
                             const RegistryOptions& options)
    : ref_(std::move(ref)),
      client_(std::move(client)),
      chunk_size_(options.chunk_size),
      upload_buffer_bytes_(options.upload_buffer_bytes),
      max_blob_resumes_(options.max_blob_resumes),
      clock_(options.clock != nullptr ? *options.clock : system_clock()) {}

std::string RegistryStore::describe() const { return "docker://" + ref_.registry + "/" + ref_.repository; }

Result<std::string> RegistryStore::repo_url() {
  STRATA_TRY(auto origin, client_->origin());
  return origin + "/v2/" + ref_.repository;
}

std::string RegistryStore::scope(std::string_view actions) const {
  return "repository:" + ref_.repository + ":" + std::string(actions);
}

Result<std::optional<Descriptor>> RegistryStore::head_manifest(std::string_view ref) {
  STRATA_TRY(auto base, repo_url());
  http::Request req;
  req.method = "HEAD";
  req.url = base + "/manifests/" + std::string(ref);
  req.headers.set("Accept", std::string(media::kManifestAccept));
  const std::string what = describe() + ": HEAD manifest " + std::string(ref);
  STRATA_TRY(auto resp, with_context(client_->send(req, {scope("pull")}), what));
  if (resp.status != 200) return fail(registry_error(resp, what));
  auto dcd = resp.headers.get("Docker-Content-Digest");
  auto type = resp.headers.get("Content-Type");
  auto length = resp.headers.get("Content-Length");
  if (!dcd || !type || !length) return std::optional<Descriptor>();
  auto digest = Digest::parse(str::trim(*dcd));
  auto size = str::parse_u64(str::trim(*length));
  std::string media_type(media::strip_params(*type));
  if (!digest || !size || !media::is_manifest_or_index(media_type)) return std::optional<Descriptor>();
  if (auto asked = Digest::parse(ref); asked && *asked != *digest) {
    return fail(ErrorCode::kFailedPrecondition, what + ": the registry answered with digest " + digest->str());
  }
  Descriptor d;
  d.media_type = std::move(media_type);
  d.digest = *digest;
  d.size = static_cast<std::int64_t>(*size);
  return std::optional<Descriptor>(std::move(d));
}

Result<Descriptor> RegistryStore::resolve(std::string_view ref) {
  STRATA_TRY(auto head, head_manifest(ref));
  if (head) {
    STRATA_TRY_VOID(media::refuse_schema1(head->media_type, describe() + ":" + std::string(ref)));
    return *head;
  }
  // HEAD without a usable Docker-Content-Digest: the bytes decide.
  STRATA_TRY(auto raw, get_manifest(ref));
  return raw.descriptor;
}

Result<RawManifest> RegistryStore::get_manifest(std::string_view ref) {
  STRATA_TRY(auto base, repo_url());
  const std::string what = describe() + ": GET manifest " + std::string(ref);
  StringSink sink(kMaxManifestBytes);
  http::Request req;
  req.url = base + "/manifests/" + std::string(ref);
  req.headers.set("Accept", std::string(media::kManifestAccept));
  req.sink = &sink;
  // A manifest announced as too large is refused on its Content-Length,
  // before any of it is read.
  req.on_headers = [&what](const http::Response& r) -> Result<void> {
    auto length = r.headers.get("Content-Length");
    auto n = length ? str::parse_u64(str::trim(*length)) : std::nullopt;
    if (n && *n > kMaxManifestBytes) {
      return fail(ErrorCode::kInvalidArgument, what + ": the registry announces a manifest of " + std::to_string(*n) +
                                                   " bytes (Content-Length), over the " +
                                                   std::to_string(kMaxManifestBytes) +
                                                   "-byte (4 MiB) limit registries accept; refusing it");
    }
    return {};
  };
  auto resp = client_->send(req, {scope("pull")});
  if (!resp) {
    if (sink.overflowed()) {
      return fail(ErrorCode::kInvalidArgument, what + ": the manifest is larger than " +
                                                   std::to_string(kMaxManifestBytes) +
                                                   " bytes (4 MiB), the limit registries accept; refusing it");
    }
    return fail(resp.error().context(what));
  }
  if (resp->status != 200) return fail(registry_error(*resp, what));
  std::string media_type;
  if (auto ct = resp->headers.get("Content-Type")) media_type = std::string(media::strip_params(*ct));
  if (!media::is_manifest_or_index(media_type) && !media::is_schema1(media_type)) {
    // Registries behind generic servers answer application/json or nothing.
    STRATA_TRY(media_type, sniff_manifest_media_type(sink.str(), what));
  }
  STRATA_TRY_VOID(media::refuse_schema1(media_type, what));
  RawManifest raw;
  raw.descriptor.media_type = media_type;
  raw.descriptor.size = static_cast<std::int64_t>(sink.str().size());
  if (auto asked = Digest::parse(ref)) {
    STRATA_TRY(auto got, with_context(digest_like(*asked, sink.str()), what));
    if (got != *asked) {
      return fail(ErrorCode::kFailedPrecondition,
                  what + ": the registry sent content whose digest is " + got.str() + "; refusing it");
    }
    raw.descriptor.digest = *asked;
  } else {
    // Never trust Docker-Content-Digest for a tag: the bytes are the truth.
    raw.descriptor.digest = Digest::sha256_of(sink.str());
  }
  raw.bytes = std::move(sink.str());
  return raw;
}

Result<void> RegistryStore::put_manifest(const RawManifest& manifest, std::optional<std::string_view> tag) {
  const std::string ref = tag ? std::string(*tag) : manifest.descriptor.digest.str();
  const std::string what = describe() + ": PUT manifest " + ref;
  if (manifest.bytes.size() > kMaxManifestBytes) {
    return fail(ErrorCode::kInvalidArgument, what + ": the manifest is " + std::to_string(manifest.bytes.size()) +
                                                 " bytes; registries accept at most " +
                                                 std::to_string(kMaxManifestBytes) + " bytes (4 MiB)");
  }
  if (tag && !is_valid_tag(*tag)) return fail(ErrorCode::kInvalidArgument, what + ": invalid tag");
  STRATA_TRY(auto base, repo_url());
  auto bytes = std::make_shared<const std::string>(manifest.bytes);
  http::BodySource body = http::body_from_string(bytes);
  http::Request req;
  req.method = "PUT";
  req.url = base + "/manifests/" + ref;
  req.body = &body;
  req.headers.set("Content-Type", manifest.descriptor.media_type);
  // A manifest PUT refused for a blob this client has just uploaded is
  // retried, a few times: distribution's filesystem storage rewrites a
  // repository's blob link in place when a second builder commits the same
  // blob, so a manifest checked at that moment sees the blob as unknown
  // (two pre-warm jobs pushing one overlay hit it). A blob that is really
  // missing fails the same way each time and is reported.
  http::Response resp;
  for (int attempt = 0;; ++attempt) {
    body = http::body_from_string(bytes);
    STRATA_TRY(resp, with_context(client_->send(req, {scope("pull,push")}), what));
    if (resp.status != 400 || attempt == kManifestBlobUnknownRetries) break;
    bool blob_unknown = false;
    for (const auto& e : parse_registry_errors(resp.body)) blob_unknown = blob_unknown || e.code == "MANIFEST_BLOB_UNKNOWN";
    if (!blob_unknown) break;
    clock_.sleep(std::chrono::milliseconds(100 << attempt));
  }
  if (resp.status != 201 && resp.status != 200 && resp.status != 202) return fail(registry_error(resp, what));
  if (auto dcd = resp.headers.get("Docker-Content-Digest")) {
    auto d = Digest::parse(str::trim(*dcd));
    if (d && d->algorithm() == manifest.descriptor.digest.algorithm() && *d != manifest.descriptor.digest) {
      return fail(ErrorCode::kFailedPrecondition,
                  what + ": the registry stored the manifest as " + d->str() + ", not " +
                      manifest.descriptor.digest.str());
    }
  }
  if (resp.headers.get("OCI-Subject")) return {};  // the registry maintains referrers itself
  auto parsed = parse_manifest(manifest.bytes, manifest.descriptor.media_type, what);
  if (!parsed) return {};  // stored verbatim; not ours to judge further
  Descriptor referrer = manifest.descriptor;
  std::optional<Descriptor> subject;
  if (auto* m = std::get_if<ImageManifest>(&*parsed)) {
    subject = m->subject;
    referrer.artifact_type = m->artifact_type ? m->artifact_type : std::optional<std::string>(m->config.media_type);
    referrer.annotations = m->annotations;
  } else if (auto* idx = std::get_if<ImageIndex>(&*parsed)) {
    subject = idx->subject;
    referrer.artifact_type = idx->artifact_type;
    referrer.annotations = idx->annotations;
  }
  if (!subject) return {};
  return with_context(add_to_referrers_index(subject->digest, referrer),
                      what + ": updating the referrers tag " + referrers_tag(subject->digest));
}

Result<void> RegistryStore::add_to_referrers_index(const Digest& subject, const Descriptor& referrer) {
  // Read-modify-write of the tag-schema index. Two concurrent writers can
  // lose an entry (the spec allows ETag conditions; distribution 2.8 has none).
  const std::string tag = referrers_tag(subject);
  ImageIndex index;
  index.media_type = std::string(media::kOciIndex);
  auto existing = get_manifest(tag);
  if (existing) {
    auto parsed = parse_manifest(existing->bytes, existing->descriptor.media_type, describe() + ":" + tag);
    if (parsed && std::holds_alternative<ImageIndex>(*parsed)) index = std::get<ImageIndex>(std::move(*parsed));
  } else if (!existing.error().is(ErrorCode::kNotFound)) {
    return fail(existing.error());
  }
  for (const auto& d : index.manifests)
    if (d.digest == referrer.digest) return {};
  Descriptor entry = referrer;
  entry.platform.reset();
  entry.urls.clear();
  entry.data.reset();
  index.manifests.push_back(std::move(entry));
  return put_manifest(make_raw_manifest(std::string(media::kOciIndex), serialize(index)), tag);
}

Result<bool> RegistryStore::has_blob(const Descriptor& desc) {
  STRATA_TRY(auto base, repo_url());
  http::Request req;
  req.method = "HEAD";
  req.url = base + "/blobs/" + desc.digest.str();
  const std::string what = describe() + ": HEAD blob " + desc.digest.str();
  STRATA_TRY(auto resp, with_context(client_->send(req, {scope("pull")}), what));
  if (resp.status == 200) return true;
  if (resp.status == 404) return false;
  return fail(registry_error(resp, what));
}

Result<void> RegistryStore::fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) {
  STRATA_TRY(auto base, repo_url());
  const std::string what = describe() + ": GET blob " + desc.digest.str();
  ResumeSink counter(sink);
  std::uint64_t progress_at_last_try = 0;
  for (int resumes = 0;; ++resumes) {
    if (counter.restarted_) offset = 0;  // the caller's sink holds bytes from 0 on
    counter.skip_ = 0;
    const std::uint64_t start = offset + counter.delivered_;
    http::Request req;
    req.url = base + "/blobs/" + desc.digest.str();
    req.sink = &counter;
    if (start > 0) req.headers.set("Range", "bytes=" + std::to_string(start) + "-");
    std::string want = "bytes " + std::to_string(start) + "-";
    if (desc.size > 0) want += std::to_string(desc.size - 1) + "/" + std::to_string(desc.size);
    req.on_headers = [&counter, start, want, what, size = desc.size](const http::Response& r) -> Result<void> {
      // Refuse on the announced length, before the body is read.
      auto length = r.headers.get("Content-Length");
      auto n = length ? str::parse_u64(str::trim(*length)) : std::nullopt;
      const std::uint64_t from = r.status == 200 ? 0 : start;
      if (n && size >= 0 && from + *n > static_cast<std::uint64_t>(size)) {
        return fail(ErrorCode::kFailedPrecondition, what + ": the registry announces " + std::to_string(*n) +
                                                        " bytes from byte " + std::to_string(from) +
                                                        " of a blob of " + std::to_string(size) + "; refusing it");
      }
      if (start == 0) return {};
      if (r.status == 200) {
        // The registry ignored the Range and sends the whole blob: take it
        // (the .deb fetcher does the same), or a rerun would fail alike.
        return counter.whole_body_follows(start);
      }
      auto range = r.headers.get("Content-Range");
      if (r.status != 206 || !range || (size > 0 ? *range != want : !range->starts_with(want))) {
        return fail(ErrorCode::kFailedPrecondition,
                    what + ": the registry did not honour Range from byte " + std::to_string(start) + " (HTTP " +
                        std::to_string(r.status) + (range ? ", Content-Range " + *range : "") + ")");
      }
      return {};
    };
    auto resp = client_->send(req, {scope("pull")});
    if (resp) {
      if (resp->status == 200 || resp->status == 206) {
        if (counter.restarted_) offset = 0;
        if (desc.size >= 0 && offset + counter.delivered_ != static_cast<std::uint64_t>(desc.size)) {
          return fail(ErrorCode::kFailedPrecondition, what + ": received " + std::to_string(offset + counter.delivered_) +
                                                          " bytes of " + std::to_string(desc.size));
        }
        return {};
      }
      return fail(registry_error(*resp, what));
    }
    // Resume only transport failures after progress (or the first time):
    // a sink failure or a refused Range is final.
    const bool progressed = counter.received_ > progress_at_last_try || resumes == 0;
    if (counter.sink_failed_ || !is_transient(resp.error()) || counter.received_ == 0 ||
        !progressed || resumes >= max_blob_resumes_) {
      return fail(resp.error().context(what + (resumes > 0 ? " (after " + std::to_string(resumes) + " resumes)" : "")));
    }
    progress_at_last_try = counter.received_;
  }
}

Result<std::unique_ptr<BlobWriter>> RegistryStore::blob_writer(const Descriptor& desc) {
  STRATA_TRY(auto base, repo_url());
  UploadOptions opts;
  opts.chunk_size = chunk_size_;
  opts.buffer_bytes = upload_buffer_bytes_;
  // open_blob_upload needs a shared_ptr it can keep; the store outlives its writers.
  std::shared_ptr<RegistryClient> client(client_);
  return open_blob_upload(std::move(client), base, {scope("pull,push")}, desc, opts, describe());
}

Result<bool> RegistryStore::mount_blob(const Descriptor& desc, Store& source) {
  if (!can_mount_from(source)) return false;
  auto* src = dynamic_cast<RegistryStore*>(&source);
  STRATA_TRY(auto base, repo_url());
  http::Request req;
  req.method = "POST";
  req.url = http::append_query(http::append_query(base + "/blobs/uploads/", "mount", desc.digest.str()), "from",
                               src->repository());
  const std::string what = describe() + ": mount blob " + desc.digest.str() + " from " + src->repository();
  // Push on the target and pull on the source, in one token.
  STRATA_TRY(auto resp, with_context(client_->send(req, {scope("pull,push"), "repository:" + src->repository() + ":pull"}), what));
  if (resp.status == 201) return true;
  if (resp.status == 202) {
    // The registry opened an upload session instead; close it.
    if (auto loc = upload_location(resp, req.url, what)) {
      http::Request del;
      del.method = "DELETE";
      del.url = *loc;
      // Best effort, as in blob_upload.cpp: the registry purges stale sessions
      // anyway, and the caller copies the bytes whatever this answers.
      (void)client_->send(del, {scope("pull,push")});
    }
  }
  return false;  // any refusal: the caller copies the bytes
}

bool RegistryStore::can_mount_from(const Store& source) const {
  const auto* src = dynamic_cast<const RegistryStore*>(&source);
  return src != nullptr && src != this && src->client_->authority() == client_->authority() &&
         src->repository() != repository();
}

Result<std::vector<std::string>> RegistryStore::list_tags() {
  STRATA_TRY(auto base, repo_url());
  const std::string what = describe() + ": list tags";
  std::vector<std::string> tags;
  std::set<std::string> seen_tags;
  std::set<std::string> seen_urls;
  std::string url = base + "/tags/list";
  std::size_t listed_bytes = 0;
  auto too_many = [&] {
    return fail(ErrorCode::kUnsupported,
                what + ": the registry lists more than " + std::to_string(kMaxTags) + " tags or " +
                    str::human_bytes(kMaxTagListBytes) +
                    " of tag lists; strata reads no list that large: name the images you need one by one "
                    "(a mirror config's `images`) instead of the whole repository");
  };
  for (int page = 0; page < kMaxPages; ++page) {
    seen_urls.insert(url);
    http::Request req;
    req.url = url;
    req.max_body = kMaxTagPageBytes;
    STRATA_TRY(auto resp, with_context(client_->send(req, {scope("pull")}), what));
    if (resp.status != 200) return fail(registry_error(resp, what));
    listed_bytes += resp.body.size();
    if (listed_bytes > kMaxTagListBytes) return too_many();
    auto j = nlohmann::json::parse(resp.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return fail(ErrorCode::kInvalidArgument, what + ": the answer is not JSON");
    if (auto t = j.find("tags"); t != j.end() && t->is_array()) {
      for (const auto& tag : *t)
        if (tag.is_string() && seen_tags.insert(tag.get<std::string>()).second) tags.push_back(tag);
      if (tags.size() > kMaxTags) return too_many();
    }
    auto next = next_link(resp);
    if (!next) return tags;
    STRATA_TRY(url, with_context(http::resolve_url(resp.effective_url.empty() ? req.url : resp.effective_url, *next), what));
    if (seen_urls.contains(url)) return tags;  // a registry that repeats itself
  }
  return fail(ErrorCode::kUnavailable, what + ": more than " + std::to_string(kMaxPages) + " pages");
}

Result<void> RegistryStore::delete_manifest(const Digest& digest) {
  STRATA_TRY(auto base, repo_url());
  http::Request req;
  req.method = "DELETE";
  req.url = base + "/manifests/" + digest.str();
  const std::string what = describe() + ": DELETE manifest " + digest.str();
  STRATA_TRY(auto resp, with_context(client_->send(req, {scope("delete")}), what));
  if (resp.status == 202 || resp.status == 200 || resp.status == 204) return {};
  return fail(registry_error(resp, what));
}

Result<ImageIndex> RegistryStore::referrers(const Digest& digest) {
  STRATA_TRY(auto base, repo_url());
  const std::string what = describe() + ": referrers of " + digest.str();
  ImageIndex result;
  result.media_type = std::string(media::kOciIndex);
  std::string url = base + "/referrers/" + digest.str();
  std::set<std::string> seen_urls;
  for (int page = 0; page < kMaxPages; ++page) {
    seen_urls.insert(url);
    http::Request req;
    req.url = url;
    req.max_body = kMaxManifestBytes;
    req.headers.set("Accept", std::string(media::kOciIndex));
    STRATA_TRY(auto resp, with_context(client_->send(req, {scope("pull")}), what));
    std::string type(media::strip_params(resp.headers.get("Content-Type").value_or("")));
    const bool is_api = resp.status == 200 && type == media::kOciIndex;
    if (!is_api) {
      if (page == 0 && (resp.status == 404 || resp.status == 400 || resp.status == 406 || resp.status == 200))
        return Store::referrers(digest);  // no referrers API: the tag schema
      return fail(registry_error(resp, what));
    }
    STRATA_TRY(auto parsed, parse_manifest(resp.body, type, what));
    if (auto* idx = std::get_if<ImageIndex>(&parsed))
      result.manifests.insert(result.manifests.end(), idx->manifests.begin(), idx->manifests.end());
    auto next = next_link(resp);
    if (!next) return result;
    STRATA_TRY(url, http::resolve_url(resp.effective_url.empty() ? req.url : resp.effective_url, *next));
    if (seen_urls.contains(url)) return result;
  }
  return result;
}

Result<std::shared_ptr<RegistryClient>> RegistryClientCache::client(const std::string& registry) {
  std::lock_guard lock(mutex_);
  if (auto it = clients_.find(registry); it != clients_.end()) return it->second;
  Clock& clock = options_.clock != nullptr ? *options_.clock : system_clock();
  const HostSettings* host = nullptr;
  if (auto it = options_.hosts.find(registry); it != options_.hosts.end()) host = &it->second;
  std::vector<std::string> insecure_hosts = options_.insecure_hosts;
  if (host && host->tls_verify && !*host->tls_verify) insecure_hosts.push_back(registry);
  auto make_transport = [&] {
    http::RegistryTransportOptions t;
    t.curl.insecure_hosts = insecure_hosts;
    t.curl.extra_cert_dirs = options_.cert_dirs;
    if (host && host->cert_dir) t.curl.extra_cert_dirs.insert(t.curl.extra_cert_dirs.begin(), *host->cert_dir);
    if (!options_.use_default_cert_dirs) t.curl.default_cert_dirs.clear();
    t.curl.user_agent = options_.user_agent;
    t.curl.connect_timeout = host && host->timeout ? *host->timeout : options_.connect_timeout;
    t.curl.stall_timeout = host && host->timeout ? *host->timeout : options_.stall_timeout;
    t.retry = options_.retry;
    if (host && host->retries) t.retry.max_attempts = std::max(1, *host->retries);
    t.clock = &clock;
    return http::make_registry_transport(t);
  };
  // A host with settings of its own gets its own transport; the others share one.
  std::shared_ptr<http::Transport> transport = options_.transport;
  if (!transport && host) transport = make_transport();
  if (!transport) transport = options_.transport = make_transport();
  std::shared_ptr<const Keychain> keychain;
  if (host && host->authfile) {
    STRATA_TRY(auto kc, with_context(Keychain::load(KeychainOptions::from_environment(*host->authfile)),
                                     "credentials for " + registry));
    keychain = std::make_shared<const Keychain>(std::move(kc));
  } else {
    if (!options_.keychain) {
      STRATA_TRY(auto kc, Keychain::load(KeychainOptions::from_environment(options_.authfile)));
      options_.keychain = std::make_shared<const Keychain>(std::move(kc));
    }
    keychain = options_.keychain;
  }
  STRATA_TRY(auto credential, keychain->lookup(registry));
  const std::string authority = api_authority(registry);
  auto auth = std::make_shared<Authenticator>(registry, std::move(credential), transport, clock);
  const bool insecure = http::is_insecure_host(insecure_hosts, registry) ||
                        http::is_insecure_host(insecure_hosts, authority);
  auto client = std::make_shared<RegistryClient>(authority, insecure, transport, std::move(auth));
  clients_.emplace(registry, client);
  return client;
}

std::size_t RegistryClientCache::clients() const {
  std::lock_guard lock(mutex_);
  return clients_.size();
}

Result<std::unique_ptr<Store>> RegistryClientCache::open(const DockerReference& ref) {
  if (ref.registry.empty() || ref.repository.empty()) {
    return fail(ErrorCode::kInvalidArgument, "registry reference " + str::quote(ref.str()) + " has no registry or repository");
  }
  STRATA_TRY(auto c, client(ref.registry));
  return std::unique_ptr<Store>(new RegistryStore(ref, std::move(c), options_));
}

Result<std::unique_ptr<Store>> open_registry_store(const DockerReference& ref, const RegistryOptions& options) {
  RegistryClientCache cache(options);
  return cache.open(ref);
}

}  // namespace strata::oci::registry
