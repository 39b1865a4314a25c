#include "cli/progress.hpp"

#include <cstdio>
#include <string>

#include "util/strings.hpp"
#include "util/terminal_text.hpp"

namespace strata::cli {

CopyProgress::CopyProgress(const GlobalOptions& g)
    : g_(g), tty_(g.show_progress()), start_(std::chrono::steady_clock::now()) {}

CopyProgress::~CopyProgress() { finish(); }

void CopyProgress::blob_planned(const oci::Descriptor& d) {
  std::lock_guard lock(mu_);
  ++planned_;
  total_bytes_ += static_cast<std::uint64_t>(std::max<std::int64_t>(0, d.size));
}

void CopyProgress::blob_bytes(const oci::Descriptor&, std::uint64_t n) {
  std::lock_guard lock(mu_);
  bytes_ += n;
  draw(false);
}

void CopyProgress::blob_done(const oci::Descriptor& d, oci::BlobOutcome outcome) {
  std::lock_guard lock(mu_);
  ++done_;
  if (g_.verbose) {
    const char* what = outcome == oci::BlobOutcome::kCopied ? "copied" : outcome == oci::BlobOutcome::kMounted ? "mounted" : "exists";
    if (drawn_) std::fputs("\r\033[K", stderr);
    std::fprintf(stderr, "%s %s (%s)\n", what, d.digest.str().c_str(),
                 str::human_bytes(static_cast<std::uint64_t>(std::max<std::int64_t>(0, d.size))).c_str());
  }
  draw(true);
}

void CopyProgress::blob_retry(const oci::Descriptor& d, const Error& e) {
  std::lock_guard lock(mu_);
  if (g_.quiet) return;
  if (drawn_) std::fputs("\r\033[K", stderr);
  // A registry's words are in the message: terminal_safe.
  std::fprintf(stderr, "retrying %s: %s\n", d.digest.str().c_str(), terminal_safe(e.message()).c_str());
}

void CopyProgress::waiting_for_lock(const oci::Descriptor& d, const std::filesystem::path& lock) {
  std::lock_guard lock_guard(mu_);
  if (g_.quiet) return;
  if (drawn_) std::fputs("\r\033[K", stderr);
  std::string what = lock.filename() == "index.lock" ? "its index" : "the same blob (ingest lock)";
  std::fprintf(stderr, "waiting for another process writing %s: %s (for %s)\n", what.c_str(),
               terminal_safe(lock.string()).c_str(),
               d.digest.str().c_str());
  std::fflush(stderr);
}

void CopyProgress::images_planned(std::size_t n) {
  std::lock_guard lock(mu_);
  images_ = n;
}

void CopyProgress::image_done() {
  std::lock_guard lock(mu_);
  ++images_done_;
  draw(true);
}

void CopyProgress::draw(bool force) {
  if (!tty_) return;
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  double secs = std::chrono::duration<double>(now - start_).count();
  double rate = secs > 0 ? static_cast<double>(bytes_) / secs : 0;
  // A mirror counts its images first.
  std::string what = images_ > 0 ? "Images " + std::to_string(images_done_) + "/" + std::to_string(images_) + "  blobs"
                                 : std::string("Copying blobs");
  std::fprintf(stderr, "\r\033[K%s %llu/%llu  %s / %s  %s/s", what.c_str(),
               static_cast<unsigned long long>(done_), static_cast<unsigned long long>(planned_),
               str::human_bytes(bytes_).c_str(), str::human_bytes(total_bytes_).c_str(),
               str::human_bytes(static_cast<std::uint64_t>(rate)).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void CopyProgress::finish() {
  std::lock_guard lock(mu_);
  if (drawn_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace strata::cli
