#include "layer/overlay/base_fs_cache.hpp"

#include "util/binary.hpp"
#include "util/fs.hpp"

namespace strata::layer {

namespace {

constexpr std::uint32_t kFsCacheFormat = 3;

constexpr std::string_view kFsMagic = "STRATAFS";

std::string encode_fs(const oci::ImageFilesystem& fs) {
  std::string out(kFsMagic);
  bin::Writer w(out);
  w.u32(kFsCacheFormat);
  w.u64(fs.layers());
  w.u32(static_cast<std::uint32_t>(fs.nodes().size()));
  for (const auto& [path, n] : fs.nodes()) {
    w.str(path);
    w.u8(static_cast<std::uint8_t>(n.type));
    w.u32(n.mode);
    w.u64(n.uid);
    w.u64(n.gid);
    w.u64(n.size);
    w.u64(static_cast<std::uint64_t>(n.mtime));
    w.str(n.link_target);
    w.u32(n.dev_major);
    w.u32(n.dev_minor);
    w.u64(n.layer);
    w.u8(static_cast<std::uint8_t>((n.content ? 1 : 0) | (n.summary ? 2 : 0)));
    if (n.content) w.str(*n.content);
    if (n.summary) w.str(*n.summary);
  }
  return out;
}

// The filesystem an entry holds, when intact and capturing (and
// summarizing) everything `opts` asks for.
std::optional<oci::ImageFilesystem> decode_fs(std::string_view bytes, const oci::ImageFsOptions& opts) {
  if (!bytes.starts_with(kFsMagic)) return std::nullopt;
  bin::Reader r(bytes.substr(kFsMagic.size()));
  if (r.u32() != kFsCacheFormat) return std::nullopt;
  std::size_t layers = r.u64();
  std::map<std::string, oci::FsNode> nodes;
  for (std::uint32_t i = 0, count = r.count(54); i < count && !r.bad; ++i) {
    std::string path;
    oci::FsNode n;
    r.str(path);
    std::uint8_t type = r.u8();
    if (type > static_cast<std::uint8_t>(oci::TarEntryType::kFifo)) r.bad = true;
    n.type = static_cast<oci::TarEntryType>(type);
    n.mode = r.u32();
    n.uid = r.u64();
    n.gid = r.u64();
    n.size = r.u64();
    n.mtime = static_cast<std::int64_t>(r.u64());
    r.str(n.link_target);
    n.dev_major = r.u32();
    n.dev_minor = r.u32();
    n.layer = r.u64();
    std::uint8_t kept = r.u8();
    if (kept & 1) r.str(n.content.emplace());
    if (kept & 2) r.str(n.summary.emplace());
    bool regular = n.type == oci::TarEntryType::kRegular;
    bool captured = n.content || n.size > opts.max_capture_bytes || !opts.capture || !opts.capture(path);
    bool summarized = n.content || n.summary || n.size > opts.max_summarize_bytes || !opts.summarize ||
                      !opts.summarize_paths || !opts.summarize_paths(path);
    if (regular && !(captured && summarized)) return std::nullopt;  // cached for a caller that asked less
    nodes.emplace_hint(nodes.end(), std::move(path), std::move(n));
  }
  if (r.bad || !r.at_end()) return std::nullopt;  // damaged: load the layers again
  return oci::ImageFilesystem::from_nodes(std::move(nodes), layers);
}

}  // namespace

std::filesystem::path BaseFsCache::entry_path(const oci::Digest& manifest) const {
  return dir_ / ("fs-" + std::to_string(kFsCacheFormat) + "-" + std::string(manifest.hex()));
}

std::optional<oci::ImageFilesystem> BaseFsCache::find(const oci::Digest& manifest,
                                                      const oci::ImageFsOptions& needs) const {
  auto bytes = fs::read_file(entry_path(manifest), std::uint64_t{1} << 30);
  if (!bytes) return std::nullopt;
  return decode_fs(*bytes, needs);
}

void BaseFsCache::remember(const oci::Digest& manifest, const oci::ImageFilesystem& fs) const {
  if (fs::make_dirs(dir_)) (void)fs::write_file_atomic(entry_path(manifest), encode_fs(fs));
}

}  // namespace strata::layer
