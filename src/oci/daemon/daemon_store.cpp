#include "oci/daemon/daemon_store.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "oci/archive_store.hpp"
#include "oci/docker_archive.hpp"
#include "oci/http/curl_transport.hpp"
#include "oci/layout_store.hpp"
#include "oci/layout_tar.hpp"
#include "oci/media_types.hpp"
#include "oci/registry/byte_pipe.hpp"
#include "oci/tar_reader.hpp"
#include "util/env.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci::daemon {
namespace stdfs = std::filesystem;

namespace {

// Docker 19.03's API, the oldest Docker itself still serves by default;
// podman 4.0's libpod API, the oldest podman's libpod routes still serve.
constexpr int kDockerMinMajor = 1, kDockerMinMinor = 40;
// Spoken when the daemon offers more: every route used is older.
constexpr int kDockerMaxMajor = 1, kDockerMaxMinor = 45;
constexpr int kPodmanMinMajor = 4;
// A load is answered only once the daemon has registered every layer, which
// for a large image takes minutes with nothing on the wire; a daemon that
// hangs longer than this is given up on.
constexpr std::chrono::seconds kStallTimeout{900};
// The tar body goes through a pipe of this size between the thread making
// it and libcurl sending it.
constexpr std::size_t kPipeBytes = std::size_t{4} << 20;
// Bodies read into memory: _ping, a load's message stream, an inspect, the
// image list.
constexpr std::size_t kSmallBody = std::size_t{1} << 20;
constexpr std::size_t kImageListBody = std::size_t{64} << 20;

const char* transport_of(Daemon d) { return d == Daemon::kDocker ? "docker-daemon:" : "podman:"; }
const char* daemon_name(Daemon d) { return d == Daemon::kDocker ? "Docker" : "podman's API service"; }
const char* host_variable(Daemon d) { return d == Daemon::kDocker ? "DOCKER_HOST" : "CONTAINER_HOST"; }

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

// The default podman socket: rootful as root, else the user's.
std::string default_podman_socket() {
  if (::geteuid() == 0) return "/run/podman/podman.sock";
  std::string runtime = env_or_empty("XDG_RUNTIME_DIR");
  if (runtime.empty()) runtime = "/run/user/" + std::to_string(::geteuid());
  return runtime + "/podman/podman.sock";
}

// What starts the daemon that should answer at `ep`.
std::string start_hint(Daemon d, const Endpoint& ep) {
  const std::string var = host_variable(d);
  if (d == Daemon::kDocker) {
    if (ep.socket.empty()) return "start the daemon at " + ep.shown + " or set " + var;
    return "start dockerd (systemctl start docker) or set " + var;
  }
  if (ep.socket.empty()) return "start `podman system service --time=0 " + ep.shown + "` there or set " + var;
  const std::string serve = "`podman system service --time=0 unix://" + ep.socket + "`";
  if (!ep.from_env && ::geteuid() != 0) return "run `systemctl --user start podman.socket` or " + serve + ", or set " + var;
  if (!ep.from_env) return "run `systemctl start podman.socket` or " + serve + ", or set " + var;
  return "run " + serve + ", or set " + var + " to the socket of a running service";
}

// connect(2) to a unix socket: 0 when something accepts, else errno.
int probe_socket(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) return ENAMETOOLONG;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int err = 0;
  while (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (errno == EINTR) continue;
    err = errno;
    break;
  }
  ::close(fd);
  return err;
}

struct ApiVersion {
  int major = 0, minor = 0, patch = 0;
};
std::optional<ApiVersion> parse_version(std::string_view text) {
  auto parts = str::split(str::trim(text), '.');
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  ApiVersion v;
  auto a = str::parse_u64(parts[0]);
  auto b = str::parse_u64(parts[1]);
  auto c = parts.size() == 3 ? str::parse_u64(parts[2]) : std::optional<std::uint64_t>(0);
  if (!a || !b || !c || *a > 1000 || *b > 1000 || *c > 100000) return std::nullopt;
  v.major = static_cast<int>(*a);
  v.minor = static_cast<int>(*b);
  v.patch = static_cast<int>(*c);
  return v;
}
bool older(const ApiVersion& v, int major, int minor) { return v.major < major || (v.major == major && v.minor < minor); }

// The message of a daemon's JSON error body ({"message": …}), else the body's start.
std::string error_body(const http::Response& r) {
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_object()) {
    if (auto m = j.find("message"); m != j.end() && m->is_string()) return m->get<std::string>();
  }
  std::string text(str::trim(r.body.substr(0, 300)));
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text.empty() ? "no message" : text;
}

// Something that failed in one line: newlines of a daemon's message go.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The private staging directories are `daemon-PID-N` under $STRATA_HOME/tmp.
constexpr std::string_view kStagingPrefix = "daemon-";

// Staging directories of processes no longer running: a killed run's leftovers.
void remove_orphan_staging(const stdfs::path& dir) {
  std::error_code ec;
  for (const auto& entry : stdfs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kStagingPrefix) || !entry.is_directory(ec)) continue;
    auto rest = std::string_view(name).substr(kStagingPrefix.size());
    auto pid = str::parse_u64(rest.substr(0, rest.find('-')));
    if (!pid || *pid == 0 || *pid > INT32_MAX) continue;
    if (::kill(static_cast<pid_t>(*pid), 0) == 0 || errno != ESRCH) continue;
    (void)fs::remove_tree(entry.path());  // what stays is tried again by the next open
  }
}

Result<stdfs::path> make_staging(const stdfs::path& home, const std::string& what) {
  const stdfs::path tmp = home / "tmp";
  STRATA_TRY_VOID(with_context(fs::make_dirs(tmp), what + ": staging under $STRATA_HOME"));
  remove_orphan_staging(tmp);
  std::random_device rd;
  for (int i = 0; i < 16; ++i) {
    stdfs::path p = tmp / (std::string(kStagingPrefix) + std::to_string(::getpid()) + "-" + std::to_string(rd() & 0xffffff));
    int err = fs::env().make_dir(p, 0700);
    if (err == 0) return p;
    if (err != EEXIST) return fail(fs::io_error(what + ": cannot create the staging directory", p, err));
  }
  return fail(ErrorCode::kIoError, what + ": cannot create a staging directory in " + tmp.string());
}

// The response body of an export into a file, held to what the staging
// file system can take (and ReadLimits' ceiling), so a daemon sending more
// than fits is stopped with a message rather than by a full disk.
class BoundedFileSink final : public ByteSink {
 public:
  BoundedFileSink(fs::AtomicFile& file, std::uint64_t limit, std::string why)
      : file_(file), limit_(limit), why_(std::move(why)) {}
  Result<void> write(std::span<const std::byte> data) override {
    written_ += data.size();
    if (written_ > limit_) {
      overflowed_ = true;
      return fail(ErrorCode::kIoError, "the image is larger than " + why_);
    }
    return file_.write(data);
  }
  bool overflowed() const { return overflowed_; }

 private:
  fs::AtomicFile& file_;
  std::uint64_t limit_;
  std::string why_;
  std::uint64_t written_ = 0;
  bool overflowed_ = false;
};

// The layout tar's bytes into the pipe libcurl sends from.
class PipeSink final : public ByteSink {
 public:
  explicit PipeSink(registry::BytePipe& pipe) : pipe_(pipe) {}
  Result<void> write(std::span<const std::byte> data) override { return pipe_.write(data); }

 private:
  registry::BytePipe& pipe_;
};

// A blob recorded by link_blob: the source's file, held open from then on
// (a gc of the source cannot take it away before close() sends it).
struct LinkedBlob {
  Descriptor desc;
  std::shared_ptr<fs::ReadableFile> file;
  stdfs::path path;
};

// A linked blob's bytes from `offset` on, read through the descriptor held
// since link_blob. `verify`: the whole blob is checked against its digest as
// it is sent (a file changed since it was linked fails before its last byte).
Result<void> read_linked(const LinkedBlob& blob, ByteSink& sink, std::uint64_t offset, bool verify) {
  DigestVerifier verifier(blob.desc.digest, blob.desc.size);
  const int fd = blob.file->fd();
  fs::ReadBuffer buf(static_cast<std::uint64_t>(blob.desc.size) - std::min<std::uint64_t>(offset, blob.desc.size));
  auto pos = static_cast<off_t>(verify ? 0 : offset);
  while (true) {
    ssize_t n = ::pread(fd, buf.data(), buf.size(), pos);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(fs::io_error("cannot read", blob.path, errno));
    }
    if (n == 0) break;
    auto piece = std::span<const std::byte>(buf.data(), static_cast<std::size_t>(n));
    if (verify) STRATA_TRY_VOID(verifier.update(piece));
    STRATA_TRY_VOID(sink.write(piece));
    pos += n;
  }
  if (!verify) return {};
  return verifier.verify(blob.path.string() + " (changed since the copy took it)");
}

class DaemonStore final : public Store {
 public:
  DaemonStore(Daemon daemon, DockerReference repo, Endpoint ep, Access access)
      : daemon_(daemon), repo_(std::move(repo)), ep_(std::move(ep)), access_(access) {
    repo_.tag.reset();
    repo_.digest.reset();
  }
  ~DaemonStore() override {
    readers_.clear();  // their files live in the staging directory
    layout_.reset();
    if (!staging_.empty()) {
      std::error_code ec;
      stdfs::remove_all(staging_, ec);
    }
  }

  Result<void> connect(const OpenOptions& options);
  Result<void> prepare_write(const OpenOptions& options) {
    STRATA_TRY(staging_, make_staging(options.home, describe()));
    STRATA_TRY(layout_, LayoutStore::open(staging_ / "layout", LayoutMode::kCreate));
    return {};
  }
  Result<void> prepare_read(const OpenOptions& options) {
    STRATA_TRY(staging_, make_staging(options.home, describe()));
    return {};
  }

  // As the name was written: "docker-daemon:debian", "podman:quay.io/x/y".
  std::string describe() const override {
    std::string shown = repo_.name();
    if (repo_.registry == "docker.io") {
      shown = repo_.repository.starts_with("library/") ? repo_.repository.substr(8) : repo_.repository;
    }
    return transport_of(daemon_) + shown;
  }
  Result<Descriptor> resolve(std::string_view ref) override;
  Result<RawManifest> get_manifest(std::string_view ref) override;
  Result<void> put_manifest(const RawManifest& manifest, std::optional<std::string_view> tag) override;
  bool keeps_referrers() const override { return false; }  // its store keeps configs and layers
  Result<bool> has_blob(const Descriptor& desc) override;
  Result<void> fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) override;
  Result<std::unique_ptr<BlobWriter>> blob_writer(const Descriptor& desc) override;
  Result<std::unique_ptr<UnnamedBlobWriter>> unnamed_blob_writer() override;
  Result<bool> link_blob(const Descriptor& desc, Store& source) override;
  Result<std::vector<std::string>> list_tags() override;
  Result<void> delete_manifest(const Digest& digest) override {
    (void)digest;
    return fail(ErrorCode::kUnsupported, describe() + ": strata does not remove images from " + daemon_name(daemon_) +
                                             "'s store; use `" + (daemon_ == Daemon::kDocker ? "docker" : "podman") +
                                             " rmi " + repo_.name() + ":TAG`");
  }
  Result<void> close() override;

  // Exports `tag` from the daemon (once) and opens it as an archive.
  Result<ArchiveStore*> exported(const std::string& tag);

 private:
  // "docker.io/library/x:TAG": how the image is named to the daemon.
  std::string image_name(std::string_view tag) const { return repo_.name() + ":" + std::string(tag); }
  std::string at() const { return std::string(daemon_name(daemon_)) + " at " + ep_.shown; }
  // An API path with the negotiated version: "/v1.41/images/load".
  std::string url(std::string_view path) const {
    return ep_.base_url + (daemon_ == Daemon::kPodman ? libpod_prefix_ : api_prefix_) + std::string(path);
  }
  // Writing after close() (the staging is gone) is refused.
  Result<void> writable() const {
    if (access_ != Access::kWrite) return fail(ErrorCode::kUnsupported, describe() + " was opened for reading");
    if (!layout_) return fail(ErrorCode::kFailedPrecondition, describe() + " was closed");
    return {};
  }
  // A transport-level failure (no HTTP answer) as one line naming the socket.
  Error unreachable(const Error& e, std::string_view doing) const;
  Error refused(const http::Response& r, std::string_view doing) const;
  Result<std::string> tag_of(std::string_view ref) const;
  Error renamed(const Error& e, const stdfs::path& file) const;
  Result<void> verify_loaded(const std::map<std::string, Digest>& expected);

  Daemon daemon_;
  DockerReference repo_;
  Endpoint ep_;
  Access access_;
  std::unique_ptr<http::CurlTransport> http_;
  std::string api_prefix_;     // "/v1.41"
  std::string libpod_prefix_;  // "/v4.3.1/libpod"
  stdfs::path staging_;
  // Writing.
  std::unique_ptr<LayoutStore> layout_;
  std::mutex mu_;
  std::map<Digest, LinkedBlob> linked_;
  bool changed_ = false;
  bool closed_ = false;
  // Reading: one exported archive per tag asked for.
  std::map<std::string, std::unique_ptr<ArchiveStore>> readers_;
  int exports_ = 0;
};

Error DaemonStore::unreachable(const Error& e, std::string_view doing) const {
  return Error(e.code() == ErrorCode::kDeadlineExceeded ? e.code() : ErrorCode::kUnavailable,
               describe() + ": " + at() + " did not answer " + std::string(doing) + " (" + one_line(e.message()) +
                   "); check that the daemon runs (" + start_hint(daemon_, ep_) + ")");
}

Error DaemonStore::refused(const http::Response& r, std::string_view doing) const {
  ErrorCode code = r.status == 404 ? ErrorCode::kNotFound : ErrorCode::kFailedPrecondition;
  return Error(code, describe() + ": " + at() + " refused " + std::string(doing) + " (HTTP " + std::to_string(r.status) +
                         ": " + one_line(error_body(r)) + ")");
}

Result<void> DaemonStore::connect(const OpenOptions& options) {
  if (!ep_.socket.empty()) {
    int err = probe_socket(ep_.socket);
    if (err != 0) {
      std::string why;
      ErrorCode code = ErrorCode::kUnreachable;
      std::string next = start_hint(daemon_, ep_);
      if (err == ENOENT) {
        why = "no such socket";
      } else if (err == EACCES || err == EPERM) {
        why = "permission denied";
        code = ErrorCode::kUnauthorized;
        next = daemon_ == Daemon::kDocker
                   ? "run strata as root or as a member of the group that owns the socket (docker), or set DOCKER_HOST"
                   : "run strata as the user that owns the socket, or set CONTAINER_HOST to your own service's socket";
      } else if (err == ECONNREFUSED) {
        why = "nothing listens there (a daemon that stopped left its socket)";
      } else if (err == ENOTSOCK) {
        why = "not a socket";
      } else {
        why = std::strerror(err);
      }
      return fail(code, describe() + ": cannot reach " + at() + ": " + why + "; " + next);
    }
  }
  http::CurlOptions co;
  co.unix_socket = ep_.socket;
  co.allow_plain_http = true;  // a daemon's socket, or the tcp:// the user named
  co.default_cert_dirs.clear();
  if (options.connect_timeout > 0) co.connect_timeout = std::chrono::seconds(options.connect_timeout);
  // _ping is answered at once by a daemon that works: one that accepted the
  // connection and says nothing is given the registry's low-speed timeout,
  // not a load's.
  http::CurlOptions ping_options = co;
  if (options.low_speed_timeout > 0) ping_options.stall_timeout = std::chrono::seconds(options.low_speed_timeout);
  co.stall_timeout = kStallTimeout;
  http_ = std::make_unique<http::CurlTransport>(std::move(co));
  http::Request req;
  req.url = ep_.base_url + "/_ping";
  req.max_body = kSmallBody;
  auto resp = http::CurlTransport(std::move(ping_options)).send(req);
  if (!resp) return fail(unreachable(resp.error(), "GET /_ping"));
  if (resp->status != 200) {
    return fail(ErrorCode::kFailedPrecondition, describe() + ": " + ep_.shown + " does not answer as " +
                                                    daemon_name(daemon_) + " (GET /_ping: HTTP " +
                                                    std::to_string(resp->status) + "); set " + host_variable(daemon_) +
                                                    " to its socket");
  }
  auto api = resp->headers.get("Api-Version");
  auto libpod = resp->headers.get("Libpod-Api-Version");
  if (daemon_ == Daemon::kPodman) {
    if (!libpod) {
      return fail(ErrorCode::kFailedPrecondition,
                  describe() + ": " + ep_.shown + " answers as Docker, not podman (no Libpod-Api-Version); use docker-daemon:" +
                      repo_.name() + ", or set CONTAINER_HOST to podman's socket");
    }
    auto v = negotiate_api_version(daemon_, *libpod);
    if (!v) {
      return fail(ErrorCode::kFailedPrecondition, describe() + ": " + at() + " speaks libpod API " + *libpod +
                                                      "; strata needs " + std::to_string(kPodmanMinMajor) +
                                                      ".0.0 or later (podman 4); upgrade podman");
    }
    libpod_prefix_ = "/v" + *v + "/libpod";
    return {};
  }
  if (!api) {
    return fail(ErrorCode::kFailedPrecondition, describe() + ": " + ep_.shown +
                                                    " does not answer as Docker (no Api-Version from GET /_ping); set DOCKER_HOST to its socket");
  }
  auto v = negotiate_api_version(daemon_, *api);
  if (!v) {
    return fail(ErrorCode::kFailedPrecondition,
                describe() + ": " + at() + " speaks API " + one_line(*api) + "; strata needs " +
                    std::to_string(kDockerMinMajor) + "." + std::to_string(kDockerMinMinor) +
                    " or later (Docker 19.03); upgrade Docker or set DOCKER_HOST to a newer daemon");
  }
  api_prefix_ = "/v" + *v;
  // DOCKER_API_VERSION pins the version, as it does for Docker's client.
  if (std::string pinned = env_or_empty("DOCKER_API_VERSION"); !pinned.empty()) {
    auto p = parse_version(pinned);
    if (!p || std::count(pinned.begin(), pinned.end(), '.') != 1 || !negotiate_api_version(daemon_, pinned)) {
      return fail(ErrorCode::kInvalidArgument, describe() + ": DOCKER_API_VERSION=" + one_line(pinned) +
                                                   " is not an API version strata speaks (1.40 or later, as 1.41)");
    }
    api_prefix_ = "/v" + std::to_string(p->major) + "." + std::to_string(p->minor);
  }
  return {};
}

Result<std::string> DaemonStore::tag_of(std::string_view ref) const {
  if (ref.empty()) return std::string("latest");
  if (!is_valid_tag(ref)) {
    return fail(ErrorCode::kInvalidArgument, describe() + ": " + str::quote(ref) +
                                                 " is not a tag; " + daemon_name(daemon_) +
                                                 "'s store is read and written by NAME:TAG");
  }
  return std::string(ref);
}

Error DaemonStore::renamed(const Error& e, const stdfs::path& file) const {
  std::string m = e.message();
  for (const std::string& from : {"docker-archive:" + file.string(), "oci-archive:" + file.string(), file.string()}) {
    for (auto pos = m.find(from); pos != std::string::npos; pos = m.find(from, pos)) {
      m.replace(pos, from.size(), describe());
      pos += describe().size();
    }
  }
  return Error(e.code(), m);
}

Result<ArchiveStore*> DaemonStore::exported(const std::string& tag) {
  std::lock_guard lock(mu_);
  if (auto it = readers_.find(tag); it != readers_.end()) return it->second.get();
  const std::string name = image_name(tag);
  const stdfs::path file = staging_ / ("export-" + std::to_string(exports_++) + ".tar");
  std::error_code ec;
  auto space = stdfs::space(staging_, ec);
  std::uint64_t limit = ReadLimits{}.max_uncompressed_bytes;
  std::string why = std::to_string(limit >> 30) + " GiB";
  if (!ec && space.available < limit) {
    limit = space.available;
    why = "the free space of " + staging_.parent_path().string() + " (" + str::human_bytes(limit) +
          "), where it is received; free space there or point STRATA_HOME at a larger file system";
  }
  STRATA_TRY(auto out, fs::AtomicFile::create(file));
  BoundedFileSink sink(out, limit, why);
  http::Request req;
  // Docker sends a docker-archive; podman is asked for an oci-archive, which
  // is read in place (only its small members are copied out).
  req.url = daemon_ == Daemon::kDocker ? url("/images/" + name + "/get")
                                       : url("/images/" + name + "/get?format=oci-archive");
  req.sink = &sink;
  req.max_body = kSmallBody;
  auto resp = http_->send(req);
  if (!resp) {
    if (sink.overflowed() || resp.error().is(ErrorCode::kIoError)) {
      return fail(resp.error().code(), describe() + ": receiving " + name + " from " + at() + ": " + one_line(resp.error().message()));
    }
    return fail(unreachable(resp.error(), "the export of " + name));
  }
  if (resp->status == 404) {
    return fail(ErrorCode::kNotFound, describe() + ":" + tag + ": no such image in " + at() + " (" +
                                          one_line(error_body(*resp)) + ")");
  }
  if (resp->status != 200) return fail(refused(*resp, "the export of " + name));
  STRATA_TRY_VOID(out.commit());
  auto format = daemon_ == Daemon::kDocker ? ArchiveFormat::kDocker : ArchiveFormat::kOci;
  auto archive = ArchiveStore::open(file, format, ArchiveMode::kRead);
  if (!archive) return fail(renamed(archive.error(), file));
  if (format == ArchiveFormat::kDocker) {
    // Extracted whole into the archive's own staging: the tar is not read again.
    stdfs::remove(file, ec);
  }
  ArchiveStore* raw = archive->get();
  readers_.emplace(tag, std::move(*archive));
  return raw;
}

Result<Descriptor> DaemonStore::resolve(std::string_view ref) {
  STRATA_TRY(auto tag, tag_of(ref));
  if (access_ == Access::kWrite) {
    STRATA_TRY_VOID(writable());
    auto r = layout_->resolve(image_name(tag));
    if (!r && r.error().is(ErrorCode::kNotFound)) {
      return fail(ErrorCode::kNotFound, describe() + ":" + tag + " was not written by this command");
    }
    return r;
  }
  STRATA_TRY(auto* archive, exported(tag));
  auto r = archive->resolve(image_name(tag));
  if (r || !r.error().is(ErrorCode::kNotFound)) return r;
  // The export holds the one image asked for; podman may name it otherwise
  // in an oci-archive (or not at all).
  STRATA_TRY(auto tags, archive->list_tags());
  if (tags.size() == 1) return archive->resolve(tags.front());
  return fail(ErrorCode::kNotFound, describe() + ":" + tag + ": the image " + at() + " exported is not named " +
                                        image_name(tag) + " (it holds " + std::to_string(tags.size()) + " names)");
}

Result<RawManifest> DaemonStore::get_manifest(std::string_view ref) {
  if (auto d = Digest::parse(ref)) {
    if (access_ == Access::kWrite) {
      STRATA_TRY_VOID(writable());
      return layout_->get_manifest(ref);
    }
    std::lock_guard lock(mu_);
    for (auto& [tag, archive] : readers_) {
      auto m = archive->get_manifest(ref);
      if (m || !m.error().is(ErrorCode::kNotFound)) return m;
    }
    return fail(ErrorCode::kNotFound, describe() + ": no manifest " + std::string(ref) +
                                          " among the images read (the daemon is asked by NAME:TAG)");
  }
  STRATA_TRY(auto desc, resolve(ref));
  if (access_ == Access::kWrite) return layout_->get_manifest(desc.digest.str());
  STRATA_TRY(auto tag, tag_of(ref));
  STRATA_TRY(auto* archive, exported(tag));
  return archive->get_manifest(desc.digest.str());
}

Result<void> DaemonStore::put_manifest(const RawManifest& manifest, std::optional<std::string_view> tag) {
  STRATA_TRY_VOID(writable());
  if (!media::is_image_manifest(manifest.descriptor.media_type) && tag && !tag->empty()) {
    return fail(ErrorCode::kUnsupported, describe() + ": " + daemon_name(daemon_) +
                                             "'s store takes single-platform images here, not " +
                                             manifest.descriptor.media_type + "; copy one platform (--platform)");
  }
  // A referrer (--referrers: a signature, an SBOM) would go into the load as
  // an image of its own, and the daemon refuses the whole load over it; it
  // could not keep one anyway (its store keeps configs and layers).
  if (!tag || tag->empty()) {
    auto parsed = parse_manifest(manifest.bytes, manifest.descriptor.media_type, describe());
    const bool referrer =
        parsed && std::visit([](const auto& m) { return m.subject.has_value(); }, *parsed);
    if (referrer) {
      return fail(ErrorCode::kUnsupported, describe() + ": " + daemon_name(daemon_) + "'s store keeps no referrers (" +
                                               manifest.descriptor.digest.str() +
                                               " refers to another image); copy without --referrers, or copy "
                                               "the referrers to a registry or a layout");
    }
  }
  std::optional<std::string> name;
  if (tag && !tag->empty()) {
    STRATA_TRY(auto t, tag_of(*tag));
    name = image_name(t);
  }
  {
    std::lock_guard lock(mu_);
    changed_ = true;
  }
  if (name) return layout_->put_manifest(manifest, *name);
  return layout_->put_manifest(manifest, std::nullopt);
}

Result<bool> DaemonStore::has_blob(const Descriptor& desc) {
  if (access_ == Access::kWrite) {
    {
      std::lock_guard lock(mu_);
      if (linked_.contains(desc.digest)) return true;
    }
    STRATA_TRY_VOID(writable());
    return layout_->has_blob(desc);
  }
  std::lock_guard lock(mu_);
  for (auto& [tag, archive] : readers_) {
    STRATA_TRY(bool has, archive->has_blob(desc));
    if (has) return true;
  }
  return false;
}

Result<void> DaemonStore::fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) {
  if (access_ == Access::kWrite) {
    std::optional<LinkedBlob> linked;
    {
      std::lock_guard lock(mu_);
      if (auto it = linked_.find(desc.digest); it != linked_.end()) linked = it->second;
    }
    if (!linked) {
      STRATA_TRY_VOID(writable());
      return layout_->fetch_blob(desc, sink, offset);
    }
    return read_linked(*linked, sink, offset, false);  // the caller verifies
  }
  ArchiveStore* holder = nullptr;
  {
    std::lock_guard lock(mu_);
    for (auto& [tag, archive] : readers_) {
      STRATA_TRY(bool has, archive->has_blob(desc));
      if (has) {
        holder = archive.get();
        break;
      }
    }
  }
  if (holder == nullptr) {
    return fail(ErrorCode::kNotFound, describe() + ": blob " + desc.digest.str() + " is in none of the images read");
  }
  return holder->fetch_blob(desc, sink, offset);
}

Result<std::unique_ptr<BlobWriter>> DaemonStore::blob_writer(const Descriptor& desc) {
  STRATA_TRY_VOID(writable());
  return layout_->blob_writer(desc);
}

Result<std::unique_ptr<UnnamedBlobWriter>> DaemonStore::unnamed_blob_writer() {
  if (access_ != Access::kWrite) return std::unique_ptr<UnnamedBlobWriter>();
  STRATA_TRY_VOID(writable());
  return layout_->unnamed_blob_writer();
}

Result<bool> DaemonStore::link_blob(const Descriptor& desc, Store& source) {
  if (access_ != Access::kWrite || !layout_ || !desc.digest.verifiable() || desc.size < 0) return false;
  auto path = source.blob_file(desc);
  if (!path) return false;
  auto opened = fs::ReadableFile::open(*path);
  if (!opened || opened->size() != static_cast<std::uint64_t>(desc.size)) return false;  // the caller copies
  std::lock_guard lock(mu_);
  linked_.insert_or_assign(desc.digest,
                           LinkedBlob{desc, std::make_shared<fs::ReadableFile>(std::move(*opened)), *path});
  return true;
}

Result<std::vector<std::string>> DaemonStore::list_tags() {
  http::Request req;
  req.url = url("/images/json");
  req.max_body = kImageListBody;
  auto resp = http_->send(req);
  if (!resp) return fail(unreachable(resp.error(), "GET /images/json"));
  if (resp->status != 200) return fail(refused(*resp, "the image list"));
  const auto list = nlohmann::json::parse(resp->body, nullptr, false);
  if (!list.is_array()) {
    return fail(ErrorCode::kInvalidArgument, describe() + ": " + at() + " answered GET /images/json with no list");
  }
  std::vector<std::string> tags;
  for (const auto& image : list) {
    if (!image.is_object()) continue;
    auto names = image.find("RepoTags");
    if (names == image.end() || !names->is_array()) continue;
    for (const auto& n : *names) {
      if (!n.is_string()) continue;
      auto r = parse_docker_reference(n.get<std::string>());
      if (!r || !r->tag || r->name() != repo_.name()) continue;  // "<none>:<none>", another repository
      tags.push_back(*r->tag);
    }
  }
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  return tags;
}


Result<void> DaemonStore::verify_loaded(const std::map<std::string, Digest>& expected) {
  for (const auto& [name, config] : expected) {
    http::Request req;
    req.url = url("/images/" + name + "/json");
    req.max_body = kSmallBody;
    auto resp = http_->send(req);
    if (!resp) return fail(unreachable(resp.error(), "the inspection of " + name + " after the load"));
    if (resp->status != 200) return fail(refused(*resp, "the inspection of " + name + " after the load"));
    const auto j = nlohmann::json::parse(resp->body, nullptr, false);
    std::string id;
    if (j.is_object()) {
      if (auto it = j.find("Id"); it != j.end() && it->is_string()) id = it->get<std::string>();
    }
    if (id.starts_with("sha256:")) id = id.substr(7);
    if (id != config.hex()) {
      return fail(ErrorCode::kCorruption, describe() + ": after the load " + at() + " names " + name + " image " +
                                              (id.empty() ? std::string("(none)") : id) + ", not the config " +
                                              config.str() + " strata sent; load it again");
    }
  }
  return {};
}

Result<void> DaemonStore::close() {
  if (access_ != Access::kWrite || closed_) return {};
  closed_ = true;
  // Sent or not, the staging goes now (the linked files are let go with it).
  struct Cleanup {
    DaemonStore& s;
    ~Cleanup() {
      s.linked_.clear();
      s.layout_.reset();
      std::error_code ec;
      stdfs::remove_all(s.staging_, ec);
    }
  } cleanup{*this};
  if (!changed_) return {};
  STRATA_TRY_VOID(write_docker_manifest_json(*layout_, layout_->dir(), describe()));
  // The images loaded, by name, with the config each must have.
  std::map<std::string, Digest> expected;
  STRATA_TRY(auto entries, layout_->entries());
  for (const auto& e : entries) {
    if (e.ref_name().empty()) continue;
    STRATA_TRY(auto raw, layout_->get_manifest(e.digest.str()));
    STRATA_TRY(auto parsed, parse_manifest(raw.bytes, raw.descriptor.media_type, describe()));
    if (const auto* m = std::get_if<ImageManifest>(&parsed)) expected.insert_or_assign(e.ref_name(), m->config.digest);
  }
  LayoutTarOptions options;
  options.optional_files = {"manifest.json", "repositories"};
  for (const auto& [digest, blob] : linked_) {
    const std::string member = "blobs/" + std::string(digest.algorithm()) + "/" + std::string(digest.hex());
    const LinkedBlob* b = &blob;
    options.extra_blobs.emplace(member, LayoutTarBlob{static_cast<std::uint64_t>(blob.desc.size),
                                                      [b](ByteSink& sink) { return read_linked(*b, sink, 0, true); }});
  }
  registry::BytePipe pipe(kPipeBytes);
  std::optional<Error> produce_error;
  std::thread producer([&] {
    PipeSink sink(pipe);
    auto made = write_layout_tar_to(layout_->dir(), sink, describe(), options);
    if (made) {
      pipe.finish();
    } else {
      produce_error = made.error();
      pipe.fail(made.error());
    }
  });
  http::BodySource body;
  body.size = -1;  // chunked: the tar is made as it is sent
  // Whether the daemon was given the whole body (the end of the chunked
  // stream is sent only after the pipe's end): before it, nothing can have
  // been loaded.
  bool body_sent = false;
  body.read = [&pipe, &body_sent](std::span<std::byte> buf) -> Result<std::size_t> {
    auto n = pipe.read(buf);
    if (n && *n == 0) body_sent = true;
    return n;
  };
  http::Request req;
  req.method = "POST";
  req.url = daemon_ == Daemon::kDocker ? url("/images/load?quiet=1") : url("/images/load");
  req.headers.set("Content-Type", "application/x-tar");
  req.body = &body;
  req.max_body = kSmallBody;
  auto resp = http_->send(req);
  // The producer stops when the request did (a daemon gone, a refusal).
  pipe.fail(Error(ErrorCode::kCancelled, "the load request ended"));
  producer.join();
  if (produce_error && !produce_error->is(ErrorCode::kCancelled)) {
    return fail(produce_error->code(),
                describe() + ": sending the images to " + at() + " stopped, nothing was loaded: " +
                    one_line(produce_error->message()));
  }
  if (!resp) {
    const std::string check = daemon_ == Daemon::kDocker ? "journalctl -u docker" : "the service's output";
    if (body_sent) {
      // The whole image went over: the daemon may have loaded it all the same.
      return fail(resp.error().code() == ErrorCode::kDeadlineExceeded ? resp.error().code() : ErrorCode::kUnavailable,
                  describe() + ": " + at() + " did not answer the load of the whole image (" +
                      one_line(resp.error().message()) + "); it may or may not have loaded it: look with `" +
                      (daemon_ == Daemon::kDocker ? "docker" : "podman") + " images " + repo_.name() +
                      "`, check the daemon (" + check + ") and run again");
    }
    return fail(ErrorCode::kUnavailable,
                describe() + ": " + at() + " closed the connection during the load (" + one_line(resp.error().message()) +
                    "); nothing was loaded; check the daemon (" + check + ") and run again");
  }
  if (resp->status != 200) return fail(refused(*resp, "the load"));
  if (daemon_ == Daemon::kDocker) {
    // A JSON message stream: any error is the failure.
    std::size_t start = 0;
    const std::string& text = resp->body;
    while (start < text.size()) {
      auto end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      const auto msg = nlohmann::json::parse(std::string_view(text).substr(start, end - start), nullptr, false);
      start = end + 1;
      if (!msg.is_object()) continue;
      std::string error;
      if (auto d = msg.find("errorDetail"); d != msg.end() && d->is_object()) {
        if (auto m = d->find("message"); m != d->end() && m->is_string()) error = m->get<std::string>();
      }
      if (auto e = msg.find("error"); error.empty() && e != msg.end() && e->is_string()) error = e->get<std::string>();
      if (!error.empty()) {
        return fail(ErrorCode::kFailedPrecondition,
                    describe() + ": " + at() + " refused the load: " + one_line(error));
      }
    }
  } else {
    // {"Names": [...]}: every image strata named must be among them.
    const auto loaded = nlohmann::json::parse(resp->body, nullptr, false);
    std::vector<std::string> names;
    if (loaded.is_object()) {
      if (auto n = loaded.find("Names"); n != loaded.end() && n->is_array()) {
        for (const auto& v : *n) {
          if (!v.is_string()) continue;
          auto r = parse_docker_reference(v.get<std::string>());
          names.push_back(r ? r->str() : v.get<std::string>());
        }
      }
    }
    for (const auto& [name, config] : expected) {
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        return fail(ErrorCode::kFailedPrecondition, describe() + ": " + at() + " loaded " +
                                                        (names.empty() ? std::string("no names") : str::join(names, ", ")) +
                                                        ", not " + name);
      }
    }
  }
  return verify_loaded(expected);
}

}  // namespace

Result<Endpoint> daemon_endpoint(Daemon daemon, const std::string& what) {
  Endpoint ep;
  const char* var = host_variable(daemon);
  std::string host = env_or_empty(var);
  ep.from_env = !host.empty();
  if (host.empty()) {
    host = daemon == Daemon::kDocker ? "unix:///var/run/docker.sock" : "unix://" + default_podman_socket();
  }
  if (host.starts_with("unix://")) {
    ep.socket = host.substr(7);
    if (ep.socket.empty() || ep.socket.front() != '/') {
      return fail(ErrorCode::kInvalidArgument, what + ": " + var + "=" + host + " names no absolute socket path (unix:///PATH)");
    }
    ep.base_url = "http://localhost";
    ep.shown = ep.socket;
    return ep;
  }
  if (host.starts_with("tcp://")) {
    std::string authority = host.substr(6);
    while (!authority.empty() && authority.back() == '/') authority.pop_back();
    if (authority.empty() || authority.find('/') != std::string::npos) {
      return fail(ErrorCode::kInvalidArgument, what + ": " + var + "=" + host + " is not tcp://HOST:PORT");
    }
    ep.base_url = "http://" + authority;
    ep.shown = host;
    return ep;
  }
  if (host.starts_with("ssh://")) {
    return fail(ErrorCode::kUnsupported,
                what + ": " + var + "=" + host + ": strata does not speak ssh://; forward the socket " +
                    "(ssh -nNT -L /tmp/remote.sock:" +
                    (daemon == Daemon::kDocker ? std::string("/var/run/docker.sock") : std::string("/run/podman/podman.sock")) +
                    " HOST) and set " + var + "=unix:///tmp/remote.sock");
  }
  return fail(ErrorCode::kInvalidArgument, what + ": " + var + "=" + host + " is neither unix:///PATH nor tcp://HOST:PORT");
}

std::optional<std::string> negotiate_api_version(Daemon daemon, std::string_view advertised) {
  auto v = parse_version(advertised);
  if (!v) return std::nullopt;
  if (daemon == Daemon::kPodman) {
    if (v->major < kPodmanMinMajor) return std::nullopt;
    return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
  }
  if (older(*v, kDockerMinMajor, kDockerMinMinor)) return std::nullopt;
  if (!older(*v, kDockerMaxMajor, kDockerMaxMinor)) return std::to_string(kDockerMaxMajor) + "." + std::to_string(kDockerMaxMinor);
  return std::to_string(v->major) + "." + std::to_string(v->minor);
}

Result<std::unique_ptr<Store>> open_daemon_store(Daemon daemon, const DockerReference& ref, Access access,
                                                 const OpenOptions& options) {
  const std::string what = transport_of(daemon) + familiar_name(ref);
  if (ref.digest) {
    return fail(ErrorCode::kInvalidArgument, what + ": " + daemon_name(daemon) + "'s store is addressed by NAME:TAG, not by digest");
  }
  STRATA_TRY(auto ep, daemon_endpoint(daemon, what));
  auto store = std::make_unique<DaemonStore>(daemon, ref, std::move(ep), access);
  STRATA_TRY_VOID(store->connect(options));
  if (access == Access::kWrite) {
    STRATA_TRY_VOID(store->prepare_write(options));
  } else {
    // The image is exported when first resolved (a missing one is
    // kNotFound then, naming it): `tags` needs no image at all.
    STRATA_TRY_VOID(store->prepare_read(options));
  }
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace strata::oci::daemon
