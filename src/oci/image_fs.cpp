#include "oci/image_fs.hpp"

#include <algorithm>
#include <deque>

#include "oci/media_types.hpp"
#include "oci/store.hpp"
#include "util/strings.hpp"

namespace strata::oci {

namespace {

constexpr int kMaxSymlinkHops = 40;  // as Linux (MAXSYMLINKS)

std::string join(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  std::string s(dir);
  s += '/';
  s += name;
  return s;
}

void push_front_components(std::deque<std::string>& rest, std::string_view path) {
  auto parts = str::split(path, '/');
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!it->empty()) rest.emplace_front(*it);
  }
}

// Walks `path` from the root, following symlinks inside the image (the last
// component only when `follow_last`). With `create`, every missing
// component, the last one included, is created as an implicit 0755
// root-owned directory of layer `layer`: parent entries are optional in a
// layer, so a layer holding only ./var/lib/dpkg/status still puts that file
// below var/lib/dpkg.
Result<std::string> walk(std::map<std::string, FsNode>& nodes, std::string_view path, bool follow_last, bool create,
                         std::size_t layer) {
  std::deque<std::string> rest;
  push_front_components(rest, path);
  std::string cur;  // resolved so far
  int hops = 0;
  while (!rest.empty()) {
    std::string c = std::move(rest.front());
    rest.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      cur = std::string(parent_path(cur));
      continue;
    }
    std::string next = join(cur, c);
    auto it = nodes.find(next);
    if (it == nodes.end()) {
      if (!create) return fail(ErrorCode::kNotFound, "/" + std::string(path) + ": /" + next + " does not exist");
      FsNode dir;
      dir.layer = layer;
      it = nodes.emplace(next, dir).first;
    }
    const FsNode& n = it->second;
    if (n.type == TarEntryType::kSymlink && (!rest.empty() || follow_last)) {
      if (++hops > kMaxSymlinkHops) {
        return fail(ErrorCode::kInvalidArgument, "/" + std::string(path) + ": too many levels of symlinks");
      }
      if (n.link_target.starts_with('/')) cur.clear();
      push_front_components(rest, n.link_target);
      continue;
    }
    if (!rest.empty() && n.type != TarEntryType::kDirectory) {
      return fail(create ? ErrorCode::kInvalidArgument : ErrorCode::kNotFound,
                  "/" + std::string(path) + ": /" + next + " is a " +
                      std::string(tar_entry_type_name(n.type)) + ", not a directory");
    }
    cur = std::move(next);
  }
  return cur;
}

}  // namespace

std::function<bool(std::string_view)> capture_paths(std::vector<std::string> patterns) {
  for (auto& p : patterns) {
    while (p.starts_with('/')) p.erase(0, 1);
  }
  return [patterns = std::move(patterns)](std::string_view path) {
    for (const auto& p : patterns) {
      if (p.ends_with("/*")) {
        std::string_view dir(p.data(), p.size() - 2);
        if (parent_path(path) == dir && !path.empty()) return true;
      } else if (p == path) {
        return true;
      }
    }
    return false;
  };
}

ImageFsOptions combine_needs(ImageFsOptions a, ImageFsOptions b) {
  ImageFsOptions out;
  out.limits = a.limits;
  out.max_capture_bytes = std::max(a.max_capture_bytes, b.max_capture_bytes);
  out.max_summarize_bytes = std::max(a.max_summarize_bytes, b.max_summarize_bytes);
  if (a.capture || b.capture) {
    out.capture = [a = a.capture, b = b.capture](std::string_view p) { return (a && a(p)) || (b && b(p)); };
  }
  auto summarizes = [](const ImageFsOptions& o) { return o.summarize && o.summarize_paths; };
  if (summarizes(a) || summarizes(b)) {
    bool has_a = summarizes(a), has_b = summarizes(b);
    out.summarize_paths = [a, b, has_a, has_b](std::string_view p) {
      return (has_a && a.summarize_paths(p)) || (has_b && b.summarize_paths(p));
    };
    out.summarize = [a, b, has_a, has_b](std::string_view p, std::string_view content) {
      if (has_a && a.summarize_paths(p)) return a.summarize(p, content);
      return has_b ? b.summarize(p, content) : std::string();
    };
  }
  return out;
}

ImageFilesystem::ImageFilesystem() { nodes_.emplace("", FsNode{}); }

ImageFilesystem ImageFilesystem::from_nodes(std::map<std::string, FsNode> nodes, std::size_t layers) {
  ImageFilesystem fs;
  fs.nodes_ = std::move(nodes);
  fs.nodes_.emplace("", FsNode{});
  fs.layers_ = layers;
  return fs;
}

void ImageFilesystem::erase_tree(const std::string& path, bool keep_self, std::optional<std::size_t> keep_layer) {
  std::string prefix = path.empty() ? std::string() : path + "/";
  auto it = path.empty() ? nodes_.upper_bound("") : nodes_.lower_bound(prefix);
  auto kept = [&](const FsNode& n) { return keep_layer && n.layer == *keep_layer; };
  while (it != nodes_.end() && it->first.starts_with(prefix)) {
    if (kept(it->second)) {
      ++it;
    } else {
      it = nodes_.erase(it);
    }
  }
  if (keep_self || path.empty()) return;
  if (auto self = nodes_.find(path); self != nodes_.end() && !kept(self->second)) nodes_.erase(self);
}

Result<void> ImageFilesystem::apply_layer(TarReader& reader, const ImageFsOptions& options) {
  Pending pending;
  return apply_layer(reader, options, pending);
}

bool ImageFilesystem::wants_content(const FsNode& node, const std::string& key, const ImageFsOptions& options) {
  return node.type == TarEntryType::kRegular && !node.content && node.size <= options.max_capture_bytes &&
         options.capture && options.capture(key);
}

bool ImageFilesystem::wants_summary(const FsNode& node, const std::string& key, const ImageFsOptions& options) {
  return node.type == TarEntryType::kRegular && !node.content && !node.summary &&
         node.size <= options.max_summarize_bytes && options.summarize && options.summarize_paths &&
         options.summarize_paths(key);
}

Result<std::optional<ImageFilesystem::Placed>> ImageFilesystem::place(const TarEntry& e, LayerApply& st, std::string_view what) {
  auto refuse = [&](std::string why) {
    return fail(ErrorCode::kInvalidArgument, std::string(what) + ": entry " + str::quote(e.path) + ": " + why);
  };
  if (e.path.empty()) {  // the root: only its attributes
    FsNode& root = nodes_[""];
    root.mode = e.mode;
    root.uid = e.uid;
    root.gid = e.gid;
    root.mtime = e.mtime;
    root.layer = st.layer;
    return std::nullopt;
  }
  std::string_view base = base_name(e.path);
  std::string_view parent = parent_path(e.path);
  if (base.starts_with(kWhiteoutPrefix)) {
    st.last_parent.reset();
    auto dir = walk(nodes_, parent, true, false, st.layer);
    if (!dir) return std::nullopt;  // nothing below a missing directory to hide
    if (base == kOpaqueWhiteout) {
      erase_tree(*dir, true, st.layer);
      return std::nullopt;
    }
    std::string_view name = base.substr(kWhiteoutPrefix.size());
    if (name.empty() || name == "." || name == "..") return refuse("a whiteout must name what it deletes");
    std::string victim = join(*dir, name);
    erase_tree(victim, false, st.layer);
    return std::nullopt;
  }

  std::string key;
  if (st.last_parent && st.last_parent->first == parent) {
    key = join(st.last_parent->second, base);
  } else {
    auto p = walk(nodes_, parent, true, true, st.layer);
    if (!p) return fail(p.error().context(std::string(what) + ": entry " + str::quote(e.path)));
    key = join(*p, base);
    st.last_parent.emplace(std::string(parent), std::move(*p));
  }

  FsNode node;
  node.type = e.type;
  node.mode = e.mode;
  node.uid = e.uid;
  node.gid = e.gid;
  node.size = e.size;
  node.mtime = e.mtime;
  node.dev_major = e.dev_major;
  node.dev_minor = e.dev_minor;
  node.layer = st.layer;
  if (e.type == TarEntryType::kSymlink) node.link_target = e.link_target;
  if (e.type == TarEntryType::kHardlink) {
    // The target: an earlier non-directory entry of this layer, where it landed.
    // Not in `resolved`: an entry of the same path that landed there, unless
    // what is there now came by another path (an entry through a symlink).
    auto r = st.resolved.find(e.link_target);
    const std::string& at = r == st.resolved.end() ? e.link_target : r->second;
    auto target = r == st.resolved.end() && st.reached_indirectly.contains(at) ? nodes_.end() : nodes_.find(at);
    if (target == nodes_.end() || target->second.layer != st.layer || target->second.type == TarEntryType::kDirectory)
      return refuse("hardlink target " + str::quote(e.link_target) + " is gone");
    node = target->second;
    node.layer = st.layer;
  }
  auto existing = nodes_.find(key);
  // Only a directory or symlink placed, or one replaced, can change where a
  // path leads (a file never sits on a path's way).
  auto steers = [](TarEntryType t) { return t == TarEntryType::kDirectory || t == TarEntryType::kSymlink; };
  if (steers(node.type) || (existing != nodes_.end() && steers(existing->second.type))) st.last_parent.reset();
  if (existing != nodes_.end()) {
    bool both_dirs = existing->second.type == TarEntryType::kDirectory && e.type == TarEntryType::kDirectory;
    if (!both_dirs) {
      erase_tree(key, false, std::nullopt);
      existing = nodes_.end();
      st.last_parent.reset();  // whatever was below it is gone
    }
  }
  FsNode* slot = existing != nodes_.end() ? &(existing->second = std::move(node))
                                          : &nodes_.emplace(key, std::move(node)).first->second;
  if (e.type != TarEntryType::kDirectory && e.path != key) {
    st.resolved[e.path] = key;
    st.reached_indirectly.insert(key);
  } else if (e.path == key) {  // both empty in a layer that follows no symlink: no lookup
    if (!st.resolved.empty()) st.resolved.erase(e.path);
    if (!st.reached_indirectly.empty()) st.reached_indirectly.erase(key);
  }
  return Placed{std::move(key), slot};
}

Result<void> ImageFilesystem::apply_layer(TarReader& reader, const ImageFsOptions& options, Pending& pending) {
  LayerApply st;
  st.layer = layers_;
  max_capture_bytes_ = options.max_capture_bytes;
  while (true) {
    STRATA_TRY(auto next, reader.next());
    if (!next) break;
    const TarEntry& e = *next;
    STRATA_TRY(auto placed, place(e, st, reader.what()));
    if (!placed) continue;
    const std::string& key = placed->key;
    FsNode& node = *placed->node;
    if (e.type == TarEntryType::kHardlink) {
      // Its bytes went past under the target's name, uncaptured: wanted
      // here, they come from a second read of the layer.
      if (wants_content(node, key, options) || wants_summary(node, key, options))
        pending[e.link_target].push_back(key);
    } else if (wants_content(node, key, options)) {
      STRATA_TRY(node.content, reader.read_data_string(options.max_capture_bytes));
    } else if (wants_summary(node, key, options)) {
      STRATA_TRY(std::string content, reader.read_data_string(options.max_summarize_bytes));
      node.summary = options.summarize(key, content);
    }
  }
  ++layers_;
  if (auto dup = describe_duplicate_paths(reader); !dup.empty()) warnings_.push_back(std::move(dup));
  return {};
}

Result<void> ImageFilesystem::apply_known_layer(const std::vector<KnownEntry>& entries, const ImageFsOptions& options,
                                                std::string_view what) {
  LayerApply st;
  st.layer = layers_;
  max_capture_bytes_ = options.max_capture_bytes;
  for (const KnownEntry& k : entries) {
    STRATA_TRY(auto placed, place(k.entry, st, what));
    if (!placed) continue;
    const std::string& key = placed->key;
    FsNode& node = *placed->node;
    if (wants_content(node, key, options)) {
      if (!k.content)
        return fail(ErrorCode::kFailedPrecondition, std::string(what) + ": /" + key + ": its content was not kept");
      node.content = *k.content;
    } else if (wants_summary(node, key, options)) {
      if (k.summary) node.summary = *k.summary;
      else if (k.content) node.summary = options.summarize(key, *k.content);
      else return fail(ErrorCode::kFailedPrecondition, std::string(what) + ": /" + key + ": its summary was not kept");
    }
  }
  ++layers_;
  return {};
}

Result<ImageFilesystem> ImageFilesystem::load(Store& store, const ImageManifest& manifest,
                                              const ImageFsOptions& options) {
  ImageFilesystem fs;
  std::size_t n = manifest.layers.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Descriptor& d = manifest.layers[i];
    std::string which = "layer " + std::to_string(i + 1) + "/" + std::to_string(n) + " (" + d.digest.str() + ")";
    if (media::layer_compression(d.media_type) == media::Compression::kUnknown) {
      return fail(ErrorCode::kUnsupported,
                  which + " has media type " + str::quote(d.media_type) + ", which is not a tar layer");
    }
    STRATA_TRY(auto reader, TarReader::open_blob(store, d, options.limits));
    Pending pending;
    auto r = fs.apply_layer(*reader, options, pending);
    if (!r) return fail(r.error().context(which));
    if (!pending.empty()) {
      STRATA_TRY(auto again, TarReader::open_blob(store, d, options.limits));
      if (auto filled = fs.fill_pending(*again, options, pending); !filled) return fail(filled.error().context(which));
    }
  }
  return fs;
}

Result<void> ImageFilesystem::fill_pending(TarReader& reader, const ImageFsOptions& options, const Pending& pending) {
  const std::size_t layer = layers_ - 1;  // apply_layer counted it
  std::size_t left = pending.size();
  while (left > 0) {
    STRATA_TRY(auto next, reader.next());
    if (!next) break;
    auto it = pending.find(next->path);
    if (it == pending.end() || next->type != TarEntryType::kRegular) continue;
    --left;
    const std::uint64_t bound = std::max(options.max_capture_bytes, options.max_summarize_bytes);
    STRATA_TRY(std::string content, reader.read_data_string(bound));
    for (const auto& key : it->second) {
      auto n = nodes_.find(key);
      // Replaced or removed later in the layer: no longer this link.
      if (n == nodes_.end() || n->second.layer != layer || n->second.type != TarEntryType::kRegular) continue;
      if (options.capture && options.capture(key) && content.size() <= options.max_capture_bytes) {
        n->second.content = content;
      } else if (options.summarize) {
        n->second.summary = options.summarize(key, content);
      }
    }
  }
  return {};
}

Result<std::string> ImageFilesystem::resolve(std::string_view path, Follow follow) const {
  if (path.find('\0') != std::string_view::npos) {
    return fail(ErrorCode::kInvalidArgument, "path " + str::quote(path) + " contains a NUL byte");
  }
  // walk() mutates nothing without `create`.
  auto& nodes = const_cast<std::map<std::string, FsNode>&>(nodes_);
  return walk(nodes, path, follow == Follow::kYes, false, layers_);
}

Result<const FsNode*> ImageFilesystem::lookup(std::string_view path, Follow follow) const {
  STRATA_TRY(std::string key, resolve(path, follow));
  return &nodes_.at(key);
}

Result<std::string> ImageFilesystem::read_small_file(std::string_view path) const {
  STRATA_TRY(const FsNode* n, lookup(path));
  if (n->type != TarEntryType::kRegular) {
    return fail(ErrorCode::kInvalidArgument, std::string(path) + " is a " +
                                                 std::string(tar_entry_type_name(n->type)) + ", not a file");
  }
  if (!n->content) {
    std::string name = path.starts_with('/') ? std::string(path) : "/" + std::string(path);
    if (n->size > max_capture_bytes_) {
      return fail(ErrorCode::kFailedPrecondition,
                  name + " in the image is " + str::human_bytes(n->size) + ", more than the " +
                      str::human_bytes(max_capture_bytes_) + " strata reads of a file it needs; "
                      "strata cannot use this image's " + name + " (check that the image is what you meant)");
    }
    return fail(ErrorCode::kFailedPrecondition,
                name + " (" + str::human_bytes(n->size) + ") was not read from the image's layers");
  }
  return *n->content;
}

Result<std::string> ImageFilesystem::summary(std::string_view path) const {
  STRATA_TRY(const FsNode* n, lookup(path));
  if (!n->summary) {
    return fail(ErrorCode::kFailedPrecondition, std::string(path) + " was not summarized (a " +
                                                    std::string(tar_entry_type_name(n->type)) +
                                                    " outside ImageFsOptions::summarize_paths, or too large)");
  }
  return *n->summary;
}

Result<std::vector<std::string>> ImageFilesystem::list(std::string_view dir) const {
  STRATA_TRY(std::string key, resolve(dir));
  if (nodes_.at(key).type != TarEntryType::kDirectory) {
    return fail(ErrorCode::kInvalidArgument, std::string(dir) + " is not a directory");
  }
  std::string prefix = key.empty() ? std::string() : key + "/";
  std::vector<std::string> out;
  for (auto it = nodes_.upper_bound(prefix); it != nodes_.end() && it->first.starts_with(prefix); ++it) {
    std::string_view rest = std::string_view(it->first).substr(prefix.size());
    if (!rest.empty() && rest.find('/') == std::string_view::npos) out.emplace_back(rest);
  }
  return out;
}

}  // namespace strata::oci
