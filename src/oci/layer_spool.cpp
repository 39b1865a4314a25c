#include "oci/layer_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "oci/store.hpp"
#include "oci/tar_writer.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci {

Result<TempFile> TempFile::create(const std::filesystem::path& dir, std::string_view what) {
  std::filesystem::path base = dir;
  if (base.empty()) {
    STRATA_TRY(base, fs::temp_dir());
  }
  std::string tmpl = (base / ("strata-" + std::string(what) + "-XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return fail(fs::temp_dir_error(fs::io_error("creating a temporary file in", base, errno), base,
                                    "spooling " + std::string(what)));
  return TempFile(tmpl, fd);
}

TempFile::TempFile(TempFile&& o) noexcept : path_(std::move(o.path_)), fd_(std::exchange(o.fd_, -1)) {}

TempFile::~TempFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
}

Result<void> TempFile::copy_range(std::uint64_t off, std::uint64_t len, ByteSink& sink) const {
  fs::ReadBuffer buf(len);
  while (len > 0) {
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(len, buf.size()));
    ssize_t n = ::pread(fd_, buf.data(), want, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(fs::io_error("reading back", path_, n < 0 ? errno : EIO));
    STRATA_TRY_VOID(sink.write(std::span<const std::byte>(buf.data(), static_cast<std::size_t>(n))));
    off += static_cast<std::uint64_t>(n);
    len -= static_cast<std::uint64_t>(n);
  }
  return {};
}

Descriptor SpooledLayer::descriptor(Compression c) const {
  Descriptor d;
  d.media_type = std::string(layer_media_type(c));
  d.digest = digests.digest;
  d.size = digests.size;
  return d;
}

Result<void> SpooledLayer::store_in(Store& dest, const Descriptor& desc) const {
  STRATA_TRY(bool present, dest.has_blob(desc));
  if (present) return {};
  STRATA_TRY(auto blob, dest.blob_writer(desc));
  if (blob->present()) return {};
  std::uint64_t size = static_cast<std::uint64_t>(digests.size);
  std::uint64_t from = std::min<std::uint64_t>(blob->offset(), size);
  auto r = file.copy_range(from, size - from, *blob);
  if (r) r = blob->commit();
  if (!r) {
    blob->abort();
    return fail(r.error().context("writing layer " + desc.digest.str() + " to " + dest.describe()));
  }
  return {};
}

namespace {

// Feeds a file's content to the tar writer.
class TarDataSink final : public ByteSink {
 public:
  explicit TarDataSink(TarWriter& w) : w_(w) {}
  Result<void> write(std::span<const std::byte> data) override { return w_.write_data(data); }

 private:
  TarWriter& w_;
};

Error refuse(std::string_view what, std::string_view path, const std::string& why) {
  return Error(ErrorCode::kInvalidArgument, std::string(what) + ": entry " + str::quote(path) + ": " + why);
}

}  // namespace

LayerSpool::LayerSpool(TempFile content)
    : content_(std::make_unique<TempFile>(std::move(content))),
      sink_(std::make_unique<FileSink>(content_->fd(), content_->path())) {}
LayerSpool::LayerSpool(LayerSpool&&) noexcept = default;
LayerSpool::~LayerSpool() = default;

Result<LayerSpool> LayerSpool::create(const std::filesystem::path& temp_dir) {
  STRATA_TRY(TempFile content, TempFile::create(temp_dir, "layer-content"));
  return LayerSpool(std::move(content));
}

Result<void> LayerSpool::put(Item item, std::string_view what) {
  auto existing = items_.find(item.entry.path);
  if (existing != items_.end()) {
    bool dirs = existing->second.entry.type == TarEntryType::kDirectory && item.entry.type == TarEntryType::kDirectory;
    if (!dirs) return fail(refuse(what, item.entry.path, "appears twice; refusing to guess which one is meant"));
  }
  std::string path = item.entry.path;
  items_[path] = std::move(item);
  return {};
}

Result<void> LayerSpool::add_archive(TarReader& reader, const EntryMap& map, std::string_view what) {
  std::map<std::string, std::string> mapped;      // archive path → its path in the layer
  std::map<std::string, std::string> hard_root;   // layer path → the layer path holding the content
  while (true) {
    STRATA_TRY(auto next, reader.next());
    if (!next) break;
    TarEntry& e = *next;
    const std::string original = e.path;
    STRATA_TRY(bool keep, map(e));
    if (!keep) continue;
    if (e.path.empty() || !is_canonical_entry_path(e.path)) {
      return fail(refuse(what, original, "maps to " + str::quote(e.path) + ", which is not a path inside the layer"));
    }
    mapped[original] = e.path;
    Item item;
    if (e.type == TarEntryType::kHardlink) {
      auto target = mapped.find(e.link_target);
      auto root = target == mapped.end() ? hard_root.end() : hard_root.find(target->second);
      if (root == hard_root.end()) {
        return fail(refuse(what, original, "hardlink target " + str::quote(e.link_target) +
                                               " is not a file of this archive that the layer keeps"));
      }
      e.link_target = root->second;
      hard_root[e.path] = root->second;
    } else if (e.type != TarEntryType::kDirectory) {
      hard_root[e.path] = e.path;
    }
    if (e.type == TarEntryType::kRegular) {
      item.data_offset = sink_->written();
      STRATA_TRY_VOID(reader.read_data(*sink_));
      if (sink_->written() - item.data_offset != e.size) {
        return fail(refuse(what, original, "content shorter than its header says"));
      }
    }
    item.entry = std::move(e);
    STRATA_TRY_VOID(put(std::move(item), what));
  }
  return {};
}

Result<void> LayerSpool::add(TarEntry entry, std::string_view content) {
  Item item;
  if (entry.type == TarEntryType::kRegular) {
    entry.size = content.size();
    item.data_offset = sink_->written();
    STRATA_TRY_VOID(sink_->write(as_bytes(content)));
  }
  item.entry = std::move(entry);
  return put(std::move(item), "layer");
}

Result<void> LayerSpool::complete_parents(std::int64_t mtime, std::string_view what) {
  std::vector<std::string> missing;
  for (const auto& [path, item] : items_) {
    for (std::string_view p = parent_path(path); !p.empty(); p = parent_path(p)) {
      auto it = items_.find(std::string(p));
      if (it == items_.end()) {
        missing.emplace_back(p);
        continue;
      }
      if (it->second.entry.type != TarEntryType::kDirectory) {
        return fail(refuse(what, path,
                           "lies below " + str::quote(p) + ", which is a " +
                               std::string(tar_entry_type_name(it->second.entry.type))));
      }
      break;  // a present directory's own parents were checked with it
    }
  }
  for (const auto& p : missing) {
    Item d;
    d.entry.path = p;
    d.entry.type = TarEntryType::kDirectory;
    d.entry.mode = 0755;
    d.entry.mtime = mtime;
    items_.emplace(p, std::move(d));
  }
  return {};
}

void LayerSpool::clamp_mtimes(std::int64_t epoch) {
  for (auto& [p, item] : items_) item.entry.mtime = std::min(item.entry.mtime, epoch);
}

Result<void> LayerSpool::set_mode(const std::string& path, std::uint32_t mode) {
  auto it = items_.find(path);
  if (it == items_.end()) return fail(ErrorCode::kNotFound, "layer: no entry " + str::quote(path));
  it->second.entry.mode = mode;
  return {};
}

bool LayerSpool::contains(const std::string& path) const { return items_.contains(path); }

std::map<std::string, const TarEntry*> LayerSpool::entries() const {
  std::map<std::string, const TarEntry*> out;
  for (const auto& [p, item] : items_) out.emplace(p, &item.entry);
  return out;
}

Result<SpooledLayer> LayerSpool::write(Compression compression, const std::filesystem::path& temp_dir) {
  if (compression == Compression::kUnknown) {
    return fail(ErrorCode::kInvalidArgument, "choose gzip, zstd or none as the layer compression");
  }
  std::vector<Item*> order;
  order.reserve(items_.size());
  for (auto& [p, item] : items_) order.push_back(&item);
  std::sort(order.begin(), order.end(),
            [](const Item* a, const Item* b) { return tar_path_less(a->entry.path, b->entry.path); });
  // Every hardlink set is held by its first path in write order; the others link to it.
  std::map<std::string, std::string> holder;  // content path → its holder in write order
  std::map<std::string, Item*> by_path;
  for (Item* it : order) by_path[it->entry.path] = it;
  for (Item* it : order) {
    if (it->entry.type != TarEntryType::kHardlink) continue;
    const std::string content = it->entry.link_target;
    auto h = holder.find(content);
    if (h != holder.end()) {
      it->entry.link_target = h->second;
      continue;
    }
    Item* file = by_path.at(content);
    if (tar_path_less(it->entry.path, content)) {
      // This link comes first: it takes the content, the file becomes the link.
      std::string link_path = it->entry.path;
      TarEntry moved = file->entry;
      moved.path = link_path;
      TarEntry link = it->entry;
      link.path = content;
      link.link_target = link_path;
      std::uint64_t off = file->data_offset;
      it->entry = std::move(moved);
      it->data_offset = off;
      file->entry = std::move(link);
      file->data_offset = 0;
      holder[content] = link_path;
    } else {
      holder[content] = content;
    }
  }

  STRATA_TRY(TempFile layer_file, TempFile::create(temp_dir, "layer"));
  FileSink layer_sink(layer_file.fd(), layer_file.path());
  STRATA_TRY(auto compressor, CompressingSink::create(compression, layer_sink));
  TarWriter writer(*compressor);
  TarDataSink content(writer);
  for (const Item* it : order) {
    STRATA_TRY_VOID(writer.add(it->entry));
    if (it->entry.type == TarEntryType::kRegular) {
      STRATA_TRY_VOID(content_->copy_range(it->data_offset, it->entry.size, content));
    }
  }
  STRATA_TRY_VOID(writer.finish());
  STRATA_TRY(LayerDigests digests, compressor->finish());
  return SpooledLayer{std::move(layer_file), digests, order.size()};
}

}  // namespace strata::oci
