#include "layer/apt/deb_fetcher.hpp"

#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "oci/blob_io.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

stdfs::path deb_cache_path(const stdfs::path& home, const std::string& sha256) {
  return home / "debs" / "sha256" / sha256;
}

namespace {

// The sha256 of a file, read in pieces.
Result<std::string> hash_file(const stdfs::path& p) {
  Hasher h;
  STRATA_TRY_VOID(fs::read_chunks(p, [&](std::string_view piece) -> Result<void> {
    h.update(piece);
    return {};
  }));
  return h.finish_hex();
}

// One attempt: resume the partial file, then verify and commit.
Result<std::uint64_t> attempt(oci::http::Transport& t, const std::string& url, const LockPackage& p,
                              const stdfs::path& partial, const stdfs::path& final_path) {
  std::error_code ec;
  std::uint64_t have = stdfs::exists(partial, ec) ? stdfs::file_size(partial, ec) : 0;
  if (have > p.size) {
    stdfs::remove(partial, ec);
    have = 0;
  }
  if (have < p.size) {
    oci::http::Request req;
    req.url = url;
    if (have > 0) req.headers.set("Range", "bytes=" + std::to_string(have) + "-");
    STRATA_TRY(auto sink, oci::FileSink::open(partial, oci::FileSink::Mode::kAppend));
    req.on_headers = [&](const oci::http::Response& r) -> Result<void> {
      if (have > 0 && r.status == 200) {
        // The server ignored the Range: start over.
        if (::ftruncate(sink.fd(), 0) != 0) return std::unexpected(fs::io_error("truncating", partial, errno));
      }
      return {};
    };
    req.sink = &sink;
    auto resp = t.send(req);
    (void)sink.close();  // what was written is checked below, by size and sha256
    if (!resp) return std::unexpected(resp.error());
    if (resp->status == 416) {
      stdfs::remove(partial, ec);
      return fail(ErrorCode::kUnavailable, url + ": range not satisfiable; restarting");
    }
    if (resp->status < 200 || resp->status > 299) {
      return fail(resp->status >= 500 || resp->status == 429 ? ErrorCode::kUnavailable : ErrorCode::kNotFound,
                  url + ": HTTP " + std::to_string(resp->status));
    }
  }
  std::uint64_t got = stdfs::file_size(partial, ec);
  STRATA_TRY(std::string hex, hash_file(partial));
  if (got != p.size || hex != p.sha256) {
    stdfs::remove(partial, ec);
    return fail(ErrorCode::kFailedPrecondition,
                url + ": " + p.name + " " + p.version + " does not match the lock (size " + std::to_string(got) +
                    " vs " + std::to_string(p.size) + ", sha256 " + hex + " vs " + p.sha256 +
                    "); nothing was stored. The mirror changed or is corrupt; re-resolve or use a snapshot");
  }
  STRATA_TRY_VOID(fs::make_dirs(final_path.parent_path()));
  if (::rename(partial.c_str(), final_path.c_str()) != 0) return std::unexpected(fs::io_error("renaming", partial, errno));
  STRATA_TRY_VOID(fs::sync_dir(final_path.parent_path()));
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
      for (unsigned a = 0; a < std::max(1u, opt.attempts); ++a) {
        if (a > 0) {
          std::lock_guard lk(mu);
          opt.clock->sleep(std::chrono::milliseconds(250 << (a - 1)));
        }
        r = attempt(transport, url, p, partial, deb_cache_path(opt.home, p.sha256));
        if (r || r.error().code() == ErrorCode::kNotFound) break;
        if (r.error().code() == ErrorCode::kFailedPrecondition && a + 1 >= 2) break;
      }
      std::lock_guard lk(mu);
      if (r) {
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
