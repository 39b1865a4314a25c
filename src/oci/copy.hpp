// The copy engine: moves an image or index between any two Stores,
// bit-exactly (no recompression, no re-serialisation; digests preserved).
//
// Order: manifests are read first (the plan), then blobs move in parallel
// (largest first, each verified on commit, skipped when the destination has
// them, mounted when the destination can), then manifests are written
// children before parents, the tagged root last. A no-op copy costs one
// manifest read at the source and one resolve at the destination.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "oci/reference.hpp"
#include "oci/store.hpp"

namespace strata::oci {

enum class BlobOutcome { kCopied, kSkipped, kMounted };

// Receives progress from worker threads. Implementations must be thread-safe.
class CopyObserver {
 public:
  virtual ~CopyObserver() = default;
  virtual void blob_planned(const Descriptor&) {}
  virtual void blob_bytes(const Descriptor&, std::uint64_t /*n*/) {}
  virtual void blob_done(const Descriptor&, BlobOutcome) {}
  virtual void blob_retry(const Descriptor&, const Error&) {}
  virtual void manifest_written(const Descriptor&) {}
  // Writing `what` (a blob, or a manifest and its index entry) waits for
  // `lock`, which another process holds (it is writing the same blob, or
  // the destination's index). Called once per wait, before it.
  virtual void waiting_for_lock(const Descriptor& /*what*/, const std::filesystem::path& /*lock*/) {}
};

// A destination reference that names a digest (docker://HOST/REPO@sha256:…):
// the content a copy must write there, and the reference as given (for the
// error that names it).
struct DestinationPin {
  Digest digest;
  std::string reference;
};
// The pin of `ref` as a copy's destination: a docker:// or containerd: reference with a
// digest; nullopt for any other.
std::optional<DestinationPin> destination_pin(const ImageRef& ref);

struct CopyOptions {
  // Copy every platform of an index. Default: only `platform` (or the host's).
  bool all = false;
  std::optional<Platform> platform;
  // Also copy manifests that refer to the copied ones (signatures, SBOMs).
  bool referrers = false;
  int jobs = 4;                 // parallel blob transfers
  // Whole-blob attempts on a network failure (is_transient); a digest
  // mismatch is tried again only when the attempt resumed from bytes an
  // earlier one left (the writer drops them). Local failures are final.
  int blob_attempts = 3;
  // Hard-link a blob the source keeps as a local file when the destination
  // can (Store::link_blob), instead of copying its bytes. Counted as mounted.
  bool link_blobs = false;
  CopyObserver* observer = nullptr;
  // The destination names this digest (destination_pin): the copy (and its
  // estimate) fails before anything is written unless the root it would
  // write is exactly that content. Referrers copied along are not held to it.
  std::optional<DestinationPin> pin;
};

struct CopyResult {
  Descriptor root;              // what the destination now holds (tagged if asked)
  bool already_present = false; // the destination had it; nothing moved
  std::uint64_t blobs_copied = 0, blobs_skipped = 0, blobs_mounted = 0;
  std::uint64_t bytes_copied = 0;
};

// What a copy would move, found without writing anything (`mirror --dry-run`).
struct CopyEstimate {
  Descriptor root;               // what the destination would hold
  bool already_present = false;  // the destination has this root under the tag (or digest)
  std::uint64_t blobs = 0, blobs_missing = 0;
  // Of the missing blobs: those a cross-repository mount would bring (from
  // the source, or from another destination of the run that receives them):
  // free, no bytes move.
  std::uint64_t blobs_mounted = 0;
  // The bytes this copy would move: the missing blobs neither mounted nor
  // counted already by another estimate of the same run (EstimateLedger).
  std::uint64_t bytes_missing = 0;
};

// The blobs one run's estimates have counted, so that a run's estimate
// moves each blob once, as a CopySession does: a blob another image of the
// run would already move to the same destination costs nothing again, and
// one moved to a destination this one can mount from (another repository of
// the same registry) is a free mount. Thread-safe.
class EstimateLedger {
 public:
  enum class Way { kCopy, kMount, kCounted };
  // How `desc`, missing at `dst` (named `dst_key`; nullptr when it does not
  // exist yet), would get there from `src`; a kCopy is recorded.
  Way claim(const Descriptor& desc, Store& src, Store* dst, const std::string& dst_key);

 private:
  std::mutex mu_;
  std::map<Digest, std::vector<std::pair<std::string, Store*>>> claimed_;
};

// Reads the source's manifests as copy() would and asks `dst` (nullptr: a
// destination that does not exist yet, which lacks everything) for the root
// and each blob. With a ledger (one per run), blobs are counted once per
// run and mounts as free (see EstimateLedger); `dst_key` names `dst` there.
Result<CopyEstimate> estimate_copy(Store& src, std::string_view src_ref, Store* dst,
                                   std::optional<std::string_view> dst_tag, const CopyOptions& options,
                                   EstimateLedger* ledger = nullptr, const std::string& dst_key = "");

struct InFlight;  // one blob transfer in a CopySession (copy.cpp)

// Copies `src_ref` (tag or digest; "" lets the store choose its only image)
// from `src` to `dst`, tagging the result `dst_tag` when given.
// A CopySession de-duplicates blobs across several copies (mirror jobs); it is
// thread-safe. A blob in flight to a destination is awaited by every other
// copy that wants it there, not moved again; one in flight to (or already
// received by) another destination of this session that the destination can
// mount from (another repository of the same registry) is awaited and then
// mounted. Destination stores must therefore outlive the session's copies.
class CopySession {
 public:
  Result<CopyResult> copy(Store& src, std::string_view src_ref, Store& dst,
                          std::optional<std::string_view> dst_tag, const CopyOptions& options);
  // One blob, as copy() moves each: skipped when the destination has it,
  // linked (options.link_blobs) or mounted when it can (from the source, or
  // from a destination that received it in this session), else streamed and
  // verified, retried whole on transient failure. Adds the bytes moved to
  // `bytes`. Only the blob options of `options` apply.
  Result<BlobOutcome> copy_blob(Store& src, Store& dst, const Descriptor& desc, const CopyOptions& options,
                                std::uint64_t& bytes);

 private:
  Result<void> copy_referrers(Store& src, Store& dst, const std::vector<Descriptor>& subjects, const CopyOptions& o);
  Result<BlobOutcome> transfer_blob(Store& src, Store& dst, const Descriptor& desc, const CopyOptions& o,
                                    std::uint64_t& bytes, const std::vector<std::shared_ptr<InFlight>>& siblings);

  std::mutex mu_;
  // Blobs being transferred right now, by digest and destination: a second
  // request for the same blob and destination waits for the first instead of
  // moving it twice.
  std::map<std::pair<Digest, const Store*>, std::shared_ptr<InFlight>> in_flight_;
  // Destinations that received (or already had) each blob in this session.
  std::map<Digest, std::vector<Store*>> landed_;
};

inline Result<CopyResult> copy_image(Store& src, std::string_view src_ref, Store& dst,
                                     std::optional<std::string_view> dst_tag, const CopyOptions& options) {
  CopySession session;
  return session.copy(src, src_ref, dst, dst_tag, options);
}

// One blob outside any image copy (CopySession::copy_blob).
inline Result<BlobOutcome> copy_blob(Store& src, Store& dst, const Descriptor& desc, const CopyOptions& options) {
  CopySession session;
  std::uint64_t bytes = 0;
  return session.copy_blob(src, dst, desc, options, bytes);
}

}  // namespace strata::oci
