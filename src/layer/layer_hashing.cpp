#include "layer/layer_hashing.hpp"

#include "util/fs.hpp"

namespace strata::layer {

void FragmentFeed::publish(std::size_t i, Result<Fragment> fragment) {
  {
    std::lock_guard lock(mu_);
    slots_.at(i).emplace(std::move(fragment));
  }
  published_.notify_all();
}

const Result<Fragment>& FragmentFeed::wait(std::size_t i) const {
  std::unique_lock lock(mu_);
  published_.wait(lock, [&] { return slots_.at(i).has_value(); });
  return *slots_[i];
}

Result<std::vector<const Fragment*>> FragmentFeed::all() const {
  std::vector<const Fragment*> out;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Result<Fragment>& f = wait(i);
    if (!f) return fail(f.error());
    out.push_back(&*f);
  }
  return out;
}

LayerHashing::LayerHashing(const FragmentFeed& feed, std::vector<std::size_t> order)
    : feed_(feed), order_(std::move(order)) {
  plain_ = std::thread([this] { hash_plain(); });
  packed_ = std::thread([this] { hash_packed(); });
}

LayerHashing::~LayerHashing() {
  stop_ = true;
  if (plain_.joinable()) plain_.join();
  if (packed_.joinable()) packed_.join();
}

void LayerHashing::hash_plain() {
  for (std::size_t i : order_) {
    const Result<Fragment>& f = feed_.wait(i);
    if (!f) {
      plain_status_ = fail(f.error());
      return;
    }
    plain_status_ = fs::read_chunks(f->tar, [&](std::string_view piece) -> Result<void> {
      if (stop_) return fail(ErrorCode::kCancelled, "hashing stopped");
      plain_hash_.hasher.update(piece);
      return {};
    });
    if (!plain_status_) return;
    plain_hash_.size += f->info.tar_size;
  }
}

void LayerHashing::hash_packed() {
  for (std::size_t i : order_) {
    const Result<Fragment>& f = feed_.wait(i);
    if (!f) {
      packed_status_ = fail(f.error());
      return;
    }
    // A fragment converted by this build was hashed as it was written; one
    // from the cache is checked against the digest it was stored with.
    std::optional<Hasher> check;
    if (!f->converted) check.emplace();
    packed_status_ = fs::read_chunks(f->compressed, [&](std::string_view piece) -> Result<void> {
      if (stop_) return fail(ErrorCode::kCancelled, "hashing stopped");
      packed_hash_.hasher.update(piece);
      if (check) check->update(piece);
      return {};
    });
    if (!packed_status_) return;
    if (check && check->finish_hex() != f->info.compressed_sha256) {
      packed_status_ = fail(ErrorCode::kCorruption, f->compressed.string() + ": cached fragment of " +
                                                        f->info.package +
                                                        " is damaged; delete it (strata converts it again)");
      return;
    }
    packed_hash_.size += f->info.compressed_size;
  }
}

Result<HashedPieces> LayerHashing::compressed() {
  packed_.join();
  if (!packed_status_) return fail(packed_status_.error());
  return std::move(packed_hash_);
}

Result<HashedPieces> LayerHashing::uncompressed() {
  plain_.join();
  if (!plain_status_) return fail(plain_status_.error());
  return std::move(plain_hash_);
}

}  // namespace strata::layer
