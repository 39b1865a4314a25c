#include "layer/overlay/base_fs_cache.hpp"

#include "layer/debian/dep5.hpp"
#include "util/binary.hpp"
#include "util/fs.hpp"

namespace strata::layer {

namespace {

// Bump when what an entry holds changes meaning: its encoding, or
// ldconfig_summary's answer for the same file (copyright_summary's has its
// own version, kCopyrightSummaryVersion, also in an entry's name).
constexpr std::uint32_t kFsCacheFormat = 4;  // 4: copyright summaries (the SBOM)

constexpr std::string_view kFsMagic = "STRATAFS";

// The layout of a cached filesystem, both directions (util/binary.hpp).
template <class Io, class Layers, class Nodes>
void fs_fields(Io& io, Layers& layers, Nodes& nodes) {
  io.u64(layers);
  io.map(nodes, 54, [&](auto& path, auto& n) {
    io.str(path);
    io.enum8(n.type, oci::TarEntryType::kFifo);
    io.u32(n.mode);
    io.u64(n.uid, n.gid, n.size, n.mtime);
    io.str(n.link_target);
    io.u32(n.dev_major, n.dev_minor);
    io.u64(n.layer);
    io.optionals(n.content, n.summary);
  });
}

std::string encode_fs(const oci::ImageFilesystem& fs) {
  const std::size_t layers = fs.layers();
  return bin::encode_file(kFsMagic, kFsCacheFormat, [&](bin::Writer& w) { fs_fields(w, layers, fs.nodes()); });
}

// The filesystem an entry holds, when intact and capturing (and
// summarizing) everything `opts` asks for.
std::optional<oci::ImageFilesystem> decode_fs(std::string_view bytes, const oci::ImageFsOptions& opts) {
  std::size_t layers = 0;
  std::map<std::string, oci::FsNode> nodes;
  if (!bin::decode_file(bytes, kFsMagic, kFsCacheFormat, [&](bin::Reader& r) { fs_fields(r, layers, nodes); })) {
    return std::nullopt;  // damaged: load the layers again
  }
  for (const auto& [path, n] : nodes) {
    bool regular = n.type == oci::TarEntryType::kRegular;
    bool captured = n.content || n.size > opts.max_capture_bytes || !opts.capture || !opts.capture(path);
    bool summarized = n.content || n.summary || n.size > opts.max_summarize_bytes || !opts.summarize ||
                      !opts.summarize_paths || !opts.summarize_paths(path);
    if (regular && !(captured && summarized)) return std::nullopt;  // cached for a caller that asked less
  }
  return oci::ImageFilesystem::from_nodes(std::move(nodes), layers);
}

}  // namespace

std::filesystem::path BaseFsCache::entry_path(const oci::Digest& manifest) const {
  return dir_ / ("fs-" + std::to_string(kFsCacheFormat) + "-" + std::to_string(kCopyrightSummaryVersion) + "-" +
                 std::string(manifest.hex()));
}

std::optional<oci::ImageFilesystem> BaseFsCache::find(const oci::Digest& manifest,
                                                      const oci::ImageFsOptions& needs) const {
  auto bytes = fs::read_file(entry_path(manifest), std::uint64_t{1} << 30);
  if (!bytes) return std::nullopt;
  fs::mark_used(entry_path(manifest));  // `cache gc` evicts the least recently used
  return decode_fs(*bytes, needs);
}

void BaseFsCache::remember(const oci::Digest& manifest, const oci::ImageFilesystem& fs) const {
  // Best effort: an entry not written only costs reading the base's layers again.
  if (fs::make_dirs(dir_)) (void)fs::write_file_atomic(entry_path(manifest), encode_fs(fs));
}

}  // namespace strata::layer
