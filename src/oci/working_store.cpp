#include "oci/working_store.hpp"

#include "oci/layout_store.hpp"

namespace strata::oci {

Result<WorkingStore> WorkingStore::open(const ImageRef& dest, const OpenOptions& options) {
  WorkingStore w;
  STRATA_TRY(auto opened, open_store(dest, Access::kWrite, options));
  w.dest_ = std::move(opened.store);
  w.dest_text_ = dest.original.empty() ? dest.str() : dest.original;
  if (!is_runtime_store(dest.transport)) {
    w.tag_ = destination_tag(dest);
    return w;
  }
  STRATA_TRY(auto local, LayoutStore::open(options.home / "images", LayoutMode::kCreate));
  w.local_ = std::move(local);
  w.runtime_tag_ = destination_tag(dest);
  return w;
}

Result<void> WorkingStore::deliver(const Digest& root) {
  if (local_) {
    CopyOptions copy;
    copy.all = true;         // what was built, every platform of it
    copy.link_blobs = true;  // a daemon's store sends the local files themselves at close()
    STRATA_TRY(auto copied, with_context(copy_image(*local_, root.str(), *dest_, runtime_tag_, copy),
                                         "delivering " + root.str() + " to " + dest_text_));
    (void)copied;
    STRATA_TRY_VOID(local_->close());
  }
  return dest_->close();
}

}  // namespace strata::oci
