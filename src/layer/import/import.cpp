#include "layer/import/import.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "layer/import/config_change.hpp"
#include "oci/tar_writer.hpp"
#include "oci/append_layer.hpp"
#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "oci/store.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

// A temporary file, unlinked on destruction.
class TempFile {
 public:
  static Result<TempFile> create(const std::filesystem::path& dir, std::string_view what) {
    std::filesystem::path base = dir;
    if (base.empty()) {
      STRATA_TRY(base, fs::temp_dir());
    }
    std::string tmpl = (base / (std::string("strata-import-") + std::string(what) + "-XXXXXX")).string();
    int fd = ::mkstemp(tmpl.data());
    if (fd < 0) return fail(fs::io_error("creating a temporary file in", base, errno));
    return TempFile(tmpl, fd);
  }
  TempFile(TempFile&& o) noexcept : path_(std::move(o.path_)), fd_(std::exchange(o.fd_, -1)) {}
  TempFile& operator=(TempFile&&) = delete;
  ~TempFile() {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(path_.c_str());
    }
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  TempFile(std::string p, int fd) : path_(std::move(p)), fd_(fd) {}
  std::string path_;
  int fd_;
};

// Copies `len` bytes at `off` of a file to `sink`.
Result<void> copy_range(const TempFile& f, std::uint64_t off, std::uint64_t len, oci::ByteSink& sink) {
  std::string buf(std::size_t{1} << 20, '\0');
  while (len > 0) {
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(len, buf.size()));
    ssize_t n = ::pread(f.fd(), buf.data(), want, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(fs::io_error("reading back", f.path(), n < 0 ? errno : EIO));
    STRATA_TRY_VOID(sink.write(oci::as_bytes(std::string_view(buf.data(), static_cast<std::size_t>(n)))));
    off += static_cast<std::uint64_t>(n);
    len -= static_cast<std::uint64_t>(n);
  }
  return {};
}

// Feeds a file's content to the tar writer.
class TarDataSink final : public oci::ByteSink {
 public:
  explicit TarDataSink(oci::TarWriter& w) : w_(w) {}
  Result<void> write(std::span<const std::byte> data) override { return w_.write_data(data); }

 private:
  oci::TarWriter& w_;
};

struct Item {
  oci::TarEntry entry;
  std::uint64_t data_offset = 0;  // in the content spool (regular files)
};

using oci::TarEntryType;

// Reads the tarball: metadata into `items` (by path), content into `spool`.
Result<std::map<std::string, Item>> read_rootfs(const std::filesystem::path& tarball, const ImportOptions& o,
                                                TempFile& spool) {
  STRATA_TRY(auto reader, oci::TarReader::open_file(tarball, o.limits));
  oci::FileSink sink(spool.fd(), spool.path());
  std::map<std::string, Item> items;
  std::map<std::string, std::string> hard_root;  // archive path → file that holds the content
  while (true) {
    STRATA_TRY(auto next, reader->next());
    if (!next) break;
    oci::TarEntry& e = *next;
    auto refuse = [&](std::string why) {
      return fail(ErrorCode::kInvalidArgument, tarball.string() + ": entry " + str::quote(e.path) + ": " + why);
    };
    if (e.path.empty()) continue;  // the root directory's own entry
    for (std::string_view p = e.path; !p.empty(); p = oci::parent_path(p)) {
      if (oci::base_name(p).starts_with(oci::kWhiteoutPrefix)) {
        return refuse("whiteout names (.wh.*) have no meaning in a root filesystem tarball");
      }
    }
    e.xattrs.erase("security.selinux");  // host labelling, not image content
    if (o.epoch && e.mtime > *o.epoch) e.mtime = *o.epoch;
    Item item;
    if (e.type == TarEntryType::kHardlink) {
      auto root = hard_root.find(e.link_target);
      if (root == hard_root.end()) return refuse("hardlink target " + str::quote(e.link_target) + " is not a file");
      e.link_target = root->second;
      hard_root[e.path] = root->second;
    } else if (e.type != TarEntryType::kDirectory) {
      hard_root[e.path] = e.path;
    }
    if (e.type == TarEntryType::kRegular) {
      item.data_offset = sink.written();
      STRATA_TRY_VOID(reader->read_data(sink));
      if (sink.written() - item.data_offset != e.size) return refuse("content shorter than its header says");
    }
    auto existing = items.find(e.path);
    if (existing != items.end()) {
      bool dirs = existing->second.entry.type == TarEntryType::kDirectory && e.type == TarEntryType::kDirectory;
      if (!dirs) return refuse("appears twice in the tarball; refusing to guess which one is meant");
    }
    item.entry = std::move(e);
    items[item.entry.path] = std::move(item);
  }
  return items;
}

// Adds missing parent directories and checks parents are directories.
Result<void> complete_parents(std::map<std::string, Item>& items, const ImportOptions& o,
                              const std::filesystem::path& tarball) {
  std::vector<std::string> missing;
  for (const auto& [path, item] : items) {
    for (std::string_view p = oci::parent_path(path); !p.empty(); p = oci::parent_path(p)) {
      auto it = items.find(std::string(p));
      if (it == items.end()) {
        missing.emplace_back(p);
        continue;
      }
      if (it->second.entry.type != TarEntryType::kDirectory) {
        return fail(ErrorCode::kInvalidArgument, tarball.string() + ": entry " + str::quote(path) +
                                                     " lies below " + str::quote(p) + ", which is a " +
                                                     std::string(oci::tar_entry_type_name(it->second.entry.type)));
      }
      break;  // a present directory's own parents were checked with it
    }
  }
  for (const auto& p : missing) {
    Item d;
    d.entry.path = p;
    d.entry.type = TarEntryType::kDirectory;
    d.entry.mode = 0755;
    d.entry.mtime = o.epoch.value_or(0);
    items.emplace(p, std::move(d));
  }
  return {};
}

// Every hardlink set is held by its first path in write order; the others
// link to it.
void reroot_hardlinks(std::vector<Item*>& order) {
  std::map<std::string, std::string> holder;  // old content path → new holder
  std::map<std::string, Item*> by_path;
  for (Item* it : order) by_path[it->entry.path] = it;
  for (Item* it : order) {
    if (it->entry.type != TarEntryType::kHardlink) continue;
    const std::string& content = it->entry.link_target;
    auto h = holder.find(content);
    if (h == holder.end()) {
      // The first member of this set in write order: it takes the content.
      Item* file = by_path.at(content);
      if (oci::tar_path_less(it->entry.path, content)) {
        std::string link_path = it->entry.path;
        std::string file_path = file->entry.path;
        oci::TarEntry moved = file->entry;
        moved.path = link_path;
        std::uint64_t off = file->data_offset;
        oci::TarEntry link = it->entry;
        link.path = file_path;
        link.link_target = link_path;
        it->entry = std::move(moved);
        it->data_offset = off;
        file->entry = std::move(link);
        file->data_offset = 0;
        holder[content] = link_path;
      } else {
        holder[content] = content;
      }
      continue;
    }
    it->entry.link_target = h->second;
  }
}

}  // namespace

Result<std::int64_t> parse_source_date_epoch(std::string_view text) {
  auto v = str::parse_u64(text);
  if (!v || *v > static_cast<std::uint64_t>(INT64_MAX)) {
    return fail(ErrorCode::kInvalidArgument,
                "SOURCE_DATE_EPOCH=" + str::quote(text) +
                    " is not a decimal number of seconds since 1970 (e.g. `git log -1 --format=%ct`)");
  }
  return static_cast<std::int64_t>(*v);
}

Result<ImportResult> import_rootfs(const std::filesystem::path& tarball, const ImportOptions& o,
                                   oci::Store& dest) {
  auto ctx = [&](Error e) { return e.context("importing " + tarball.string()); };
  // Config changes first: a typo should not cost a full read of the tarball.
  RuntimeConfig runtime;
  for (const auto& change : o.changes) {
    auto next = apply_change(std::move(runtime), change);
    if (!next) return fail(next.error());
    runtime = std::move(*next);
  }
  if (o.compression == oci::Compression::kUnknown) {
    return fail(ErrorCode::kInvalidArgument, "import: choose gzip, zstd or none as the layer compression");
  }

  STRATA_TRY(TempFile spool, TempFile::create(o.temp_dir, "content"));
  STRATA_TRY(auto items, read_rootfs(tarball, o, spool));
  STRATA_TRY_VOID(complete_parents(items, o, tarball));
  std::vector<Item*> order;
  order.reserve(items.size());
  for (auto& [p, item] : items) order.push_back(&item);
  std::sort(order.begin(), order.end(),
            [](const Item* a, const Item* b) { return oci::tar_path_less(a->entry.path, b->entry.path); });
  reroot_hardlinks(order);

  // tar → compress → layer spool, hashing on the way.
  STRATA_TRY(TempFile layer_file, TempFile::create(o.temp_dir, "layer"));
  oci::FileSink layer_sink(layer_file.fd(), layer_file.path());
  STRATA_TRY(auto compressor, oci::CompressingSink::create(o.compression, layer_sink));
  oci::TarWriter writer(*compressor);
  TarDataSink content(writer);
  for (const Item* it : order) {
    auto r = writer.add(it->entry);
    if (r && it->entry.type == TarEntryType::kRegular) r = copy_range(spool, it->data_offset, it->entry.size, content);
    if (!r) return fail(ctx(r.error()));
  }
  STRATA_TRY_VOID(writer.finish());
  STRATA_TRY(oci::LayerDigests digests, compressor->finish());

  ImportResult result;
  result.digests = digests;
  result.entries = order.size();
  result.layer.media_type = std::string(oci::layer_media_type(o.compression));
  result.layer.digest = digests.digest;
  result.layer.size = digests.size;

  STRATA_TRY(bool present, dest.has_blob(result.layer));
  if (!present) {
    STRATA_TRY(auto blob, dest.blob_writer(result.layer));
    std::uint64_t from = std::min<std::uint64_t>(blob->offset(), static_cast<std::uint64_t>(digests.size));
    auto r = copy_range(layer_file, from, static_cast<std::uint64_t>(digests.size) - from, *blob);
    if (r) r = blob->commit();
    if (!r) {
      blob->abort();
      return fail(r.error().context("writing layer " + digests.digest.str() + " to " + dest.describe()));
    }
  }

  nlohmann::ordered_json config = nlohmann::ordered_json::object();
  if (o.epoch) config["created"] = nullptr;  // first, as image builders write it; append_layer sets it
  config["architecture"] = o.platform.architecture;
  config["os"] = o.platform.os;
  if (!o.platform.os_version.empty()) config["os.version"] = o.platform.os_version;
  if (!o.platform.variant.empty()) config["variant"] = o.platform.variant;
  auto runtime_json = to_json(runtime);
  if (!runtime_json.empty()) config["config"] = runtime_json;
  std::optional<std::string_view> tag;
  if (o.tag) tag = *o.tag;
  STRATA_TRY(oci::AppendedImage written,
             oci::append_layer(dest, {std::move(config), {}, result.layer, *digests.diff_id, o.epoch, "strata import", {}},
                               tag));
  result.config = written.config;
  result.manifest = written.manifest;
  return result;
}

}  // namespace strata::layer
