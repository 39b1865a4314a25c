// Copy progress for a terminal: one line redrawn in place (images done of
// planned when a mirror says, blobs done of planned, bytes, rate), and
// per-blob outcome lines with -v. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>

#include "cli/app.hpp"
#include "oci/copy.hpp"

namespace strata::cli {

class CopyProgress final : public oci::CopyObserver {
 public:
  explicit CopyProgress(const GlobalOptions& g);
  ~CopyProgress() override;
  void blob_planned(const oci::Descriptor& d) override;
  void blob_bytes(const oci::Descriptor& d, std::uint64_t n) override;
  void blob_done(const oci::Descriptor& d, oci::BlobOutcome outcome) override;
  void blob_retry(const oci::Descriptor& d, const Error& e) override;
  void waiting_for_lock(const oci::Descriptor& d, const std::filesystem::path& lock) override;
  // A mirror's images: how many the run has, and one more finished.
  void images_planned(std::size_t n);
  void image_done();
  // Clears the line (drawn again on the next progress).
  void finish();

 private:
  void draw(bool force);
  const GlobalOptions& g_;
  bool tty_;
  std::mutex mu_;
  std::uint64_t planned_ = 0, done_ = 0, total_bytes_ = 0, bytes_ = 0;
  std::size_t images_ = 0, images_done_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool drawn_ = false;
};

}  // namespace strata::cli
