#include "oci/mirror.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "oci/mirror_journal.hpp"
#include "oci/yaml_load.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci {

namespace {

constexpr std::size_t kMaxMirrorConfigBytes = 16 << 20;
constexpr std::size_t kMaxImages = 100000;

Error bad(const std::string& where, const std::string& what) {
  return Error(ErrorCode::kInvalidArgument, where + ": " + what);
}

Result<void> only_keys(const YAML::Node& node, const std::string& where, std::initializer_list<std::string_view> keys) {
  for (const auto& kv : node) {
    const auto key = kv.first.as<std::string>("");
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    std::string expected;
    for (auto k : keys) expected += (expected.empty() ? "" : ", ") + std::string(k);
    return fail(bad(where, "unknown key `" + key + "` (expected " + expected + ")"));
  }
  return {};
}

Result<std::string> scalar(const YAML::Node& node, const char* key, const std::string& where) {
  auto v = node[key];
  if (!v || !v.IsScalar() || v.Scalar().empty()) return fail(bad(where, "`" + std::string(key) + "` is required (a string)"));
  return v.Scalar();
}

Result<bool> boolean(const YAML::Node& v, const std::string& where, const char* key) {
  if (!v.IsScalar() || (v.Scalar() != "true" && v.Scalar() != "false"))
    return fail(bad(where, "`" + std::string(key) + "` must be true or false"));
  return v.Scalar() == "true";
}

Result<int> whole_number(const YAML::Node& v, const std::string& where, const char* key, int lo, int hi) {
  auto n = v.IsScalar() ? str::parse_u64(v.Scalar()) : std::nullopt;
  if (!n || *n < static_cast<std::uint64_t>(lo) || *n > static_cast<std::uint64_t>(hi))
    return fail(bad(where, "`" + std::string(key) + "` must be a whole number " + std::to_string(lo) + ".." +
                               std::to_string(hi)));
  return static_cast<int>(*n);
}

// A string or a list of strings.
Result<std::vector<std::string>> strings(const YAML::Node& v, const std::string& where, const char* key) {
  std::vector<std::string> out;
  if (v.IsScalar()) {
    out.push_back(v.Scalar());
    return out;
  }
  if (!v.IsSequence()) return fail(bad(where, "`" + std::string(key) + "` must be a string or a list of strings"));
  for (const auto& item : v) {
    if (!item.IsScalar()) return fail(bad(where, "`" + std::string(key) + "` must be a string or a list of strings"));
    out.push_back(item.Scalar());
  }
  return out;
}

// `platform` and `all`, shared by images and repositories.
Result<void> platform_keys(const YAML::Node& node, const std::string& where, std::optional<Platform>& platform,
                           bool& all) {
  if (auto p = node["platform"]) {
    if (!p.IsScalar()) return fail(bad(where, "`platform` must be os/arch[/variant]"));
    STRATA_TRY(auto plat, with_context(parse_platform(p.Scalar()), where + ": `platform`"));
    platform = plat;
  }
  if (auto a = node["all"]) {
    STRATA_TRY(all, boolean(a, where, "all"));
  }
  if (all && platform) return fail(bad(where, "`all` and `platform` exclude each other"));
  return {};
}

std::filesystem::path relative_to(const std::filesystem::path& base, const std::string& p) {
  std::filesystem::path path(p);
  return path.is_absolute() || base.empty() ? path : base / path;
}

Result<registry::HostSettings> parse_host(const YAML::Node& node, const std::string& where,
                                          const std::filesystem::path& base) {
  registry::HostSettings h;
  if (!node.IsMap()) return fail(bad(where, "expected a mapping (tls-verify, auth-file, cert-dir, retries, timeout)"));
  STRATA_TRY_VOID(only_keys(node, where, {"tls-verify", "auth-file", "cert-dir", "retries", "timeout"}));
  if (auto v = node["tls-verify"]) {
    STRATA_TRY(h.tls_verify, boolean(v, where, "tls-verify"));
  }
  if (node["auth-file"]) {
    STRATA_TRY(auto p, scalar(node, "auth-file", where));
    h.authfile = relative_to(base, p);
  }
  if (node["cert-dir"]) {
    STRATA_TRY(auto p, scalar(node, "cert-dir", where));
    h.cert_dir = relative_to(base, p);
  }
  if (auto v = node["retries"]) {
    STRATA_TRY(h.retries, whole_number(v, where, "retries", 1, 20));
  }
  if (auto v = node["timeout"]) {
    STRATA_TRY(int s, whole_number(v, where, "timeout", 1, 3600));
    h.timeout = std::chrono::seconds(s);
  }
  return h;
}

Result<TagFilter> parse_tags(const YAML::Node& node, const std::string& where) {
  TagFilter f;
  if (!node.IsMap()) return fail(bad(where, "expected a mapping (include, exclude, semver, newest)"));
  STRATA_TRY_VOID(only_keys(node, where, {"include", "exclude", "semver", "newest"}));
  if (auto v = node["include"]) {
    STRATA_TRY(f.include, strings(v, where, "include"));
  }
  if (auto v = node["exclude"]) {
    STRATA_TRY(f.exclude, strings(v, where, "exclude"));
  }
  if (node["semver"]) {
    STRATA_TRY(f.semver, scalar(node, "semver", where));
  }
  if (auto v = node["newest"]) {
    STRATA_TRY(f.newest, whole_number(v, where, "newest", 1, 100000));
  }
  STRATA_TRY_VOID(check_tag_filter(f, where));
  return f;
}

// "docker://HOST[/PREFIX]" → {HOST, PREFIX}.
std::optional<std::pair<std::string, std::string>> registry_prefix(std::string_view dest) {
  if (!dest.starts_with("docker://")) return std::nullopt;
  dest.remove_prefix(9);
  while (dest.ends_with('/')) dest.remove_suffix(1);
  auto slash = dest.find('/');
  std::string host(dest.substr(0, slash));
  std::string prefix(slash == std::string_view::npos ? "" : dest.substr(slash + 1));
  if (host.empty()) return std::nullopt;
  return std::make_pair(host, prefix);
}

// The destination reference of `tag` of `repo`.
Result<std::string> repository_destination(const MirrorRepository& repo, const DockerReference& source,
                                           const std::string& tag) {
  if (auto reg = registry_prefix(repo.destination)) {
    std::string name = reg->first + "/" + (reg->second.empty() ? "" : reg->second + "/") + source.repository;
    STRATA_TRY(auto ref, with_context(parse_docker_reference(name + ":" + tag), repo.where + ": `destination`"));
    return "docker://" + ref.str();
  }
  const std::string t = repo.tag_prefix + tag;
  if (!is_valid_tag(t))
    return fail(bad(repo.where, str::quote(t) + " is not a valid tag at " + repo.destination + " (`tag-prefix`)"));
  return repo.destination + ":" + t;
}

Result<MirrorRepository> parse_repository(const YAML::Node& node, const std::string& where) {
  MirrorRepository r;
  r.where = where;
  if (!node.IsMap()) return fail(bad(where, "expected a mapping"));
  STRATA_TRY_VOID(only_keys(node, where, {"source", "destination", "tags", "tag-prefix", "platform", "all"}));
  STRATA_TRY(r.source, scalar(node, "source", where));
  STRATA_TRY(r.destination, scalar(node, "destination", where));
  STRATA_TRY(auto src, with_context(parse_image_ref(r.source), where + ": `source`"));
  if (src.transport != Transport::kDocker || src.docker.tag || src.docker.digest)
    return fail(bad(where, "`source` must name a registry repository with no tag or digest (docker://HOST/REPO), not " +
                               str::quote(r.source) + "; list single images under `images`"));
  if (auto t = node["tags"]) {
    STRATA_TRY(r.tags, parse_tags(t, where + ": tags"));
  }
  if (node["tag-prefix"]) {
    STRATA_TRY(r.tag_prefix, scalar(node, "tag-prefix", where));
  }
  STRATA_TRY_VOID(platform_keys(node, where, r.platform, r.all));
  if (registry_prefix(r.destination)) {
    if (!r.tag_prefix.empty()) return fail(bad(where, "`tag-prefix` applies to layouts and archives only"));
    STRATA_TRY_VOID(repository_destination(r, src.docker, "latest"));
  } else {
    STRATA_TRY(auto dst, with_context(parse_image_ref(r.destination), where + ": `destination`"));
    if ((dst.transport != Transport::kOciLayout && dst.transport != Transport::kOciArchive) || !dst.ref.empty())
      return fail(bad(where, "`destination` must be docker://HOST[/PREFIX], oci:DIR or oci-archive:FILE (no tag), not " +
                                 str::quote(r.destination)));
    STRATA_TRY_VOID(repository_destination(r, src.docker, "latest"));
  }
  return r;
}

Result<MirrorEntry> parse_image(const YAML::Node& node, const std::string& where) {
  MirrorEntry e;
  e.where = where;
  if (!node.IsMap()) return fail(bad(where, "expected a mapping"));
  STRATA_TRY_VOID(only_keys(node, where, {"source", "destination", "platform", "all"}));
  STRATA_TRY(e.source, scalar(node, "source", where));
  STRATA_TRY(e.destination, scalar(node, "destination", where));
  STRATA_TRY_VOID(with_context(parse_image_ref(e.source), where + ": `source`"));
  STRATA_TRY_VOID(with_context(parse_image_ref(e.destination), where + ": `destination`"));
  STRATA_TRY_VOID(platform_keys(node, where, e.platform, e.all));
  return e;
}

// Stores opened once per run and shared by every image that names them: two
// images landing in one oci-archive end up in the same tar, a layout is not
// created twice at once, an archive source is read once, and the copy
// session sees one Store per registry repository (so a blob in flight there
// is awaited, not sent again).
class StorePool {
 public:
  StorePool(const OpenOptions& open, Access access, bool absent_ok)
      : open_(open), access_(access), absent_ok_(absent_ok) {}

  struct Lease {
    Store* store = nullptr;  // nullptr: absent (absent_ok)
    std::string ref;
  };

  Result<Lease> acquire(const ImageRef& ref) {
    Lease lease;
    lease.ref = store_ref(ref);
    const std::string key = key_of(ref);
    std::lock_guard lock(mu_);
    auto it = stores_.find(key);
    if (it == stores_.end()) {
      auto opened = open_store(ref, access_, open_);
      if (!opened) {
        if (!absent_ok_ || !opened.error().is(ErrorCode::kNotFound)) return fail(opened.error());
        it = stores_.emplace(key, nullptr).first;
      } else {
        it = stores_.emplace(key, std::move(opened->store)).first;
      }
    }
    lease.store = it->second.get();
    return lease;
  }

  // Closes every store once (archives are written here), by key.
  std::map<std::string, Result<void>> close_all() {
    std::map<std::string, Result<void>> out;
    for (auto& [key, store] : stores_)
      if (store) out.emplace(key, store->close());
    return out;
  }

  static std::string key_of(const ImageRef& ref) {
    if (ref.transport == Transport::kDocker) return "docker://" + ref.docker.name();
    if (ref.transport == Transport::kLocal) return "local:";
    // A runtime's store is opened per repository, as a registry is.
    if (is_runtime_store(ref.transport)) return std::string(transport_name(ref.transport)) + ":" + ref.docker.name();
    return std::string(transport_name(ref.transport)) + ":" + ref.path;
  }

 private:
  const OpenOptions& open_;
  Access access_;
  bool absent_ok_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Store>> stores_;
};

// An image written into an archive is done only once the archive is.
bool archive_destination(const MirrorEntry& e) {
  auto ref = parse_image_ref(e.destination);
  return ref && (ref->transport == Transport::kOciArchive || ref->transport == Transport::kDockerArchive);
}

std::string destination_key(const MirrorEntry& e) {
  auto ref = parse_image_ref(e.destination);
  return ref ? StorePool::key_of(*ref) : std::string();
}

CopyOptions entry_copy_options(const MirrorEntry& e, const ImageRef& dst_ref, const MirrorOptions& o) {
  CopyOptions c = o.copy;
  c.all = e.all;
  c.platform = e.platform;
  c.pin = destination_pin(dst_ref);
  return c;
}

Result<CopyResult> copy_entry(CopySession& session, StorePool& sources, StorePool& dests, const MirrorEntry& e,
                              const MirrorOptions& o) {
  STRATA_TRY(auto src_ref, parse_image_ref(e.source));
  STRATA_TRY(auto dst_ref, parse_image_ref(e.destination));
  STRATA_TRY(auto src, sources.acquire(src_ref));
  STRATA_TRY(auto dst, dests.acquire(dst_ref));
  std::optional<std::string> tag = destination_tag(dst_ref);
  auto copied = session.copy(*src.store, src.ref, *dst.store, tag, entry_copy_options(e, dst_ref, o));
  if (!copied) return fail(copied.error().context(e.source + " → " + e.destination));
  return copied;
}

Result<CopyEstimate> estimate_entry(StorePool& sources, StorePool& dests, const MirrorEntry& e,
                                    const MirrorOptions& o, EstimateLedger& ledger) {
  STRATA_TRY(auto src_ref, parse_image_ref(e.source));
  STRATA_TRY(auto dst_ref, parse_image_ref(e.destination));
  STRATA_TRY(auto src, sources.acquire(src_ref));
  STRATA_TRY(auto dst, with_context(dests.acquire(dst_ref), e.source + " → " + e.destination));
  std::optional<std::string> tag = destination_tag(dst_ref);
  auto est = estimate_copy(*src.store, src.ref, dst.store, tag, entry_copy_options(e, dst_ref, o), &ledger,
                           StorePool::key_of(dst_ref));
  if (!est) return fail(est.error().context(e.source + " → " + e.destination));
  return est;
}

}  // namespace

std::string_view mirror_status_name(MirrorStatus s) {
  switch (s) {
    case MirrorStatus::kCopied: return "copied";
    case MirrorStatus::kPresent: return "present";
    case MirrorStatus::kWouldCopy: return "would-copy";
    case MirrorStatus::kFailed: return "failed";
    case MirrorStatus::kNotStarted: return "not-started";
  }
  return "failed";
}

MirrorStatus MirrorOutcome::status() const {
  if (!result) return result.error().is(ErrorCode::kCancelled) ? MirrorStatus::kNotStarted : MirrorStatus::kFailed;
  if (estimate) return estimate->already_present ? MirrorStatus::kPresent : MirrorStatus::kWouldCopy;
  return result->already_present ? MirrorStatus::kPresent : MirrorStatus::kCopied;
}

Result<MirrorConfig> parse_mirror_config(std::string_view text, const std::string& what,
                                         const std::filesystem::path& base_dir) {
  STRATA_TRY(YAML::Node root, load_yaml(text, what));
  if (!root.IsMap()) return fail(bad(what, "expected a mapping with `images` or `repositories`"));
  MirrorConfig config;
  STRATA_TRY_VOID(only_keys(root, what, {"parallel", "registries", "images", "repositories"}));
  if (auto p = root["parallel"]) {
    STRATA_TRY(config.parallel, whole_number(p, what, "parallel", 1, 64));
  }
  if (auto regs = root["registries"]) {
    if (!regs.IsMap()) return fail(bad(what, "`registries` must map registry hosts to their settings"));
    for (const auto& kv : regs) {
      const auto host = kv.first.as<std::string>("");
      const std::string where = what + ": registries: " + host;
      if (host.empty() || host.find('/') != std::string::npos)
        return fail(bad(what, "registries: " + str::quote(host) + " is not a registry host (HOST[:PORT])"));
      STRATA_TRY(auto settings, parse_host(kv.second, where, base_dir));
      config.registries.emplace(host, std::move(settings));
    }
  }
  auto list = [&](const char* key) -> Result<YAML::Node> {
    auto node = root[key];
    if (!node) return YAML::Node(YAML::NodeType::Sequence);
    if (!node.IsSequence()) return fail(bad(what, "`" + std::string(key) + "` must be a list"));
    if (node.size() > kMaxImages) return fail(bad(what, "`" + std::string(key) + "`: too many entries"));
    return node;
  };
  STRATA_TRY(auto images, list("images"));
  STRATA_TRY(auto repos, list("repositories"));
  if (images.size() == 0 && repos.size() == 0)
    return fail(bad(what, "nothing to mirror: give a non-empty `images` or `repositories` list"));
  for (std::size_t i = 0; i < images.size(); ++i) {
    STRATA_TRY(auto e, parse_image(images[i], what + ": images[" + std::to_string(i) + "]"));
    config.images.push_back(std::move(e));
  }
  for (std::size_t i = 0; i < repos.size(); ++i) {
    STRATA_TRY(auto r, parse_repository(repos[i], what + ": repositories[" + std::to_string(i) + "]"));
    config.repositories.push_back(std::move(r));
  }
  return config;
}

Result<MirrorConfig> load_mirror_config(const std::filesystem::path& path) {
  STRATA_TRY(auto text, fs::read_file(path, kMaxMirrorConfigBytes));
  return parse_mirror_config(text, path.string(), path.parent_path());
}

Result<std::vector<MirrorEntry>> expand_repository(const MirrorRepository& repo, const OpenOptions& open,
                                                   std::vector<std::string>* skipped) {
  STRATA_TRY(auto ref, parse_image_ref(repo.source));
  STRATA_TRY(auto src, with_context(open_store(ref, Access::kRead, open), repo.where));
  STRATA_TRY(auto tags, with_context(src.store->list_tags(), repo.where + ": listing the tags of " + repo.source));
  STRATA_TRY(auto kept, select_tags(tags, repo.tags, repo.where + ": tags", skipped));
  std::vector<MirrorEntry> out;
  for (const auto& tag : kept) {
    MirrorEntry e;
    e.source = "docker://" + ref.docker.name() + ":" + tag;
    STRATA_TRY(e.destination, repository_destination(repo, ref.docker, tag));
    e.platform = repo.platform;
    e.all = repo.all;
    e.where = repo.where + " tag " + tag;
    out.push_back(std::move(e));
  }
  return out;
}

OpenOptions with_config_registries(const MirrorConfig& config, OpenOptions open) {
  if (config.registries.empty()) return open;
  for (const auto& [host, settings] : config.registries) open.registry_hosts[host] = settings;
  return with_shared_registries(open);
}

std::vector<MirrorOutcome> run_mirror(const MirrorConfig& config, const MirrorOptions& options_in) {
  MirrorOptions options = options_in;
  options.open = with_config_registries(config, options.open);

  // Every image the run will try; a repository whose tags cannot be listed
  // is one failed outcome.
  std::vector<MirrorOutcome> outcomes;
  std::vector<bool> pending;
  for (const auto& e : config.images) {
    outcomes.push_back(MirrorOutcome{e});
    pending.push_back(true);
  }
  bool expansion_failed = false;
  for (const auto& repo : config.repositories) {
    std::vector<std::string> skipped;
    auto expanded = expand_repository(repo, options.open, &skipped);
    if (!skipped.empty() && options.on_skipped_tags) options.on_skipped_tags(repo, skipped);
    if (!expanded) {
      MirrorOutcome failed{MirrorEntry{repo.source, repo.destination, repo.platform, repo.all, repo.where}};
      failed.result = fail(expanded.error());
      outcomes.push_back(std::move(failed));
      pending.push_back(false);
      expansion_failed = true;
      continue;
    }
    for (auto& e : *expanded) {
      outcomes.push_back(MirrorOutcome{std::move(e)});
      pending.push_back(true);
    }
  }
  if (options.on_planned) options.on_planned(outcomes);
  if (options.journal) options.journal->start(outcomes.size(), options.dry_run);
  std::mutex report_mu;
  auto report = [&](const MirrorOutcome& o) {
    if (options.journal) options.journal->image(o);
    if (options.on_done) options.on_done(o);
  };
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    if (!pending[i]) report(outcomes[i]);

  CopySession session;
  EstimateLedger ledger;  // --dry-run: each blob counted once, mounts free, as the session copies
  StorePool sources(options.open, Access::kRead, false);
  StorePool dests(options.open, options.dry_run ? Access::kRead : Access::kWrite, options.dry_run);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{expansion_failed && !options.keep_going};
  auto worker = [&] {
    while (!stop.load()) {
      const std::size_t i = next++;
      if (i >= outcomes.size()) return;
      if (!pending[i]) continue;
      const auto& e = outcomes[i].entry;
      Result<CopyResult> r = fail(ErrorCode::kCancelled, "not started");
      std::optional<CopyEstimate> estimate;
      if (options.dry_run) {
        auto est = estimate_entry(sources, dests, e, options, ledger);
        if (est) {
          CopyResult cr;
          cr.root = est->root;
          cr.already_present = est->already_present;
          r = cr;
          estimate = *est;
        } else {
          r = fail(est.error());
        }
      } else {
        r = copy_entry(session, sources, dests, e, options);
      }
      std::lock_guard lock(report_mu);
      outcomes[i].result = std::move(r);
      outcomes[i].estimate = std::move(estimate);
      if (!outcomes[i].result && !options.keep_going) stop = true;
      // An image copied into an archive is done only once the archive is
      // written (below).
      bool deferred = outcomes[i].result && !options.dry_run && archive_destination(e);
      if (!deferred) report(outcomes[i]);
    }
  };
  const int parallel = std::clamp(config.parallel, 1, 64);
  {
    std::vector<std::jthread> threads;
    for (int t = 1; t < parallel && static_cast<std::size_t>(t) < outcomes.size(); ++t) threads.emplace_back(worker);
    worker();
  }
  // Archives are written last; an image is only done once its archive is.
  auto closed = dests.close_all();
  (void)sources.close_all();  // opened for reading: closing one writes nothing, so no failure there changes a copy
  for (auto& o : outcomes) {
    if (options.dry_run || !o.result || !archive_destination(o.entry)) continue;
    if (auto it = closed.find(destination_key(o.entry)); it != closed.end() && !it->second) {
      o.result = fail(it->second.error().context(o.entry.source + " → " + o.entry.destination));
    }
    report(o);
  }
  if (options.journal) {
    for (const auto& o : outcomes)
      if (o.status() == MirrorStatus::kNotStarted) options.journal->image(o);
    options.journal->end(outcomes);
  }
  return outcomes;
}

}  // namespace strata::oci
