#include "layer/overlay/layer_hashing.hpp"

#include "oci/crc32.hpp"
#include "util/fs.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

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

LayerHashing::LayerHashing(const FragmentFeed& feed, std::vector<std::size_t> order, const LayerPieces* pieces,
                           Layer layer, oci::ByteSink* packed_out)
    : feed_(feed), order_(std::move(order)), pieces_(pieces) {
  if (layer == Layer::kCompressed) plain_ = std::thread([this] {
    hash({&LayerPieces::head_plain, &Fragment::tar, &FragmentInfo::tar_size, &FragmentInfo::tar_crc32}, plain_hash_,
         nullptr, plain_status_);
  });
  packed_ = std::thread([this, packed_out] {
    hash({&LayerPieces::head_packed, &Fragment::compressed, &FragmentInfo::compressed_size,
          &FragmentInfo::compressed_crc32},
         packed_hash_, packed_out, packed_status_);
  });
}

LayerHashing::~LayerHashing() {
  stop_ = true;
  if (plain_.joinable()) plain_.join();
  if (packed_.joinable()) packed_.join();
}

void LayerHashing::hash(const Side& side, HashedPieces& out, oci::ByteSink* sink, Result<void>& status) {
  auto take = [&](std::string_view piece) -> Result<void> {
    if (sink) return sink->write(oci::as_bytes(piece));
    out.hasher.update(piece);
    return {};
  };
  if (pieces_) {
    const std::string& head = (*pieces_).*side.head;
    status = take(head);
    if (!status) return;
    out.size += head.size();
  }
  for (std::size_t i : order_) {
    const Result<Fragment>& slot = feed_.wait(i);
    if (!slot) {
      status = fail(slot.error());
      return;
    }
    const Fragment* f = &*slot;
    if (pieces_) {
      if (auto s = pieces_->substitutes.find(i); s != pieces_->substitutes.end()) f = &s->second;
    }
    // A fragment converted by this build was just written from memory; one
    // from the cache is checked against the size and CRC-32 it was stored with.
    const stdfs::path& file = (*f).*side.file;
    std::uint32_t crc = 0;
    std::uint64_t size = 0;
    status = fs::read_chunks(file, [&](std::string_view piece) -> Result<void> {
      if (stop_) return fail(ErrorCode::kCancelled, "hashing stopped");
      if (!f->converted) crc = oci::crc32_update(crc, piece);
      size += piece.size();
      return take(piece);
    });
    if (!status) return;
    if (size != f->info.*side.size || (!f->converted && crc != f->info.*side.crc)) {
      status = fail(ErrorCode::kCorruption, file.string() + ": cached fragment of " + f->info.package +
                                                " is damaged; delete its directory (strata converts it again)");
      return;
    }
    out.size += size;
  }
}

Result<HashedPieces> LayerHashing::compressed() {
  packed_.join();
  if (!packed_status_) return fail(packed_status_.error());
  return std::move(packed_hash_);
}

Result<HashedPieces> LayerHashing::uncompressed() {
  if (!plain_.joinable()) return fail(ErrorCode::kInvalidArgument, "a plain layer has one hash: use compressed()");
  plain_.join();
  if (!plain_status_) return fail(plain_status_.error());
  return std::move(plain_hash_);
}

}  // namespace strata::layer
