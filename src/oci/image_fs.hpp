// ImageFilesystem: the metadata of an image's root filesystem, built by
// applying its layers in order as the OCI image spec says (entries replace
// what lower layers had, a directory over a directory only takes its
// attributes, whiteouts ".wh.NAME" delete NAME from lower layers, an opaque
// ".wh..wh..opq" hides every lower-layer child of its directory, a whiteout
// never hides what its own layer adds).
//
// Holds path → type, mode, owner, size, mtime, link target in memory, plus the
// content of the small regular files the caller asks for (dpkg status,
// os-release, …) and a caller-made summary of others (a library's soname);
// other content is streamed past and dropped. Layers are read
// from any Store, streamed, never held whole in memory.
//
// A value type; const methods are safe to call from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "oci/manifest.hpp"
#include "oci/tar_reader.hpp"

namespace strata::oci {

class Store;

struct FsNode {
  TarEntryType type = TarEntryType::kDirectory;  // never kHardlink: a hardlink is its target's type
  std::uint32_t mode = 0755;
  std::uint64_t uid = 0;
  std::uint64_t gid = 0;
  std::uint64_t size = 0;
  std::int64_t mtime = 0;
  std::string link_target;  // symlinks only, verbatim
  std::uint32_t dev_major = 0;
  std::uint32_t dev_minor = 0;
  std::optional<std::string> content;  // regular files the options asked to capture
  std::optional<std::string> summary;  // regular files the options asked to summarize
  std::size_t layer = 0;               // index of the layer that last wrote this path

  bool operator==(const FsNode&) const = default;
};

// The default bound of a captured file: a dpkg status of a large image (a
// few thousand packages with long descriptions) passes 8 MiB; 64 MiB is
// several times the largest seen and still fine to hold in memory.
inline constexpr std::uint64_t kDefaultMaxCaptureBytes = std::uint64_t{64} << 20;

struct ImageFsOptions {
  // Regular files (canonical path, e.g. "var/lib/dpkg/status") whose content
  // to keep. Default: none. A hardlink whose path is captured gets its
  // target's bytes even when the target's own path is not captured (load()
  // reads the layer a second time for them: the bytes went past before the
  // link named them).
  std::function<bool(std::string_view path)> capture;
  // Larger files are not captured even when `capture` says so; reading one
  // then says how large it is and this bound. Default kDefaultMaxCaptureBytes.
  std::uint64_t max_capture_bytes = kDefaultMaxCaptureBytes;
  // Regular files (not captured) condensed into FsNode::summary: their
  // content is read, given to `summarize`, and dropped, so a base's
  // libraries cost a soname each, not their bytes. Larger files are left
  // without a summary. Default: none.
  std::function<bool(std::string_view path)> summarize_paths;
  std::function<std::string(std::string_view path, std::string_view content)> summarize;
  std::uint64_t max_summarize_bytes = std::uint64_t{256} << 20;
  ReadLimits limits;  // per layer
};

// What two callers need at once: a file is captured when either asks, and
// summarized by the first whose summarize_paths names it (so a library keeps
// one caller's summary and a copyright file the other's); each bound is the
// larger of the two, `a`'s read limits.
ImageFsOptions combine_needs(ImageFsOptions a, ImageFsOptions b);

// One entry of a layer as its writer knows it, for apply_known_layer: the
// header and, for a regular file, the content or summary the options ask
// for (the writer kept what it would be asked: a build's captured files).
struct KnownEntry {
  TarEntry entry;  // canonical path; a hardlink's link_target names an earlier entry of the layer
  // Null when not kept; else pointing into the writer's data for the call.
  const std::string* content = nullptr;
  const std::string* summary = nullptr;  // as options.summarize would make it
};

// A capture predicate for exact paths ("etc/os-release") and one-level globs
// ("etc/dpkg/dpkg.cfg.d/*"). Leading "/" is ignored.
std::function<bool(std::string_view)> capture_paths(std::vector<std::string> patterns);

class ImageFilesystem {
 public:
  enum class Follow { kYes, kNo };

  ImageFilesystem();  // an empty root directory

  // Applies every layer of `manifest`, first to last.
  static Result<ImageFilesystem> load(Store& store, const ImageManifest& manifest,
                                      const ImageFsOptions& options = {});
  // A filesystem from nodes an earlier load produced (a cache of it); the
  // root ("") is added when missing.
  static ImageFilesystem from_nodes(std::map<std::string, FsNode> nodes, std::size_t layers);
  // Applies one more layer read from `reader`. A captured hardlink to a file
  // this layer wrote earlier under a path not captured is left without
  // content (load() reads the layer again for it).
  Result<void> apply_layer(TarReader& reader, const ImageFsOptions& options = {});
  // Applies one more layer from its entries, in layer order, without its
  // bytes: the layer a builder just wrote, whose file contents it knows only
  // where it kept them. The rules are apply_layer's, so the result is what
  // load() reads back; a file `options` would capture or summarize whose
  // entry holds neither is refused (kFailedPrecondition, naming it and
  // `what`), never left out silently.
  Result<void> apply_known_layer(const std::vector<KnownEntry>& entries, const ImageFsOptions& options,
                                 std::string_view what);

  // Resolves `path` ("/usr/bin/cc" or "usr/bin/cc") inside the image root:
  // symlinks are followed (absolute targets from the image root, ".." stops
  // at the root), the last one only with Follow::kYes. Returns the canonical
  // path of what it found; kNotFound when absent, kInvalidArgument on a loop.
  Result<std::string> resolve(std::string_view path, Follow follow = Follow::kYes) const;
  Result<const FsNode*> lookup(std::string_view path, Follow follow = Follow::kYes) const;
  bool exists(std::string_view path) const { return lookup(path).has_value(); }
  // The captured content of a regular file (after following symlinks).
  // kFailedPrecondition when it was not captured, saying why (larger than
  // the capture bound, or not asked for).
  Result<std::string> read_small_file(std::string_view path) const;
  // The summary of a regular file (after following symlinks); kFailedPrecondition
  // when it was not summarized.
  Result<std::string> summary(std::string_view path) const;
  // Names of the children of a directory (after following symlinks), sorted.
  Result<std::vector<std::string>> list(std::string_view dir) const;

  // Every path (canonical, "" is the root), sorted; for tests and dumps.
  const std::map<std::string, FsNode>& nodes() const { return nodes_; }
  std::size_t layers() const { return layers_; }
  // What applying the layers found that runtimes may refuse (a layer that
  // names a path twice: describe_duplicate_paths), one line each. Empty for
  // a filesystem made from_nodes.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  // One layer being applied: its index (the nodes it wrote carry it), and
  // where each of its non-directory entries landed (for its hardlinks).
  struct LayerApply {
    std::size_t layer = 0;
    std::map<std::string, std::string> resolved;  // entry path → resolved path, where they differ
    std::set<std::string> reached_indirectly;     // those resolved paths, while no entry of their own path follows
    // The last parent walked and where it led: siblings follow one another
    // in a layer, so most entries skip the walk. Forgotten when an entry
    // could change where it leads (a directory, symlink or whiteout, or a
    // file over it or an ancestor).
    std::optional<std::pair<std::string, std::string>> last_parent;
  };
  // Places one entry's node (a hardlink's a copy of its target's): the
  // path it landed at and the node there, or nullopt for the root's
  // attributes and whiteouts.
  struct Placed {
    std::string key;
    FsNode* node = nullptr;
  };
  Result<std::optional<Placed>> place(const TarEntry& e, LayerApply& layer, std::string_view what);
  // Whether `node` at `key` wants its content captured, or else summarized.
  static bool wants_content(const FsNode& node, const std::string& key, const ImageFsOptions& options);
  static bool wants_summary(const FsNode& node, const std::string& key, const ImageFsOptions& options);
  // Removes `path` (unless keep_self) and everything below it, except the
  // nodes layer `keep_layer` wrote (a whiteout never hides its own layer).
  void erase_tree(const std::string& path, bool keep_self, std::optional<std::size_t> keep_layer);
  // Captured (or summarized) hardlinks whose target was not: the target's
  // archive path → the paths of the links wanting its bytes.
  using Pending = std::map<std::string, std::vector<std::string>>;
  Result<void> apply_layer(TarReader& reader, const ImageFsOptions& options, Pending& pending);
  // Fills the pending links from a second read of the same layer.
  Result<void> fill_pending(TarReader& reader, const ImageFsOptions& options, const Pending& pending);

  std::map<std::string, FsNode> nodes_;
  std::uint64_t max_capture_bytes_ = kDefaultMaxCaptureBytes;  // what load() was given, for messages
  std::size_t layers_ = 0;
  std::vector<std::string> warnings_;
};

}  // namespace strata::oci
