#include "oci/mirror.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <atomic>
#include <mutex>
#include <thread>

#include "util/fs.hpp"

namespace strata::oci {

namespace {

constexpr std::size_t kMaxMirrorConfigBytes = 16 << 20;
constexpr std::size_t kMaxImages = 100000;

Result<std::string> scalar(const YAML::Node& node, const char* key, const std::string& where) {
  auto v = node[key];
  if (!v || !v.IsScalar() || v.Scalar().empty())
    return fail(ErrorCode::kInvalidArgument, where + ": `" + key + "` is required (a string)");
  return v.Scalar();
}

// What the copy of `e` would produce: the source root, or its platform's
// manifest when only one platform of an index is copied.
Result<CopyResult> resolve_entry(const MirrorEntry& e, const MirrorOptions& o) {
  STRATA_TRY(auto ref, parse_image_ref(e.source));
  STRATA_TRY(auto src, open_store(ref, Access::kRead, o.open));
  STRATA_TRY(auto root, src.store->get_manifest(src.ref));
  CopyResult r;
  r.root = root.descriptor;
  STRATA_TRY(auto parsed, parse_manifest(root.bytes, root.descriptor.media_type, e.source));
  if (auto* idx = std::get_if<ImageIndex>(&parsed); idx && !e.all) {
    Platform want = e.platform.value_or(host_platform());
    auto matches = select_platform(*idx, want);
    if (matches.empty())
      return fail(ErrorCode::kNotFound, e.source + " has no image for platform " + want.str());
    r.root = matches.front();
  }
  r.root.annotations.clear();
  r.root.platform.reset();
  return r;
}

// Destinations that are files or directories (layouts, archives, the local
// store) are opened once per run and shared by every image copied into them:
// two images landing in one oci-archive must end up in the same tar, and a
// layout must not be created twice at once. Registry repositories are opened
// per image (their client is shared through OpenOptions::registries).
class DestinationPool {
 public:
  explicit DestinationPool(const OpenOptions& open) : open_(open) {}

  struct Lease {
    Store* store;
    std::string ref;
    std::unique_ptr<Store> owned;  // set for per-image (registry) stores
  };

  Result<Lease> acquire(const ImageRef& ref) {
    if (ref.transport == Transport::kDocker) {
      STRATA_TRY(auto opened, open_store(ref, Access::kWrite, open_));
      Store* s = opened.store.get();
      return Lease{s, opened.ref, std::move(opened.store)};
    }
    std::string key = std::string(transport_name(ref.transport)) + ":" + ref.path;
    std::lock_guard lock(mu_);
    auto it = shared_.find(key);
    if (it == shared_.end()) {
      STRATA_TRY(auto opened, open_store(ref, Access::kWrite, open_));
      it = shared_.emplace(key, std::move(opened.store)).first;
    }
    // The per-image ref comes from the reference itself (tag, digest, name).
    std::string store_ref = ref.transport == Transport::kLocal ? ref.docker.str()
                            : ref.transport == Transport::kDockerArchive && !ref.ref.empty() ? ref.docker.str()
                                                                                              : ref.ref;
    return Lease{it->second.get(), store_ref, nullptr};
  }

  // Closes every shared store once (archives are written here).
  std::map<std::string, Result<void>> close_all() {
    std::map<std::string, Result<void>> out;
    for (auto& [key, store] : shared_) out.emplace(key, store->close());
    return out;
  }

  static std::string key_of(const ImageRef& ref) {
    return ref.transport == Transport::kDocker ? "" : std::string(transport_name(ref.transport)) + ":" + ref.path;
  }

 private:
  const OpenOptions& open_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Store>> shared_;
};

// The shared-destination key of an entry ("" for registries).
std::string shared_key(const MirrorEntry& e) {
  auto ref = parse_image_ref(e.destination);
  return ref ? DestinationPool::key_of(*ref) : std::string();
}

Result<CopyResult> copy_entry(CopySession& session, DestinationPool& pool, const MirrorEntry& e,
                              const MirrorOptions& o) {
  STRATA_TRY(auto src_ref, parse_image_ref(e.source));
  STRATA_TRY(auto dst_ref, parse_image_ref(e.destination));
  STRATA_TRY(auto src, open_store(src_ref, Access::kRead, o.open));
  STRATA_TRY(auto dst, pool.acquire(dst_ref));
  CopyOptions c = o.copy;
  c.all = e.all;
  c.platform = e.platform;
  std::optional<std::string> tag = o.destination_tag ? o.destination_tag(dst_ref, dst.ref) : std::nullopt;
  auto copied = session.copy(*src.store, src.ref, *dst.store, tag, c);
  if (!copied) return fail(copied.error().context(e.source + " → " + e.destination));
  if (dst.owned) STRATA_TRY_VOID(dst.owned->close());
  return copied;
}

}  // namespace

Result<MirrorConfig> parse_mirror_config(std::string_view text, const std::string& what) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& ex) {
    return fail(ErrorCode::kInvalidArgument, what + ": not valid YAML: " + ex.what());
  }
  if (!root.IsMap()) return fail(ErrorCode::kInvalidArgument, what + ": expected a mapping with `images`");
  MirrorConfig config;
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>("");
    if (key != "images" && key != "parallel")
      return fail(ErrorCode::kInvalidArgument, what + ": unknown key `" + key + "` (expected images, parallel)");
  }
  if (auto p = root["parallel"]) {
    int n = 0;
    try {
      n = p.as<int>();
    } catch (const YAML::Exception&) {
      n = 0;
    }
    if (n < 1 || n > 64) return fail(ErrorCode::kInvalidArgument, what + ": `parallel` must be 1..64");
    config.parallel = n;
  }
  auto images = root["images"];
  if (!images || !images.IsSequence() || images.size() == 0)
    return fail(ErrorCode::kInvalidArgument, what + ": `images` must be a non-empty list");
  if (images.size() > kMaxImages) return fail(ErrorCode::kInvalidArgument, what + ": too many images");
  for (std::size_t i = 0; i < images.size(); ++i) {
    const auto& node = images[i];
    const std::string where = what + ": images[" + std::to_string(i) + "]";
    if (!node.IsMap()) return fail(ErrorCode::kInvalidArgument, where + ": expected a mapping");
    for (const auto& kv : node) {
      const auto key = kv.first.as<std::string>("");
      if (key != "source" && key != "destination" && key != "platform" && key != "all")
        return fail(ErrorCode::kInvalidArgument,
                    where + ": unknown key `" + key + "` (expected source, destination, platform, all)");
    }
    MirrorEntry e;
    STRATA_TRY(e.source, scalar(node, "source", where));
    STRATA_TRY(e.destination, scalar(node, "destination", where));
    for (const auto* text : {&e.source, &e.destination})
      if (auto ref = parse_image_ref(*text); !ref) return fail(ref.error().context(where));
    if (auto p = node["platform"]) {
      if (!p.IsScalar()) return fail(ErrorCode::kInvalidArgument, where + ": `platform` must be os/arch[/variant]");
      STRATA_TRY(auto plat, with_context(parse_platform(p.Scalar()), where));
      e.platform = plat;
    }
    if (auto a = node["all"]) {
      if (!a.IsScalar() || (a.Scalar() != "true" && a.Scalar() != "false"))
        return fail(ErrorCode::kInvalidArgument, where + ": `all` must be true or false");
      e.all = a.Scalar() == "true";
    }
    if (e.all && e.platform)
      return fail(ErrorCode::kInvalidArgument, where + ": `all` and `platform` exclude each other");
    config.images.push_back(std::move(e));
  }
  return config;
}

Result<MirrorConfig> load_mirror_config(const std::filesystem::path& path) {
  STRATA_TRY(auto text, fs::read_file(path, kMaxMirrorConfigBytes));
  return parse_mirror_config(text, path.string());
}

std::vector<MirrorOutcome> run_mirror(const MirrorConfig& config, const MirrorOptions& options) {
  std::vector<MirrorOutcome> outcomes(config.images.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) outcomes[i].entry = &config.images[i];
  CopySession session;
  DestinationPool pool(options.open);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex report_mu;
  auto worker = [&] {
    while (!stop.load()) {
      const std::size_t i = next++;
      if (i >= outcomes.size()) return;
      const auto& e = config.images[i];
      auto r = options.dry_run ? resolve_entry(e, options) : copy_entry(session, pool, e, options);
      std::lock_guard lock(report_mu);
      outcomes[i].result = std::move(r);
      if (!outcomes[i].result && !options.keep_going) stop = true;
      // An image copied into a shared file destination is done only once
      // that destination is closed (below).
      bool deferred = outcomes[i].result && !options.dry_run && !shared_key(e).empty();
      if (options.on_done && !deferred) options.on_done(outcomes[i]);
    }
  };
  const int parallel = std::clamp(config.parallel, 1, 64);
  {
    std::vector<std::jthread> pool;
    for (int t = 1; t < parallel && static_cast<std::size_t>(t) < outcomes.size(); ++t) pool.emplace_back(worker);
    worker();
  }
  // Shared destinations are finished last; an image is only done once its
  // archive is written.
  auto closed = pool.close_all();
  for (auto& o : outcomes) {
    std::string key = shared_key(*o.entry);
    if (key.empty() || !o.result || options.dry_run) continue;
    if (auto it = closed.find(key); it != closed.end() && !it->second) {
      o.result = fail(it->second.error().context(o.entry->source + " → " + o.entry->destination));
    }
    if (options.on_done) options.on_done(o);
  }
  return outcomes;
}

}  // namespace strata::oci
