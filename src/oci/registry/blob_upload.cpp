#include "oci/registry/blob_upload.hpp"

#include <thread>

#include "oci/http/url.hpp"
#include "oci/registry/byte_pipe.hpp"
#include "oci/registry/registry_errors.hpp"
#include "util/strings.hpp"

namespace strata::oci::registry {

Result<std::string> upload_location(const http::Response& response, const std::string& request_url,
                                    std::string_view what) {
  auto location = response.headers.get("Location");
  if (!location || location->empty()) {
    return fail(ErrorCode::kUnavailable, std::string(what) + ": the registry answered HTTP " +
                                             std::to_string(response.status) + " without a Location header");
  }
  const std::string& base = response.effective_url.empty() ? request_url : response.effective_url;
  return http::resolve_url(base, *location);
}

namespace {

class RegistryBlobWriter final : public BlobWriter {
 public:
  RegistryBlobWriter(std::shared_ptr<RegistryClient> client, std::vector<std::string> scopes, Descriptor desc,
                     UploadOptions options, std::string what, std::string location, std::size_t min_chunk)
      : client_(std::move(client)),
        scopes_(std::move(scopes)),
        desc_(std::move(desc)),
        options_(options),
        what_(std::move(what)),
        location_(std::move(location)),
        verifier_(desc_.digest, desc_.size),
        pipe_(options.buffer_bytes),
        chunk_limit_(std::max(options.chunk_size, min_chunk)) {}

  ~RegistryBlobWriter() override {
    if (!done_) abort();
  }

  std::uint64_t offset() const override { return 0; }

  Result<void> write(std::span<const std::byte> data) override {
    if (done_) return fail(ErrorCode::kFailedPrecondition, what_ + ": write after commit or abort");
    if (auto ok = verifier_.update(data); !ok) {
      abort();
      return ok;
    }
    if (options_.chunk_size > 0) return write_chunked(data);
    if (!uploader_.joinable()) start_streaming_put();
    auto ok = pipe_.write(data);
    if (!ok) {
      // The upload ended early; its own error says why.
      uploader_.join();
      Error e = upload_result_ && !*upload_result_ ? upload_result_->error() : ok.error();
      abort();
      return fail(e);
    }
    return {};
  }

  Result<void> commit() override {
    if (done_) return fail(ErrorCode::kFailedPrecondition, what_ + ": commit after commit or abort");
    if (auto ok = verifier_.verify(what_ + " blob " + desc_.digest.str()); !ok) {
      abort();  // the held-back last byte never leaves: the registry cannot complete the blob
      return ok;
    }
    Result<http::Response> put = fail(ErrorCode::kCancelled, "no upload");
    if (options_.chunk_size > 0) {
      if (!chunk_.empty()) {
        if (auto ok = send_chunk(); !ok) {
          abort();
          return ok;
        }
      }
      put = finish_put(nullptr);
    } else {
      if (!uploader_.joinable()) start_streaming_put();  // an empty blob
      pipe_.finish();
      uploader_.join();
      put = std::move(*upload_result_);
    }
    if (!put) {
      abort();
      return fail(put.error().context(what_ + ": uploading blob " + desc_.digest.str()));
    }
    if (put->status != 201) {
      Error e = registry_error(*put, what_ + ": PUT blob " + desc_.digest.str());
      abort();
      return fail(e);
    }
    done_ = true;
    // Registries report sha256 even for sha512 uploads; compare like with like.
    if (auto got = put->headers.get("Docker-Content-Digest")) {
      auto d = Digest::parse(str::trim(*got));
      if (d && d->algorithm() == desc_.digest.algorithm() && *d != desc_.digest) {
        return fail(ErrorCode::kFailedPrecondition, what_ + ": the registry stored blob " + desc_.digest.str() +
                                                        " as " + d->str());
      }
    }
    return {};
  }

  void abort() override {
    if (done_) return;
    done_ = true;
    pipe_.fail(Error(ErrorCode::kCancelled, what_ + ": upload of " + desc_.digest.str() + " cancelled"));
    if (uploader_.joinable()) uploader_.join();
    http::Request del;
    del.method = "DELETE";
    del.url = location_;
    (void)client_->send(del, scopes_);  // best effort: the registry purges stale sessions anyway
  }

 private:
  std::string put_url() const { return http::append_query(location_, "digest", desc_.digest.str()); }

  void start_streaming_put() {
    body_.size = desc_.size;
    body_.read = [this](std::span<std::byte> buf) { return pipe_.read(buf); };
    uploader_ = std::thread([this] {
      upload_result_ = finish_put(&body_);
      // Whatever happened, unblock a producer waiting on a full pipe.
      pipe_.fail(Error(ErrorCode::kUnavailable, what_ + ": the upload of " + desc_.digest.str() + " ended early"));
    });
  }

  Result<http::Response> finish_put(http::BodySource* body) {
    http::Request put;
    put.method = "PUT";
    put.url = put_url();
    put.body = body;
    put.headers.set("Content-Type", "application/octet-stream");
    return client_->send(put, scopes_);
  }

  Result<void> write_chunked(std::span<const std::byte> data) {
    while (!data.empty()) {
      std::size_t n = std::min(data.size(), chunk_limit_ - chunk_.size());
      chunk_.append(reinterpret_cast<const char*>(data.data()), n);
      data = data.subspan(n);
      if (chunk_.size() >= chunk_limit_) {
        if (auto ok = send_chunk(); !ok) {
          abort();
          return ok;
        }
      }
    }
    return {};
  }

  Result<void> send_chunk() {
    auto bytes = std::make_shared<const std::string>(std::move(chunk_));
    chunk_.clear();
    http::BodySource body = http::body_from_string(bytes);
    // A replayed PATCH would append twice on registries that ignore
    // Content-Range (distribution 2.8); only the caller may start over.
    body.rewind = nullptr;
    http::Request patch;
    patch.method = "PATCH";
    patch.url = location_;
    patch.body = &body;
    patch.headers.set("Content-Type", "application/octet-stream");
    patch.headers.set("Content-Range",
                      std::to_string(sent_) + "-" + std::to_string(sent_ + bytes->size() - 1));
    const std::string what = what_ + ": PATCH blob " + desc_.digest.str() + " bytes " + std::to_string(sent_);
    STRATA_TRY(auto resp, with_context(client_->send(patch, scopes_), what));
    if (resp.status != 202) return fail(registry_error(resp, what));
    sent_ += bytes->size();
    STRATA_TRY(location_, upload_location(resp, patch.url, what));  // always the newest Location
    return {};
  }

  std::shared_ptr<RegistryClient> client_;
  std::vector<std::string> scopes_;
  Descriptor desc_;
  UploadOptions options_;
  std::string what_;
  std::string location_;
  DigestVerifier verifier_;
  BytePipe pipe_;
  http::BodySource body_;
  std::thread uploader_;
  std::optional<Result<http::Response>> upload_result_;
  std::size_t chunk_limit_;
  std::string chunk_;
  std::uint64_t sent_ = 0;
  bool done_ = false;
};

}  // namespace

Result<std::unique_ptr<BlobWriter>> open_blob_upload(std::shared_ptr<RegistryClient> client, std::string repo_url,
                                                     std::vector<std::string> scopes, const Descriptor& desc,
                                                     const UploadOptions& options, std::string what) {
  if (desc.size < 0) return fail(ErrorCode::kInvalidArgument, what + ": blob " + desc.digest.str() + " has no size");
  http::Request post;
  post.method = "POST";
  post.url = repo_url + "/blobs/uploads/";
  const std::string op = what + ": POST blob upload for " + desc.digest.str();
  STRATA_TRY(auto resp, with_context(client->send(post, scopes), op));
  if (resp.status != 202) return fail(registry_error(resp, op));
  STRATA_TRY(auto location, upload_location(resp, post.url, op));
  std::size_t min_chunk = 0;
  if (auto m = resp.headers.get("OCI-Chunk-Min-Length")) min_chunk = str::parse_u64(str::trim(*m)).value_or(0);
  return std::unique_ptr<BlobWriter>(new RegistryBlobWriter(std::move(client), std::move(scopes), desc, options,
                                                            std::move(what), std::move(location), min_chunk));
}

}  // namespace strata::oci::registry
