#include "oci/containerd/containerd_store.hpp"

#include <grpcpp/grpcpp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <containerd_api/content.grpc.pb.h>
#include <containerd_api/images.grpc.pb.h>
#include <containerd_api/leases.grpc.pb.h>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>

#include "oci/manifest.hpp"
#include "util/strings.hpp"

namespace strata::oci::containerd {

namespace content = ::containerd::services::content::v1;
namespace images = ::containerd::services::images::v1;
namespace leases = ::containerd::services::leases::v1;

namespace {

// containerd's rule for a namespace (identifiers.Validate): letters and
// digits, joined by single '.', '_' or '-', at most 76 characters.
bool valid_namespace(std::string_view ns) {
  if (ns.empty() || ns.size() > 76) return false;
  bool after_separator = true;  // at the start, as after a separator: a letter or digit must come
  for (char c : ns) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum) {
      after_separator = false;
    } else if ((c == '.' || c == '_' || c == '-') && !after_separator) {
      after_separator = true;
    } else {
      return false;
    }
  }
  return !after_separator;
}

}  // namespace

Result<ContainerdOptions> containerd_options(const OpenOptions& options) {
  ContainerdOptions o;
  auto env = [](const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return std::string(v && *v ? v : fallback);
  };
  o.address = !options.containerd_address.empty() ? options.containerd_address
                                                   : env("CONTAINERD_ADDRESS", "/run/containerd/containerd.sock");
  // A relative socket path made absolute: gRPC reads "unix://run/c.sock" as
  // a host "run" (it logged its own lines, and after 10 s strata said the
  // socket did not speak gRPC).
  if (o.address.starts_with("unix://")) o.address.erase(0, 7);
  if (!o.address.empty() && o.address.front() != '/') {
    std::error_code ec;
    auto absolute = std::filesystem::absolute(o.address, ec);
    if (!ec) o.address = absolute.lexically_normal().string();
  }
  o.ns = !options.containerd_namespace.empty() ? options.containerd_namespace : env("CONTAINERD_NAMESPACE", "default");
  // Both are checked before containerd is asked: a namespace it refuses
  // would otherwise fail only at the first call, in its words.
  if (!valid_namespace(o.ns)) {
    const char* from = !options.containerd_namespace.empty() ? "--containerd-namespace" : "CONTAINERD_NAMESPACE";
    return fail(ErrorCode::kInvalidArgument,
                std::string(from) + " " + str::quote(o.ns) +
                    " is not a containerd namespace (letters and digits, joined by single '.', '_' or '-', at most 76 "
                    "characters); name one `ctr namespaces ls` lists, as default or k8s.io");
  }
  if (const char* s = std::getenv("STRATA_CONTAINERD_LEASE_SECONDS"); s && *s) {
    auto n = str::parse_u64(s);
    if (!n || *n == 0 || *n > 31U * 24 * 3600) {
      return fail(ErrorCode::kInvalidArgument, "STRATA_CONTAINERD_LEASE_SECONDS=" + str::quote(s) +
                                                   " is not a number of seconds from 1 to 2678400 (31 days); set it to "
                                                   "one, as 7200, or unset it for an hour");
    }
    o.lease_expiry = std::chrono::seconds(*n);
  }
  return o;
}

namespace {

// gRPC's default message limit is 4 MiB received; containerd's is 16 MiB.
// Chunks stay well below both.
constexpr std::size_t kChunk = 1 << 20;
// WRITEs in flight on one stream before the sender waits for an acknowledgement.
constexpr int kInFlight = 8;
constexpr int kMaxMessage = 16 << 20;
constexpr auto kCallTimeout = std::chrono::seconds(120);

// containerd's garbage-collection labels (docs/garbage-collection.md).
constexpr std::string_view kGcRefContent = "containerd.io/gc.ref.content.";
constexpr std::string_view kGcExpire = "containerd.io/gc.expire";
// What CRI (the k8s.io namespace) marks the images it manages with.
constexpr std::string_view kCriImageLabel = "io.cri-containerd.image";

std::string rfc3339(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string socket_path(const std::string& address) {
  std::string_view a = address;
  if (a.starts_with("unix://")) a.remove_prefix(7);
  return std::string(a);
}

// Why nothing answers at `path`, before gRPC's own words ("failed to connect
// to all addresses") hide it: no such socket, not a socket, permission
// denied, nobody listening. Empty when a connection can be made.
std::string unreachable_reason(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == EACCES) return "permission denied (run as a user who may use containerd's socket, usually root)";
    return "no such socket";
  }
  if (!S_ISSOCK(st.st_mode)) return "not a socket";
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) return "socket path longer than " + std::to_string(sizeof addr.sun_path - 1) + " bytes";
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::string("socket(): ") + std::strerror(errno);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int err = errno;
  ::close(fd);
  if (rc == 0) return {};
  if (err == EACCES || err == EPERM) return "permission denied (run as a user who may use containerd's socket, usually root)";
  if (err == ECONNREFUSED) return "nothing is listening: containerd is not running";
  return std::strerror(err);
}

std::string digest_labels_key(std::string_view suffix) { return std::string(kGcRefContent) + std::string(suffix); }

// The gc.ref.content labels a parent carries for its children, as
// containerd's own handlers write them: a manifest's config and layers
// ("config", "l.<i>"), an index's manifests ("m.<i>"), anything else by
// position. Without them the lease ending leaves only the root.
std::map<std::string, std::string> child_labels(const RawManifest& m) {
  std::map<std::string, std::string> labels;
  auto parsed = parse_manifest(m.bytes, m.descriptor.media_type, "manifest " + m.descriptor.digest.str());
  if (!parsed) return labels;
  if (const auto* img = std::get_if<ImageManifest>(&*parsed)) {
    labels[digest_labels_key("config")] = img->config.digest.str();
    for (std::size_t i = 0; i < img->layers.size(); ++i) {
      labels[digest_labels_key("l." + std::to_string(i))] = img->layers[i].digest.str();
    }
  } else {
    const auto& idx = std::get<ImageIndex>(*parsed);
    for (std::size_t i = 0; i < idx.manifests.size(); ++i) {
      labels[digest_labels_key("m." + std::to_string(i))] = idx.manifests[i].digest.str();
    }
  }
  return labels;
}

ErrorCode code_of(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::NOT_FOUND: return ErrorCode::kNotFound;
    case grpc::StatusCode::ALREADY_EXISTS: return ErrorCode::kAlreadyExists;
    case grpc::StatusCode::FAILED_PRECONDITION: return ErrorCode::kFailedPrecondition;
    case grpc::StatusCode::INVALID_ARGUMENT: return ErrorCode::kInvalidArgument;
    case grpc::StatusCode::UNAVAILABLE: return ErrorCode::kUnavailable;
    case grpc::StatusCode::DEADLINE_EXCEEDED: return ErrorCode::kDeadlineExceeded;
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED: return ErrorCode::kUnauthorized;
    case grpc::StatusCode::UNIMPLEMENTED: return ErrorCode::kUnsupported;
    case grpc::StatusCode::CANCELLED: return ErrorCode::kCancelled;
    default: return ErrorCode::kIoError;
  }
}

// One connection to containerd: the channel, the three service stubs, the
// namespace every call carries, and the lease a writer's calls carry.
class Client {
 public:
  Client(std::shared_ptr<grpc::Channel> channel, ContainerdOptions options, const std::string& name)
      : channel_(std::move(channel)),
        options_(std::move(options)),
        socket_(socket_path(options_.address)),
        where_(name + " (containerd at " + socket_ + ", namespace " + options_.ns + ")"),
        content_(content::Content::NewStub(channel_)),
        images_(images::Images::NewStub(channel_)),
        leases_(leases::Leases::NewStub(channel_)) {}

  content::Content::Stub& content() { return *content_; }
  images::Images::Stub& images() { return *images_; }
  leases::Leases::Stub& leases() { return *leases_; }
  const ContainerdOptions& options() const { return options_; }
  const std::string& socket() const { return socket_; }

  // A context for one call: the namespace, the lease when there is one, a
  // deadline for unary calls (streams have none: a layer takes its time).
  std::unique_ptr<grpc::ClientContext> context(bool unary = true) const {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->AddMetadata("containerd-namespace", options_.ns);
    {
      std::lock_guard lock(mu_);
      if (!lease_.empty()) ctx->AddMetadata("containerd-lease", lease_);
    }
    if (unary) ctx->set_deadline(std::chrono::system_clock::now() + kCallTimeout);
    return ctx;
  }

  // The error for a failed call: the store, what was being done, and when
  // containerd is gone, why and what to do. A socket nobody listens on any
  // more is final (kUnreachable: another try would fail alike).
  Error error(const grpc::Status& s, std::string_view doing) const {
    std::string head = where_ + ": " + std::string(doing) + ": ";
    if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
      std::string why = unreachable_reason(socket_);
      if (!why.empty()) {
        return Error(ErrorCode::kUnreachable,
                     head + "containerd stopped answering (" + why + "); restart it and run this again");
      }
      return Error(ErrorCode::kUnavailable, head + "containerd did not answer: " + s.error_message());
    }
    if (s.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      return Error(ErrorCode::kUnsupported,
                   head + "containerd does not offer this call (" + s.error_message() + "); strata needs containerd 1.5 or later");
    }
    return Error(code_of(s.error_code()), head + s.error_message());
  }

  // "containerd:NAME (containerd at SOCK, namespace NS)": how errors name the store.
  const std::string& where() const { return where_; }

  // A lease that expires on its own: what is written under it survives the
  // garbage collector until the image record holds it, and no longer than
  // `lease_expiry` if strata dies first. Taken at the first write, not at the
  // open: build and provision open their destination before work that may
  // outlast the lease. Once: writers on several threads share it.
  Result<void> begin_lease() {
    std::lock_guard once(begin_mu_);
    {
      std::lock_guard lock(mu_);
      if (!lease_.empty()) return {};
    }
    leases::CreateRequest req;
    (*req.mutable_labels())[std::string(kGcExpire)] =
        rfc3339(std::chrono::system_clock::now() + options_.lease_expiry);
    (*req.mutable_labels())["strata.dev/writer"] = "strata";
    leases::CreateResponse resp;
    auto ctx = context();
    grpc::Status s = leases_->Create(ctx.get(), req, &resp);
    if (!s.ok()) return fail(error(s, "creating a lease"));
    std::lock_guard lock(mu_);
    lease_ = resp.lease().id();
    return {};
  }

  // Ends the lease: from here the image record alone keeps the content.
  Result<void> end_lease() {
    std::string id;
    {
      std::lock_guard lock(mu_);
      id = std::exchange(lease_, {});
    }
    if (id.empty()) return {};
    leases::DeleteRequest req;
    req.set_id(id);
    google::protobuf::Empty resp;
    auto ctx = context();
    grpc::Status s = leases_->Delete(ctx.get(), req, &resp);
    if (!s.ok() && s.error_code() != grpc::StatusCode::NOT_FOUND) return fail(error(s, "ending lease " + id));
    return {};
  }

  // Puts content already in the store under the lease, so the collector
  // cannot take it between "present" and the image record.
  Result<void> hold(const Digest& digest) {
    STRATA_TRY_VOID(begin_lease());
    std::string id;
    {
      std::lock_guard lock(mu_);
      id = lease_;
    }
    leases::AddResourceRequest req;
    req.set_id(id);
    req.mutable_resource()->set_id(digest.str());
    req.mutable_resource()->set_type("content");
    google::protobuf::Empty resp;
    auto ctx = context();
    grpc::Status s = leases_->AddResource(ctx.get(), req, &resp);
    if (!s.ok()) return fail(error(s, "holding " + digest.str() + " under the write's lease"));
    return {};
  }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  ContainerdOptions options_;
  std::string socket_;
  std::string where_;
  std::unique_ptr<content::Content::Stub> content_;
  std::unique_ptr<images::Images::Stub> images_;
  std::unique_ptr<leases::Leases::Stub> leases_;
  mutable std::mutex mu_;
  std::mutex begin_mu_;
  std::string lease_;
};

// One blob through a Write stream: STAT (the resume point of an earlier,
// interrupted write of the same ref), WRITE per chunk (each acknowledged),
// COMMIT with the expected digest and size, which containerd verifies. A
// digest the store already has answers ALREADY_EXISTS: success.
class ContainerdBlobWriter final : public BlobWriter {
 public:
  ContainerdBlobWriter(Client& client, Descriptor desc, std::map<std::string, std::string> labels, std::string what)
      : client_(client),
        desc_(std::move(desc)),
        labels_(std::move(labels)),
        what_(std::move(what)),
        ref_("strata-" + desc_.digest.str()),
        verifier_(desc_.digest, desc_.size) {}

  ~ContainerdBlobWriter() override {
    if (!done_) abort();
  }

  // Opens the stream and asks where an earlier write of this ref stopped.
  // Another writer holding the ref (UNAVAILABLE, "locked") is waited for.
  Result<void> open() {
    for (int attempt = 0;; ++attempt) {
      ctx_ = client_.context(/*unary=*/false);
      stream_ = client_.content().Write(ctx_.get());
      content::WriteContentRequest req;
      req.set_action(content::STAT);
      req.set_ref(ref_);
      req.set_total(desc_.size);
      req.set_expected(desc_.digest.str());
      content::WriteContentResponse resp;
      if (stream_->Write(req) && stream_->Read(&resp)) {
        offset_ = static_cast<std::uint64_t>(std::max<std::int64_t>(resp.offset(), 0));
        if (offset_ > static_cast<std::uint64_t>(desc_.size)) offset_ = 0;  // restart what cannot be ours
        // Resumed bytes were not hashed here; containerd verifies the whole blob at commit.
        if (offset_ > 0) resumed_ = true;
        return {};
      }
      stream_->WritesDone();
      while (stream_->Read(&resp)) {
      }
      grpc::Status s = stream_->Finish();
      stream_.reset();
      if (s.error_code() == grpc::StatusCode::ALREADY_EXISTS) {  // committed by another writer meanwhile
        present_ = true;
        done_ = true;
        return {};
      }
      bool locked = s.error_code() == grpc::StatusCode::UNAVAILABLE && s.error_message().find("locked") != std::string::npos;
      if (locked && attempt < 600) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        continue;
      }
      return fail(client_.error(s, "writing " + what_));
    }
  }

  std::uint64_t offset() const override { return offset_; }
  bool present() const override { return present_; }

  Result<void> write(std::span<const std::byte> data) override {
    if (present_) return {};
    if (!resumed_) STRATA_TRY_VOID(verifier_.update(data));
    // Whole chunks of the caller's bytes go out as they are; only a tail
    // shorter than a chunk waits in buffer_ for the next write.
    std::string_view in(reinterpret_cast<const char*>(data.data()), data.size());
    if (!buffer_.empty()) {
      std::size_t take = std::min(in.size(), kChunk - buffer_.size());
      buffer_.append(in.substr(0, take));
      in.remove_prefix(take);
      if (buffer_.size() < kChunk) return {};
      STRATA_TRY_VOID(send(content::WRITE, buffer_));
      buffer_.clear();
    }
    while (in.size() >= kChunk) {
      STRATA_TRY_VOID(send(content::WRITE, in.substr(0, kChunk)));
      in.remove_prefix(kChunk);
    }
    buffer_.append(in);
    return {};
  }

  Result<void> restart() override {
    if (present_) return {};
    // WRITE at offset 0 makes containerd drop what the ref holds.
    buffer_.clear();
    offset_ = 0;
    resumed_ = false;
    verifier_ = DigestVerifier(desc_.digest, desc_.size);
    return {};
  }

  Result<void> commit() override {
    if (present_) return {};
    if (!resumed_) {
      auto ok = verifier_.verify(client_.where() + ": " + what_);
      if (!ok) {
        abort();
        return ok;
      }
    }
    auto sent = send(content::COMMIT, buffer_);
    buffer_.clear();
    stream_->WritesDone();
    content::WriteContentResponse rest;
    while (stream_->Read(&rest)) {
    }
    grpc::Status s = stream_->Finish();
    done_ = true;
    if (s.error_code() == grpc::StatusCode::ALREADY_EXISTS) return {};  // another writer committed it
    if (!s.ok()) {
      abort_ref();
      return fail(client_.error(s, "committing " + what_));
    }
    if (!sent) return sent;
    if (committed_digest_ != desc_.digest.str()) {
      return fail(ErrorCode::kCorruption, client_.where() + ": committing " + what_ + ": containerd stored it as " +
                                              str::quote(committed_digest_));
    }
    return {};
  }

  void abort() override {
    if (done_) return;
    done_ = true;
    if (stream_) {
      ctx_->TryCancel();
      (void)stream_->Finish();
    }
    abort_ref();
  }

 private:
  // Sends one message. WRITEs are pipelined: up to kInFlight wait for their
  // acknowledgement while the next chunks go out (one round trip per chunk
  // would halve the throughput); COMMIT reads every acknowledgement left,
  // its own last, which carries the digest containerd stored.
  Result<void> send(content::WriteAction action, std::string_view data) {
    content::WriteContentRequest req;
    req.set_action(action);
    req.set_offset(static_cast<std::int64_t>(offset_));
    req.set_data(data.data(), data.size());
    if (action == content::COMMIT) {
      req.set_total(desc_.size);
      req.set_expected(desc_.digest.str());
      for (const auto& [k, v] : labels_) (*req.mutable_labels())[k] = v;
    }
    // The stream broke: Finish() (in commit, or broken()) carries why.
    if (!stream_->Write(req)) return action == content::COMMIT ? Result<void>() : broken();
    offset_ += data.size();
    ++unacked_;
    const int keep = action == content::COMMIT ? 0 : kInFlight;
    content::WriteContentResponse resp;
    while (unacked_ > keep) {
      if (!stream_->Read(&resp)) return action == content::COMMIT ? Result<void>() : broken();
      --unacked_;
    }
    if (action == content::COMMIT) committed_digest_ = resp.digest();
    return {};
  }

  Result<void> broken() {
    stream_->WritesDone();
    content::WriteContentResponse rest;
    while (stream_->Read(&rest)) {
    }
    grpc::Status s = stream_->Finish();
    done_ = true;
    abort_ref();
    return fail(client_.error(s, "writing " + what_));
  }

  // Drops an unfinished ingest so it holds no disk (best effort: the lease's
  // expiry and containerd's own ingest cleanup are the backstop).
  void abort_ref() {
    content::AbortRequest req;
    req.set_ref(ref_);
    google::protobuf::Empty resp;
    auto ctx = client_.context();
    (void)client_.content().Abort(ctx.get(), req, &resp);
  }

  Client& client_;
  Descriptor desc_;
  std::map<std::string, std::string> labels_;
  std::string what_;
  std::string ref_;
  DigestVerifier verifier_;
  std::unique_ptr<grpc::ClientContext> ctx_;
  std::unique_ptr<grpc::ClientReaderWriter<content::WriteContentRequest, content::WriteContentResponse>> stream_;
  std::string buffer_;
  std::uint64_t offset_ = 0;
  int unacked_ = 0;  // WRITEs sent whose acknowledgement is not read yet
  bool resumed_ = false;
  bool present_ = false;
  bool done_ = false;
  std::string committed_digest_;
};

class ContainerdStore final : public Store {
 public:
  ContainerdStore(std::shared_ptr<grpc::Channel> channel, const ContainerdOptions& options, DockerReference ref,
                  bool writable)
      : client_(std::move(channel), options, "containerd:" + ref.name()), ref_(std::move(ref)), writable_(writable) {}

  ~ContainerdStore() override { (void)client_.end_lease(); }

  std::string describe() const override { return "containerd:" + ref_.name(); }

  Result<Descriptor> resolve(std::string_view ref) override {
    // Read, a digest names content (a manifest of an index, a referrer).
    // Written, it names the record "NAME@sha256:…": content present under
    // another name (or under none, unlabelled, from another tool) is not yet
    // this record, and a manifest the copy is told is present is not written
    // again, so it would keep neither its record nor its children's labels.
    if (auto d = Digest::parse(ref); d && !writable_) {
      STRATA_TRY(auto info, info_of(*d));
      if (!info) return fail(ErrorCode::kNotFound, where() + ": no manifest " + d->str());
      Descriptor desc;
      desc.digest = *d;
      desc.size = info->size();
      if (desc.size > static_cast<std::int64_t>(kMaxManifestBytes)) {
        return fail(ErrorCode::kInvalidArgument, where() + ": " + d->str() + " is " + std::to_string(desc.size) +
                                                      " bytes, too large for a manifest");
      }
      StringSink sink(kMaxManifestBytes);
      VerifyingSink verifying(sink, desc.digest, desc.size);
      STRATA_TRY_VOID(fetch_blob(desc, verifying, 0));
      STRATA_TRY_VOID(verifying.verify(where() + ": manifest " + d->str()));
      STRATA_TRY(desc.media_type, sniff_manifest_media_type(sink.str(), where() + ": " + d->str()));
      return desc;
    }
    images::GetImageRequest req;
    req.set_name(image_name(ref));
    images::GetImageResponse resp;
    auto ctx = client_.context();
    grpc::Status s = client_.images().Get(ctx.get(), req, &resp);
    if (s.error_code() == grpc::StatusCode::NOT_FOUND) {
      return fail(ErrorCode::kNotFound, where() + ": no image " + str::quote(image_name(ref)) +
                                            " (`ctr -n " + client_.options().ns + " images ls` lists what there is)");
    }
    if (!s.ok()) return fail(client_.error(s, "looking up " + image_name(ref)));
    const auto& t = resp.image().target();
    Descriptor desc;
    STRATA_TRY(desc.digest, with_context(Digest::parse(t.digest()), where() + ": image " + image_name(ref)));
    desc.media_type = t.media_type();
    desc.size = t.size();
    for (const auto& [k, v] : t.annotations()) desc.annotations[k] = v;
    return desc;
  }

  Result<RawManifest> get_manifest(std::string_view ref) override {
    STRATA_TRY(auto desc, resolve(ref));
    if (desc.size < 0 || desc.size > static_cast<std::int64_t>(kMaxManifestBytes)) {
      return fail(ErrorCode::kInvalidArgument, where() + ": manifest " + desc.digest.str() + " is " +
                                                    std::to_string(desc.size) + " bytes, more than a manifest may be");
    }
    StringSink sink(kMaxManifestBytes);
    VerifyingSink verifying(sink, desc.digest, desc.size);
    Result<void> read = fetch_blob(desc, verifying, 0);
    if (read) read = verifying.verify(where() + ": manifest " + desc.digest.str());
    if (!read && !Digest::parse(ref)) STRATA_TRY_VOID(record_matches_content(ref, desc));
    STRATA_TRY_VOID(read);
    return RawManifest{desc, std::move(sink.str())};
  }

  // An image record whose target's size is not its content's (another tool
  // wrote it so): named as the record's fault, with what to do, rather than
  // as bytes containerd sent that were not due.
  Result<void> record_matches_content(std::string_view ref, const Descriptor& target) {
    STRATA_TRY(auto info, info_of(target.digest));
    if (!info || info->size() == target.size) return {};
    return fail(ErrorCode::kCorruption,
                where() + ": the image record " + image_name(ref) + " says " + target.digest.str() + " is " +
                    std::to_string(target.size) + " bytes, but containerd holds " + std::to_string(info->size()) +
                    "; write the image there again, or remove the record (ctr -n " + client_.options().ns +
                    " images rm " + image_name(ref) + ")");
  }

  Result<void> put_manifest(const RawManifest& m, std::optional<std::string_view> tag) override {
    STRATA_TRY_VOID(writable());
    STRATA_TRY_VOID(client_.begin_lease());
    auto labels = child_labels(m);
    STRATA_TRY(auto info, info_of(m.descriptor.digest));
    if (info) {
      STRATA_TRY_VOID(keep_children(m, *info));
    } else {
      ContainerdBlobWriter w(client_, m.descriptor, labels, "manifest " + m.descriptor.digest.str());
      STRATA_TRY_VOID(w.open());
      STRATA_TRY_VOID(w.restart());
      STRATA_TRY_VOID(w.write(as_bytes(m.bytes)));
      STRATA_TRY_VOID(w.commit());
      if (w.present()) {  // another writer committed it first, perhaps without the labels
        STRATA_TRY(auto theirs, info_of(m.descriptor.digest));
        if (theirs) STRATA_TRY_VOID(keep_children(m, *theirs));
      } else {
        STRATA_TRY_VOID(keep_as_referrer(m));
      }
    }
    if (tag && !tag->empty()) {
      // A record named by digest ("NAME@sha256:…", as CRI names repo digests) holds exactly that manifest.
      if (auto pinned = Digest::parse(*tag); pinned && *pinned != m.descriptor.digest) {
        return fail(ErrorCode::kInvalidArgument, where() + ": " + image_name(*tag) + " names " + pinned->str() +
                                                      ", but the image is " + m.descriptor.digest.str());
      }
      STRATA_TRY_VOID(set_image(image_name(*tag), m.descriptor));
    }
    return {};
  }

  Result<bool> has_blob(const Descriptor& desc) override {
    STRATA_TRY(auto info, info_of(desc.digest));
    if (!info) return false;
    if (info->size() != desc.size) {
      return fail(ErrorCode::kCorruption, where() + ": " + desc.digest.str() + " is stored with " +
                                              std::to_string(info->size()) + " bytes, not " + std::to_string(desc.size));
    }
    if (writable_) {
      // Present content may be no record's (left by a removed image): held
      // under the write's lease, the collector cannot take it before the
      // manifest that names it is written. The lease starts here at the
      // latest, so a long build before the first write does not outlive it.
      STRATA_TRY_VOID(client_.begin_lease());
      STRATA_TRY_VOID(client_.hold(desc.digest));
    }
    return true;
  }

  Result<void> fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) override {
    content::ReadContentRequest req;
    req.set_digest(desc.digest.str());
    req.set_offset(static_cast<std::int64_t>(offset));
    auto ctx = client_.context(/*unary=*/false);
    auto reader = client_.content().Read(ctx.get(), req);
    content::ReadContentResponse resp;
    std::uint64_t at = offset;
    const std::uint64_t end = static_cast<std::uint64_t>(std::max<std::int64_t>(desc.size, 0));
    Result<void> written;
    while (reader->Read(&resp)) {
      const std::string& data = resp.data();
      if (static_cast<std::uint64_t>(resp.offset()) != at || at + data.size() > end) {
        ctx->TryCancel();
        (void)reader->Finish();
        return fail(ErrorCode::kCorruption, where() + ": reading " + desc.digest.str() + ": containerd sent bytes " +
                                                std::to_string(resp.offset()) + "+" + std::to_string(data.size()) +
                                                " where " + std::to_string(at) + " of " + std::to_string(end) + " was due");
      }
      written = sink.write(as_bytes(data));
      if (!written) {
        ctx->TryCancel();
        (void)reader->Finish();
        return written;
      }
      at += data.size();
    }
    grpc::Status s = reader->Finish();
    if (s.error_code() == grpc::StatusCode::NOT_FOUND) {
      return fail(ErrorCode::kNotFound, where() + ": no blob " + desc.digest.str());
    }
    if (!s.ok()) return fail(client_.error(s, "reading " + desc.digest.str()));
    return {};
  }

  Result<std::unique_ptr<BlobWriter>> blob_writer(const Descriptor& desc) override {
    STRATA_TRY_VOID(writable());
    STRATA_TRY_VOID(client_.begin_lease());
    auto w = std::make_unique<ContainerdBlobWriter>(client_, desc, std::map<std::string, std::string>{},
                                                    "blob " + desc.digest.str());
    STRATA_TRY_VOID(w->open());
    return std::unique_ptr<BlobWriter>(std::move(w));
  }

  Result<std::vector<std::string>> list_tags() override {
    STRATA_TRY(auto records, list_images());
    std::vector<std::string> tags;
    const std::string prefix = ref_.name() + ":";
    for (const auto& img : records) {
      if (img.name().starts_with(prefix)) tags.push_back(img.name().substr(prefix.size()));
    }
    std::sort(tags.begin(), tags.end());
    return tags;
  }

  Result<void> delete_manifest(const Digest& digest) override {
    STRATA_TRY_VOID(writable());
    STRATA_TRY(auto records, list_images());
    const std::string prefix = ref_.name();
    for (const auto& img : records) {
      bool ours = img.name().starts_with(prefix + ":") || img.name().starts_with(prefix + "@");
      if (!ours || img.target().digest() != digest.str()) continue;
      images::DeleteImageRequest req;
      req.set_name(img.name());
      google::protobuf::Empty resp;
      auto ctx = client_.context();
      grpc::Status s = client_.images().Delete(ctx.get(), req, &resp);
      if (!s.ok() && s.error_code() != grpc::StatusCode::NOT_FOUND) return fail(client_.error(s, "deleting " + img.name()));
    }
    return {};
  }

  Result<void> close() override { return client_.end_lease(); }

 private:
  const std::string& where() const { return client_.where(); }

  Result<void> writable() const {
    if (writable_) return {};
    return fail(ErrorCode::kInvalidArgument, describe() + " was opened for reading");
  }

  // "docker.io/library/x:tag", or "docker.io/library/x@sha256:…" for a digest.
  std::string image_name(std::string_view tag_or_digest) const {
    bool digest = Digest::parse(tag_or_digest).has_value();
    return ref_.name() + (digest ? "@" : ":") + std::string(tag_or_digest);
  }

  // The content's Info, or nullopt when the store does not have it.
  Result<std::optional<content::Info>> info_of(const Digest& d) {
    content::InfoRequest req;
    req.set_digest(d.str());
    content::InfoResponse resp;
    auto ctx = client_.context();
    grpc::Status s = client_.content().Info(ctx.get(), req, &resp);
    if (s.error_code() == grpc::StatusCode::NOT_FOUND) return std::optional<content::Info>();
    if (!s.ok()) return fail(client_.error(s, "asking for " + d.str()));
    return std::optional<content::Info>(resp.info());
  }

  // A manifest in the store: held under the write's lease, its child labels
  // added where missing, and when it refers to a subject, kept by it.
  Result<void> keep_children(const RawManifest& m, const content::Info& info) {
    STRATA_TRY_VOID(client_.hold(m.descriptor.digest));
    STRATA_TRY_VOID(add_missing_labels(info, child_labels(m)));
    return keep_as_referrer(m);
  }

  // A referrer (a signature, an SBOM) has no image record of its own: its
  // subject carries a gc.ref.content label for it, so the collector keeps it
  // as long as the subject stays (else it goes when the lease ends).
  Result<void> keep_as_referrer(const RawManifest& m) {
    auto parsed = parse_manifest(m.bytes, m.descriptor.media_type, "manifest " + m.descriptor.digest.str());
    if (!parsed) return {};
    const auto* subject = std::visit([](const auto& x) { return x.subject ? &*x.subject : nullptr; }, *parsed);
    if (subject == nullptr) return {};
    STRATA_TRY(auto info, info_of(subject->digest));
    if (!info) return {};  // the subject is not here: nothing to keep the referrer by
    std::map<std::string, std::string> label{
        {digest_labels_key("referrer." + m.descriptor.digest.str()), m.descriptor.digest.str()}};
    return add_missing_labels(*info, label);
  }

  // A manifest already in the store (an earlier import, another tool) gets
  // the child labels it lacks, so the collector keeps its children.
  Result<void> add_missing_labels(const content::Info& info, const std::map<std::string, std::string>& labels) {
    content::UpdateRequest req;
    req.mutable_info()->set_digest(info.digest());
    for (const auto& [k, v] : labels) {
      auto it = info.labels().find(k);
      if (it != info.labels().end() && it->second == v) continue;
      (*req.mutable_info()->mutable_labels())[k] = v;
      req.mutable_update_mask()->add_paths("labels." + k);
    }
    if (req.update_mask().paths_size() == 0) return {};
    content::UpdateResponse resp;
    auto ctx = client_.context();
    grpc::Status s = client_.content().Update(ctx.get(), req, &resp);
    if (!s.ok()) return fail(client_.error(s, "labelling " + info.digest()));
    return {};
  }

  // Creates the image record, or moves an existing one to `target`: the
  // last step, after every blob it reaches is committed.
  Result<void> set_image(const std::string& name, const Descriptor& target) {
    images::Image img;
    img.set_name(name);
    auto* t = img.mutable_target();
    t->set_media_type(target.media_type);
    t->set_digest(target.digest.str());
    t->set_size(target.size);
    for (const auto& [k, v] : target.annotations) (*t->mutable_annotations())[k] = v;
    if (client_.options().ns == "k8s.io") (*img.mutable_labels())[std::string(kCriImageLabel)] = "managed";
    images::CreateImageRequest create;
    *create.mutable_image() = img;
    images::CreateImageResponse created;
    auto ctx = client_.context();
    grpc::Status s = client_.images().Create(ctx.get(), create, &created);
    if (s.ok()) return {};
    if (s.error_code() != grpc::StatusCode::ALREADY_EXISTS) return fail(client_.error(s, "creating image " + name));
    images::UpdateImageRequest update;
    *update.mutable_image() = img;
    update.mutable_update_mask()->add_paths("target");
    for (const auto& [k, v] : img.labels()) update.mutable_update_mask()->add_paths("labels." + k);
    images::UpdateImageResponse updated;
    auto uctx = client_.context();
    s = client_.images().Update(uctx.get(), update, &updated);
    if (!s.ok()) return fail(client_.error(s, "updating image " + name));
    return {};
  }

  Result<std::vector<images::Image>> list_images() {
    images::ListImagesRequest req;
    images::ListImagesResponse resp;
    auto ctx = client_.context();
    grpc::Status s = client_.images().List(ctx.get(), req, &resp);
    if (!s.ok()) return fail(client_.error(s, "listing images"));
    return std::vector<images::Image>(resp.images().begin(), resp.images().end());
  }

  Client client_;
  DockerReference ref_;
  bool writable_;
};

}  // namespace

Result<std::unique_ptr<Store>> open_containerd_store(const DockerReference& ref, Access access,
                                                     const ContainerdOptions& options) {
  const std::string name = "containerd:" + ref.str();
  const std::string path = socket_path(options.address);
  if (std::string why = unreachable_reason(path); !why.empty()) {
    return fail(ErrorCode::kUnreachable, name + ": cannot reach containerd at " + path + ": " + why +
                                             "; start containerd, or name its socket with --containerd-address "
                                             "or CONTAINERD_ADDRESS");
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessage);
  args.SetMaxSendMessageSize(kMaxMessage);
  // A containerd that stops answering (stopped, wedged) without closing the
  // socket fails the streams, which have no deadline, once a keepalive ping
  // goes unanswered. Five minutes: containerd's gRPC server refuses clients
  // that ping more often.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 5 * 60 * 1000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20 * 1000);
  auto channel = grpc::CreateCustomChannel("unix://" + path, grpc::InsecureChannelCredentials(), args);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10))) {
    return fail(ErrorCode::kUnreachable, name + ": containerd at " + path +
                                             " accepted a connection but did not speak gRPC within 10 s; is it containerd's socket "
                                             "(not the ttrpc or debug one)?");
  }
  // The lease is taken by the first write (Client::begin_lease).
  return std::unique_ptr<Store>(std::make_unique<ContainerdStore>(channel, options, ref, access == Access::kWrite));
}

}  // namespace strata::oci::containerd
