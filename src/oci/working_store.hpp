// Where a build or a provision writes for a destination. Usually the
// destination itself: its overlays are found there again by their cache-key
// tags, and their use records live beside them. A runtime's own store
// (containerd:, docker-daemon:, podman:) gets the image alone: the work is
// done in strata's local store ($STRATA_HOME/images, `local:`), where the
// cache tags and use records stay (and `cache gc` sees them), and deliver()
// then copies the result into the runtime under the destination's tag,
// writing only what the runtime lacks.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "oci/copy.hpp"
#include "oci/open_store.hpp"

namespace strata::oci {

class WorkingStore {
 public:
  // Opens the destination (and, for a runtime's store, the local store).
  static Result<WorkingStore> open(const ImageRef& dest, const OpenOptions& options);

  // Where the work is written.
  Store& store() { return local_ ? *local_ : *dest_; }
  // The tag the work gives its result in store(): the destination's
  // (destination_tag), or none when deliver() names it in the runtime.
  const std::optional<std::string>& tag() const { return tag_; }
  // The runtime's store when the destination is one, else nullptr.
  Store* runtime() { return local_ ? dest_.get() : nullptr; }

  // Copies `root` (an image or an index, every platform it has) from the
  // local store into the runtime under the destination's tag, when the
  // destination is a runtime's store; then closes what was opened.
  Result<void> deliver(const Digest& root);

 private:
  std::unique_ptr<Store> dest_;
  std::unique_ptr<Store> local_;
  std::optional<std::string> tag_;
  std::optional<std::string> runtime_tag_;
  std::string dest_text_;
};

}  // namespace strata::oci
