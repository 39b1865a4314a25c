#include "layer/apt/deb_fetcher.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "oci/blob_io.hpp"
#include "oci/http/url.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

stdfs::path deb_cache_path(const stdfs::path& home, const std::string& sha256) {
  return home / "debs" / "sha256" / sha256;
}

stdfs::path deb_ingest_lock_path(const stdfs::path& home, const std::string& sha256) {
  return home / "locks" / "debs" / (sha256 + ".lock");
}

namespace {

// Stops a download at one byte past the size the lock records: a mirror that
// streams without end, or sends another file, fills neither the disk nor
// the time.
class SizeCapSink final : public oci::ByteSink {
 public:
  SizeCapSink(oci::ByteSink& next, std::uint64_t have, const LockPackage& p, std::string url)
      : next_(next), total_(have), p_(p), url_(std::move(url)) {}
  Result<void> write(std::span<const std::byte> data) override {
    if (total_ + data.size() > p_.size) {
      // Up to the lock's size + 1 byte reaches the file: enough to show it is wrong.
      std::size_t keep = static_cast<std::size_t>(p_.size - std::min(total_, p_.size)) + 1;
      if (keep <= data.size()) {
        // Enough of the excess to show it on disk; the refusal below is the
        // error whatever this write says.
        (void)next_.write(data.first(keep));
        return fail(ErrorCode::kFailedPrecondition,
                    url_ + ": the mirror sent more than the " + std::to_string(p_.size) + " bytes the lock records for " +
                        p_.name + " " + p_.version + "; refusing it. The mirror changed or is corrupt; re-resolve or "
                        "use a snapshot");
      }
    }
    STRATA_TRY_VOID(next_.write(data));
    total_ += data.size();
    return {};
  }
  void reset_count() { total_ = 0; }

 private:
  oci::ByteSink& next_;
  std::uint64_t total_;
  const LockPackage& p_;
  std::string url_;
};

// A file: source (an archive copied into a directory, a mounted mirror): the
// package is read, not downloaded, into the partial file, checked below
// like a download.
Result<void> read_local(const std::string& url, const LockPackage& p, const stdfs::path& partial) {
  const std::string path = url.substr(url.starts_with("file://") ? 7 : 5);
  std::error_code ec;
  auto size = stdfs::file_size(path, ec);
  if (ec) return fail(ErrorCode::kNotFound, url + ": " + ec.message());
  if (size != p.size) {
    return fail(ErrorCode::kFailedPrecondition,
                url + ": " + p.name + " " + p.version + " is " + std::to_string(size) + " bytes, the lock records " +
                    std::to_string(p.size) + "; refusing it. The mirror changed or is corrupt; re-resolve or use a snapshot");
  }
  STRATA_TRY(auto file, oci::FileSink::open(partial, oci::FileSink::Mode::kTruncate));
  STRATA_TRY_VOID(fs::read_chunks(path, [&](std::string_view piece) { return file.write(oci::as_bytes(piece)); }));
  return file.close();
}

// A lock names where each .deb comes from (its source's URI + the package's
// file name), and a lock may come from elsewhere (a repository, a bundle).
// Before anything is fetched, every URL must lie under an apt archive: a
// file name inside its source (no "..", no query, no other scheme); an
// http(s) source not on a link-local address (169.254.0.0/16, fe80::/10:
// cloud instance metadata, never a mirror) nor named like a metadata
// service; a file: source a directory with the suite's dists/ directory,
// the file inside it once links are resolved. The error names the package,
// the URL and the rule, and nothing was read or requested.
Result<void> check_package_url(const Lock& lock, const LockPackage& p) {
  if (p.source >= lock.sources.size()) {
    return fail(ErrorCode::kInvalidArgument, "lock: " + p.name + " " + p.version + " names source " +
                                                 std::to_string(p.source) + ", which the lock does not have");
  }
  const LockSource& src = lock.sources[p.source];
  const std::string url = src.uri + "/" + p.filename;
  auto refuse = [&](const std::string& why) -> Result<void> {
    return fail(ErrorCode::kInvalidArgument, "lock: " + p.name + " " + p.version + " would be fetched from " + url +
                                                 ": " + why + "; refusing the lock before anything is fetched. "
                                                 "Resolve it again against your apt sources");
  };
  for (char c : p.filename) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || u == 0x7f || c == '?' || c == '#' || c == '%' || c == '\\' || c == ':')
      return refuse("its file name is not a plain path inside the archive");
  }
  for (std::string_view part : str::split(p.filename, '/')) {
    if (part.empty() || part == "." || part == "..") return refuse("its file name is not a plain path inside the archive");
  }
  if (src.uri.starts_with("file:")) {
    const stdfs::path root = src.uri.substr(src.uri.starts_with("file://") ? 7 : 5);
    std::error_code ec;
    const bool flat = src.suite.ends_with("/");
    if (!stdfs::is_directory(flat ? root / src.suite : root / "dists" / src.suite, ec)) {
      return refuse("its source " + src.uri + " is not an apt archive (no " +
                    (flat ? src.suite : "dists/" + src.suite) + " directory in it)");
    }
    auto real_root = stdfs::canonical(root, ec);
    auto real_file = ec ? stdfs::path() : stdfs::weakly_canonical(root / p.filename, ec);
    auto rel = real_file.lexically_relative(real_root);
    if (ec || rel.empty() || *rel.begin() == "..") return refuse("the file lies outside its source once links are resolved");
    return {};
  }
  auto parsed = oci::http::parse_url(url);
  if (!parsed) return refuse("not an http, https or file URL");
  std::string host = str::lower(parsed->host);
  while (host.ends_with(".")) host.pop_back();  // "metadata.google.internal." is the same name
  if (host.starts_with("[") && host.ends_with("]")) host = host.substr(1, host.size() - 2);
  // An address in any spelling the resolver accepts (169.254.169.254,
  // 2852039166, 0xa9fea9fe, ::ffff:169.254.169.254), as the C library reads it.
  in_addr v4{};
  in6_addr v6{};
  bool link_local = false;
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    const auto* b = v6.s6_addr;
    bool mapped = std::all_of(b, b + 10, [](unsigned char c) { return c == 0; }) && b[10] == 0xff && b[11] == 0xff;
    link_local = (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) || (mapped && b[12] == 169 && b[13] == 254) ||
                 // AWS's IPv6 instance metadata address, fd00:ec2::254.
                 (b[0] == 0xfd && b[1] == 0x00 && b[2] == 0x0e && b[3] == 0xc2 && b[15] == 0x54 &&
                  std::all_of(b + 4, b + 14, [](unsigned char c) { return c == 0; }) && b[14] == 0x02);
  } else if (::inet_aton(host.c_str(), &v4) != 0) {
    const std::uint32_t a = ntohl(v4.s_addr);
    link_local = (a >> 16) == ((169u << 8) | 254u);
  }
  if (link_local) return refuse("it is a link-local or instance metadata address, never an apt archive");
  if (host == "metadata" || host == "metadata.google.internal" || host == "metadata.goog" ||
      host.starts_with("instance-data")) {
    return refuse("it names a cloud metadata service, never an apt archive");
  }
  return {};
}

// One attempt: resume the partial file, then verify and commit. The partial
// file stays only for what can resume it (a transfer that broke off within
// the lock's size); every other error removes it.
Result<std::uint64_t> attempt(oci::http::Transport& t, const std::string& url, const LockPackage& p,
                              const stdfs::path& partial, const stdfs::path& final_path) {
  std::error_code ec;
  std::uint64_t have = stdfs::exists(partial, ec) ? stdfs::file_size(partial, ec) : 0;
  if (have > p.size) {
    STRATA_TRY_VOID(fs::remove_file(partial));
    have = 0;
  }
  // Removals of the partial file on the way out of a failure are best
  // effort: the failure is the error, and a partial file that stays is
  // re-checked by size and sha256 before anything trusts it.
  auto drop = [&](Error e) -> Result<std::uint64_t> {
    (void)fs::remove_file(partial);
    return fail(std::move(e));
  };
  if (url.starts_with("file:")) {
    if (auto read = read_local(url, p, partial); !read) return drop(read.error());
  } else if (have < p.size) {
    oci::http::Request req;
    req.url = url;
    if (have > 0) req.headers.set("Range", "bytes=" + std::to_string(have) + "-");
    STRATA_TRY(auto file, oci::FileSink::open(partial, oci::FileSink::Mode::kAppend));
    SizeCapSink sink(file, have, p, url);
    bool refused = false;  // by the headers: nothing to resume
    req.on_headers = [&](const oci::http::Response& r) -> Result<void> {
      std::uint64_t start = have;
      if (have > 0 && r.status == 200) {
        // The server ignored the Range: start over.
        STRATA_TRY_VOID(fs::truncate_file(file.fd(), 0, partial));
        sink.reset_count();
        start = 0;
      }
      // Refuse on the announced length, before any of the body is read.
      auto length = r.headers.get("Content-Length");
      auto n = length ? str::parse_u64(str::trim(*length)) : std::nullopt;
      if (n && start + *n > p.size) {
        refused = true;
        return fail(ErrorCode::kFailedPrecondition,
                    url + ": the mirror announces " + std::to_string(*n) + " bytes (Content-Length" +
                        (start > 0 ? " from byte " + std::to_string(start) : std::string()) + ") for " + p.name + " " +
                        p.version + ", whose lock records " + std::to_string(p.size) +
                        "; refusing it. The mirror changed or is corrupt; re-resolve or use a snapshot");
      }
      return {};
    };
    req.sink = &sink;
    auto resp = t.send(req);
    auto closed = file.close();  // what was written is checked below, by size and sha256
    if (!resp) {
      // Only a transfer that broke off may be resumed from what arrived.
      if (refused || !is_network_failure(resp.error())) return drop(resp.error());
      return std::unexpected(resp.error());
    }
    if (!closed) return drop(closed.error());
    if (resp->status == 416) {
      (void)fs::remove_file(partial);
      return fail(ErrorCode::kUnavailable, url + ": range not satisfiable; restarting");
    }
    if (resp->status < 200 || resp->status > 299) {
      return drop(Error(resp->status >= 500 || resp->status == 429 ? ErrorCode::kUnavailable : ErrorCode::kNotFound,
                        url + ": HTTP " + std::to_string(resp->status)));
    }
  }
  std::uint64_t got = stdfs::file_size(partial, ec);
  auto hashed = fs::file_sha256(partial);
  if (!hashed) return drop(hashed.error());
  const std::string& hex = *hashed;
  if (got != p.size || hex != p.sha256) {
    (void)fs::remove_file(partial);
    return fail(ErrorCode::kFailedPrecondition,
                url + ": " + p.name + " " + p.version + " does not match the lock (size " + std::to_string(got) +
                    " vs " + std::to_string(p.size) + ", sha256 " + hex + " vs " + p.sha256 +
                    "); nothing was stored. The mirror changed or is corrupt; re-resolve or use a snapshot");
  }
  // Durable before it gets its name: the cache trusts a file by its name.
  auto fd = fs::open_for_write(partial, O_WRONLY);
  if (!fd) return drop(fd.error());
  auto synced = fs::sync_file(*fd, partial);
  auto closed_again = fs::close_file(*fd, partial);
  if (!synced) return drop(synced.error());
  if (!closed_again) return drop(closed_again.error());
  if (auto made = fs::make_dirs(final_path.parent_path()); !made) return drop(made.error());
  // Never over a .deb already cached (fs::publish_file): the same bytes, kept.
  if (auto published = fs::publish_file(partial, final_path); !published) return drop(published.error());
  return got;
}

}  // namespace

Result<FetchReport> fetch_debs(oci::http::Transport& transport, const Lock& lock, const FetchOptions& opt) {
  if (opt.clock == nullptr) return fail(ErrorCode::kInvalidArgument, "fetch_debs: no clock");
  FetchReport report;
  std::vector<const LockPackage*> todo;
  std::vector<std::string> missing;
  std::error_code ec;
  for (const auto& p : lock.packages) {
    if (stdfs::exists(deb_cache_path(opt.home, p.sha256), ec)) {
      fs::mark_used(deb_cache_path(opt.home, p.sha256));  // `cache gc` evicts the least recently used
      ++report.cached;
      continue;
    }
    if (opt.offline) missing.push_back(p.name + " " + p.version + " " + p.architecture);
    todo.push_back(&p);
  }
  if (!missing.empty()) {
    return fail(ErrorCode::kNotFound, "--offline: " + std::to_string(missing.size()) +
                                          " package(s) are not in the local cache: " + str::join(missing, ", ") +
                                          "; run 'strata fetch --lock FILE' on a connected machine first");
  }
  for (const LockPackage* p : todo) STRATA_TRY_VOID(check_package_url(lock, *p));
  stdfs::path ingest = opt.home / "debs" / "ingest";
  STRATA_TRY_VOID(fs::make_dirs(ingest));
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::vector<Error> errors;
  auto worker = [&] {
    for (;;) {
      std::size_t i = next++;
      if (i >= todo.size()) return;
      const LockPackage& p = *todo[i];
      std::string url = lock.sources[p.source].uri + "/" + p.filename;
      stdfs::path partial = ingest / (p.sha256 + ".partial");
      Result<std::uint64_t> r = fail(ErrorCode::kUnavailable, "not attempted");
      // One writer per partial file across processes sharing this home: the
      // resumable file is only ever appended to and renamed by its holder.
      Result<fs::FileLock> held = fail(ErrorCode::kUnavailable, "not locked");
      if (auto made = fs::make_dirs(deb_ingest_lock_path(opt.home, p.sha256).parent_path()); !made) {
        held = fail(made.error());
      } else {
        held = fs::FileLock::acquire(deb_ingest_lock_path(opt.home, p.sha256));
      }
      if (!held) r = fail(held.error());
      std::error_code gone;
      bool fetched_meanwhile = held && stdfs::exists(deb_cache_path(opt.home, p.sha256), gone);
      if (fetched_meanwhile) r = std::uint64_t{0};  // by another process sharing the home: a cache hit
      for (unsigned a = 0; held && !r && a < std::max(1u, opt.attempts); ++a) {
        if (a > 0) {
          std::lock_guard lk(mu);
          opt.clock->sleep(std::chrono::milliseconds(250 << (a - 1)));
        }
        r = attempt(transport, url, p, partial, deb_cache_path(opt.home, p.sha256));
        // A local failure (a full disk, an I/O error) is not the network's, and
        // a mirror that cannot be reached stays so: no retry.
        if (r || r.error().code() == ErrorCode::kNotFound || r.error().code() == ErrorCode::kIoError ||
            r.error().code() == ErrorCode::kUnreachable)
          break;
        if (r.error().code() == ErrorCode::kFailedPrecondition && a + 1 >= 2) break;
      }
      std::lock_guard lk(mu);
      if (r && fetched_meanwhile) {
        ++report.cached;
      } else if (r) {
        ++report.downloaded;
        report.bytes += *r;
      } else {
        errors.push_back(r.error());
      }
    }
  };
  std::vector<std::thread> threads;
  unsigned n = std::max(1u, std::min<unsigned>(opt.jobs, static_cast<unsigned>(todo.size())));
  for (unsigned i = 0; i < n && !todo.empty(); ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (!errors.empty()) {
    std::string msg;
    for (const auto& e : errors) msg += (msg.empty() ? "" : "\n") + e.message();
    return fail(errors.front().code(), msg);
  }
  return report;
}

}  // namespace strata::layer
