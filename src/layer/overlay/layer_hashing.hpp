// Hashing an overlay layer's pieces.
//
// Fragments finish in any order (the largest .deb is converted first); the
// layer's diff_id and digest are hashes of its pieces in layer order. A
// FragmentFeed takes each fragment as it becomes ready; LayerHashing walks an
// order on two threads (the uncompressed pieces into the diff_id, the
// compressed ones into the digest, a fragment taken from the cache checked
// against the size and CRC-32 it was stored with), waiting for each next
// fragment. The overlay builder starts it once every fragment is known,
// since the layer begins with the directories of all of them
// (layer_plan.hpp); LayerPieces gives that head and the fragments taken in
// place of some slots (a fragment without the paths another piece holds).
// Given a sink for the compressed side (a destination's UnnamedBlobWriter,
// which names the blob by its own hash), that side writes the layer as it
// reads it instead of hashing it: each byte read once, not once to learn the
// digest and again to write the blob.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "layer/deb/fragment.hpp"
#include "oci/blob_io.hpp"
#include "util/sha.hpp"

namespace strata::layer {

// Slots 0..n-1, each published once, by any thread; readers wait for them.
class FragmentFeed {
 public:
  explicit FragmentFeed(std::size_t n) : slots_(n) {}
  FragmentFeed(const FragmentFeed&) = delete;
  FragmentFeed& operator=(const FragmentFeed&) = delete;

  void publish(std::size_t i, Result<Fragment> fragment);
  // Waits until slot i is published. The reference stays valid for the
  // feed's lifetime.
  const Result<Fragment>& wait(std::size_t i) const;
  // Waits for every slot: all fragments in slot order, or the first error.
  Result<std::vector<const Fragment*>> all() const;
  std::size_t size() const { return slots_.size(); }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable published_;
  std::vector<std::optional<Result<Fragment>>> slots_;
};

// A hash fed the fragments' pieces in order, ready for what follows them.
struct HashedPieces {
  Hasher hasher;
  std::uint64_t size = 0;  // bytes fed
};

// What a layer holds besides the feed's fragments: a piece ahead of them (in
// memory, uncompressed and compressed) and, for some slots, another fragment
// hashed (and written) instead.
struct LayerPieces {
  std::string head_plain, head_packed;
  std::map<std::size_t, Fragment> substitutes;
};

class LayerHashing {
 public:
  // Starts hashing `pieces`' head (when given), then `feed`'s fragments in
  // `order` (slot indices), a substitute in place of its slot. `pieces` must
  // outlive the hashing.
  // `plain`: the layer is uncompressed (every piece's packed form is its
  // tar), so one pass gives both hashes and uncompressed() may not be called.
  // `packed_out`: the compressed pieces go there, in order, and are not
  // hashed here (compressed() then gives only their size); it must outlive
  // the hashing and is not touched after compressed() returns.
  enum class Layer { kCompressed, kPlain };
  LayerHashing(const FragmentFeed& feed, std::vector<std::size_t> order, const LayerPieces* pieces = nullptr,
               Layer layer = Layer::kCompressed, oci::ByteSink* packed_out = nullptr);
  LayerHashing(const LayerHashing&) = delete;
  LayerHashing& operator=(const LayerHashing&) = delete;
  ~LayerHashing();  // stops early and waits when finish() was not called

  // Each waits for its own side, so the blob can be written while the
  // diff_id is still being hashed: the hash of the compressed pieces (for
  // the digest) and of the uncompressed ones (for the diff_id), or the first
  // error (a fragment that failed to convert, a damaged cached one, a read
  // error). Call each once.
  Result<HashedPieces> compressed();
  Result<HashedPieces> uncompressed();
  const std::vector<std::size_t>& order() const { return order_; }

 private:
  // One side of the layer: which file of each fragment, and its recorded size and CRC-32.
  struct Side {
    std::string LayerPieces::*head;
    std::filesystem::path Fragment::*file;
    std::uint64_t FragmentInfo::*size;
    std::uint32_t FragmentInfo::*crc;
  };
  // Into `out`'s hasher, or into `sink` when there is one.
  void hash(const Side& side, HashedPieces& out, oci::ByteSink* sink, Result<void>& status);

  const FragmentFeed& feed_;
  std::vector<std::size_t> order_;
  const LayerPieces* pieces_;
  HashedPieces plain_hash_;
  HashedPieces packed_hash_;
  Result<void> plain_status_;
  Result<void> packed_status_;
  std::atomic<bool> stop_{false};
  std::thread plain_;
  std::thread packed_;
};

}  // namespace strata::layer
