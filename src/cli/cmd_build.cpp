// strata build: find or build `base + one layer of .debs` (issue 4).
#include "cli/cmd_build.hpp"

#include <cstdlib>
#include <iostream>

#include "cli/cmd_resolve.hpp"
#include "layer/apt/archive.hpp"
#include "layer/overlay/base_image.hpp"
#include "layer/apt/deb_fetcher.hpp"
#include "layer/import/import.hpp"
#include "layer/apt/lock_file.hpp"
#include "layer/overlay/overlay.hpp"
#include "layer/apt/resolve_request.hpp"
#include "layer/apt/resolver.hpp"
#include "layer/scratch/scratch_base.hpp"
#include "layer/scratch/scratch_effects.hpp"
#include "layer/scratch/scratch_packages.hpp"
#include "oci/media_types.hpp"
#include "util/clock.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::cli {

namespace {

std::vector<oci::Platform> platforms_of(const OverlayRequest& r, const std::optional<layer::Lock>& lock) {
  std::string text = r.platform;
  if (text.empty() && lock) text = lock->platform;
  if (text.empty()) return {oci::host_platform()};
  return check(oci::parse_platforms(text));
}

std::optional<layer::Lock> read_lock(const OverlayRequest& r) {
  if (r.lock.empty()) return std::nullopt;
  return check(layer::read_lock_file(r.lock));
}


std::string platform_text(const oci::Platform& p) { return p.str(); }

std::set<std::string> requested_names(const std::vector<std::string>& requests) {
  std::set<std::string> out;
  for (const auto& r : requests) {
    std::string n = r.substr(0, r.find('='));
    out.insert(n.substr(0, n.find(':')));
  }
  return out;
}

std::optional<std::int64_t> source_date_epoch() {
  const char* v = std::getenv("SOURCE_DATE_EPOCH");
  if (!v || !*v) return std::nullopt;
  return check(layer::parse_source_date_epoch(v));
}

struct PlatformBuild {
  oci::Platform platform;
  layer::Lock lock;
  layer::OverlayResult result;
};

}  // namespace

void add_overlay_options(CLI::App* cmd, OverlayRequest& r) {
  cmd->add_option("packages", r.packages, "Packages to add (NAME, NAME:ARCH or NAME=VERSION)");
  cmd->add_option("--base", r.base, "Base image reference, or scratch: a Debian root from the archive alone")
      ->required();
  cmd->add_option("--variant", r.variant,
                  "--base scratch: the package set, essential or minbase (default; as mmdebstrap names them)");
  cmd->add_option("--lock", r.lock, "Build exactly this lock (reads no index)")->check(CLI::ExistingFile);
  cmd->add_option("--lock-out", r.lock_out, "Write the lock used to FILE (FILE.<os>-<arch> per platform for several)");
  cmd->add_option("--sources", r.sources, "apt sources file (.list or .sources); replaces the host's")
      ->check(CLI::ExistingFile);
  cmd->add_option("--platform", r.platform, "Target platform(s), comma-separated (default: this machine's)");
  cmd->add_option("--compression", r.compression, "Layer compression: gzip (default) or zstd");
  cmd->add_option("--max-age", r.max_age, "Rebuild a cached overlay whose archive snapshot is older (e.g. 7d)");
  cmd->add_flag("--allow-unsigned-archive", r.allow_unsigned, "Accept sources marked Trusted: yes (unverified)");
}

Result<OverlayKey> overlay_key(const GlobalOptions& g, const OverlayRequest& r) {
  bool scratch = r.base == kScratchBase;
  if (!scratch && r.packages.empty() && r.lock.empty()) {
    return fail(ErrorCode::kInvalidArgument, "name at least one package to add to --base " + r.base);
  }
  STRATA_TRY(auto variant, layer::parse_scratch_variant(r.variant));
  std::optional<layer::Lock> lock = read_lock(r);
  auto platforms = platforms_of(r, lock);
  STRATA_TRY(auto compression, oci::parse_compression(r.compression));
  if (compression != oci::Compression::kGzip && compression != oci::Compression::kZstd) {
    return fail(ErrorCode::kInvalidArgument, "--compression " + r.compression + ": choose gzip or zstd");
  }
  OverlayKey key;
  nlohmann::json j;  // std::map-backed: keys sorted, so the dump is canonical
  j["recipe"] = kOverlayRecipe;
  j["compression"] = r.compression;
  auto packages = lock ? lock->request : r.packages;
  std::sort(packages.begin(), packages.end());
  packages.erase(std::unique(packages.begin(), packages.end()), packages.end());
  j["packages"] = packages;
  j["platforms"] = nlohmann::json::array();
  j["base"] = nlohmann::json::object();
  if (scratch) {
    // No base image: the scratch recipe and the package set name the base.
    std::string base = std::string(kScratchBase) + ":" + std::string(layer::scratch_variant_name(variant)) + ":" +
                       std::to_string(kScratchRecipe);
    for (const auto& p : platforms) {
      j["platforms"].push_back(platform_text(p));
      j["base"][platform_text(p)] = base;
      key.base_digests.emplace_back(platform_text(p), base);
    }
  }
  if (!scratch) {
  STRATA_TRY(auto base_ref, oci::parse_image_ref(r.base));
  STRATA_TRY(auto opened, oci::open_store(base_ref, oci::Access::kRead, g.open_options()));
  STRATA_TRY(auto fetched, oci::fetch_manifest(*opened.store, opened.ref));
  for (const auto& p : platforms) {
    std::string digest = fetched.raw.descriptor.digest.str();
    if (auto* idx = std::get_if<oci::ImageIndex>(&fetched.parsed)) {
      auto m = oci::select_platform(*idx, p);
      if (m.empty()) return fail(ErrorCode::kNotFound, "--base " + r.base + " has no image for " + p.str());
      digest = m.front().digest.str();
    }
    j["platforms"].push_back(platform_text(p));
    j["base"][platform_text(p)] = digest;
    key.base_digests.emplace_back(platform_text(p), digest);
  }
  }
  j["sources"] = nlohmann::json::array();
  if (lock) {
    for (const auto& s : lock->sources) {
      // A lock from before locks recorded the identities: the signer's fingerprint.
      auto keys = s.keys.value_or(std::vector<std::string>{s.fingerprint});
      j["sources"].push_back({{"uri", s.uri}, {"suite", s.suite}, {"components", s.components}, {"keys", keys}});
    }
  } else {
    for (const auto& s : check(layer::load_sources(r.sources))) {
      j["sources"].push_back(
          {{"uri", s.uri}, {"suite", s.suite}, {"components", s.components}, {"keys", layer::source_key_identities(s)}});
    }
  }
  key.canonical_json = j.dump();
  key.hex = sha256_hex(key.canonical_json);
  return key;
}

namespace {

// Resolves one platform's lock from the archive (or returns the given lock).
layer::Lock resolve_lock(const GlobalOptions& g, const OverlayRequest& r, const std::optional<layer::Lock>& given,
                         const oci::Platform& p, const std::vector<layer::Package>& installed,
                         const std::string& base_digest, oci::http::Transport& http, std::string_view dpkg_arch) {
  if (given) return *given;
  // Multi-Arch: the architectures dpkg on the base knows and those requested
  // (`name:arch`) are indexed and installable, as with apt on that base.
  std::string arch = check(debian_arch_for_platform(p.str()));
  layer::ResolveRequest req;
  req.packages = r.packages;
  req.sources = check(layer::load_sources(r.sources));
  req.platform = p;
  req.installed = installed;
  req.base_reference = r.base;
  req.base_digest = base_digest;
  req.archive.home = g.open_options().home;
  req.archive.allow_unsigned = r.allow_unsigned;
  req.foreign_archs = layer::foreign_architectures(arch, dpkg_arch, installed, r.packages);
  if (r.base == kScratchBase) {
    // Nothing is installed: request the variant's set explicitly, as
    // mmdebstrap does, so apt's walk pulls in its dependencies.
    auto variant = check(layer::parse_scratch_variant(r.variant));
    req.more_requests = [variant](const layer::LoadedArchive& archive,
                                  const std::string& arch) -> Result<std::vector<std::string>> {
      std::vector<layer::ScratchIndex> indexes;
      for (const auto& idx : archive.indexes) indexes.push_back({&idx.packages, archive.sources[idx.source].priority});
      auto set = layer::scratch_requests(indexes, arch, variant);
      if (set.empty()) {
        return fail(ErrorCode::kFailedPrecondition,
                    "--base scratch: the sources have no Essential packages for " + arch +
                        "; they cannot make a Debian root (check --sources and --platform)");
      }
      return set;
    };
  }
  auto resolved = check(layer::resolve_request(http, std::move(req)));
  for (const auto& w : resolved.warnings) log_info(g, w);
  return resolved.lock;
}

std::string packages_annotation(const layer::Lock& lock) {
  std::vector<std::string> v;
  for (const auto& p : lock.packages) v.push_back(p.name + "=" + p.version + ":" + p.architecture);
  return str::join(v, ",");
}

// The cached overlay for `tag`, if present and young enough.
std::optional<oci::Descriptor> cached_overlay(oci::Store& dest, const std::string& tag, const OverlayRequest& r,
                                              const GlobalOptions& g) {
  auto desc = dest.resolve(tag);
  if (!desc) return std::nullopt;
  if (r.max_age.empty()) return *desc;
  auto max_age = str::parse_duration(r.max_age);
  if (!max_age) throw Exit{kExitUsage, "--max-age " + r.max_age + ": not a duration (e.g. 30m, 12h, 7d)"};
  auto fetched = oci::fetch_manifest(dest, desc->digest.str());
  if (!fetched) return std::nullopt;
  std::map<std::string, std::string> annotations;
  if (auto* m = std::get_if<oci::ImageManifest>(&fetched->parsed)) annotations = m->annotations;
  if (auto* i = std::get_if<oci::ImageIndex>(&fetched->parsed)) annotations = i->annotations;
  auto date = annotations.find(std::string(layer::kAnnotationArchiveDate));
  std::int64_t when = date == annotations.end() ? 0 : static_cast<std::int64_t>(str::parse_u64(date->second).value_or(0));
  std::int64_t now = system_clock().now();
  if (now - when >= *max_age) {  // a hit only when younger than --max-age (so 0s always rebuilds)
    log_info(g, tag + ": cached overlay's archive snapshot is older than --max-age " + r.max_age + "; rebuilding");
    return std::nullopt;
  }
  return *desc;
}

void run_build(const GlobalOptions& g, const OverlayRequest& r, oci::http::Transport& http) {
  bool scratch = r.base == kScratchBase;
  std::optional<layer::Lock> given = read_lock(r);
  auto platforms = platforms_of(r, given);
  if (given && platforms.size() != 1) throw Exit{kExitUsage, "--lock builds the one platform of its lock"};
  auto compression = check(oci::parse_compression(r.compression));
  OverlayKey key = check(overlay_key(g, r));
  std::string key_tag = "overlay-" + key.hex;
  layer::BaseFsCache base_fs(std::filesystem::path(g.open_options().home) / "basefs");

  auto dest_ref = check(oci::parse_image_ref(r.dest));
  auto dest = check(oci::open_store(dest_ref, oci::Access::kWrite, g.open_options()));
  auto dest_tag = destination_tag(dest_ref, dest.ref);
  std::string dest_text = r.dest;
  if (auto at = dest_text.find('@'); at != std::string::npos) dest_text.resize(at);

  auto print = [&](const oci::Descriptor& d, bool cached, const std::vector<PlatformBuild>& builds) {
    if (g.json) {
      nlohmann::ordered_json out;
      out["reference"] = dest_text + "@" + d.digest.str();
      out["digest"] = d.digest.str();
      out["key"] = key.hex;
      out["cached"] = cached;
      out["packages"] = nlohmann::ordered_json::array();
      for (const auto& b : builds) {
        for (const auto& p : b.lock.packages) {
          out["packages"].push_back({{"name", p.name}, {"version", p.version}, {"architecture", p.architecture}});
        }
      }
      out["lock"] = r.lock_out.empty() ? (r.lock.empty() ? nullptr : nlohmann::ordered_json(r.lock))
                                       : nlohmann::ordered_json(r.lock_out);
      if (!builds.empty()) {
        out["fragments_converted"] = 0;
        out["fragments_reused"] = 0;
        for (const auto& b : builds) {
          out["fragments_converted"] = out["fragments_converted"].get<std::size_t>() + b.result.converted;
          out["fragments_reused"] = out["fragments_reused"].get<std::size_t>() + b.result.reused;
        }
      }
      std::cout << oci::dump_json(out, 2) << "\n";
    } else {
      std::cout << dest_text << "@" << d.digest.str() << "\n";
    }
  };

  if (auto hit = cached_overlay(*dest.store, key_tag, r, g)) {
    if (dest_tag && *dest_tag != key_tag) {
      auto raw = check(dest.store->get_manifest(hit->digest.str()));
      check(dest.store->put_manifest(raw, *dest_tag));
    }
    check(dest.store->close());
    log_info(g, "cached: " + key_tag);
    print(*hit, true, {});
    return;
  }

  // A scratch build has no base store: its base has no blobs to copy.
  oci::OpenedStore base_store = scratch ? oci::OpenedStore{} : check(oci::open_store(
      check(oci::parse_image_ref(r.base)), oci::Access::kRead, g.open_options()));
  oci::Store& base_blobs = scratch ? *dest.store : *base_store.store;
  std::vector<PlatformBuild> builds;
  for (std::size_t i = 0; i < platforms.size(); ++i) {
    const auto& p = platforms[i];
    auto base = scratch ? check(layer::scratch_base(p))
                        : check(layer::load_base_image(*base_store.store, base_store.ref, p, layer::overlay_base_needs(),
                                                      &base_fs));
    auto installed = check(layer::base_packages(base));
    PlatformBuild b;
    b.platform = p;
    b.lock = resolve_lock(g, r, given, p, installed, scratch ? "" : base.descriptor.digest.str(), http,
                          base.fs.read_small_file("var/lib/dpkg/arch").value_or(""));
    std::string lock_bytes = layer::write_lock(b.lock);
    if (!r.lock_out.empty()) {
      std::string path = r.lock_out;
      if (platforms.size() > 1) path += "." + p.os + "-" + p.architecture + (p.variant.empty() ? "" : "-" + p.variant);
      check(fs::write_file_atomic(path, lock_bytes));
    }
    layer::FetchOptions fo;
    fo.home = g.open_options().home;
    fo.jobs = static_cast<unsigned>(g.jobs);
    fo.clock = &system_clock();
    check(layer::fetch_debs(http, b.lock, fo));

    layer::OverlayOptions o;
    o.home = fo.home;
    o.compression = compression;
    o.debian_arch = check(debian_arch_for_platform(p.str()));
    std::int64_t archive_date = 0;
    for (const auto& s : b.lock.sources) archive_date = std::max(archive_date, s.date);
    o.epoch = source_date_epoch().value_or(archive_date);
    o.requested = requested_names(b.lock.request);
    o.jobs = static_cast<unsigned>(g.jobs);
    o.annotations[std::string(layer::kAnnotationKey)] = key.hex;
    o.annotations[std::string(layer::kAnnotationLockDigest)] = "sha256:" + sha256_hex(lock_bytes);
    o.annotations[std::string(layer::kAnnotationArchiveDate)] = std::to_string(archive_date);
    o.annotations[std::string(layer::kAnnotationPackages)] = packages_annotation(b.lock);
    o.annotations["org.opencontainers.image.base.name"] = r.base;
    if (platforms.size() == 1) o.tag = key_tag;
    o.created_by = "strata build " + str::join(b.lock.request, " ");
    std::vector<layer::OverlayDeb> debs;
    for (const auto& lp : b.lock.packages) {
      debs.push_back({lp.name, lp.version, lp.architecture, lp.sha256, layer::deb_cache_path(fo.home, lp.sha256)});
    }
    if (scratch) {
      layer::ScratchEffectsInput in;
      for (const auto& d : debs) in.debs[d.name] = d.path;
      in.sources = b.lock.sources;
      in.debian_arch = o.debian_arch;
      in.epoch = o.epoch;
      o.extra_effects = [in](const layer::OverlayView& view, std::vector<std::string>& unreproduced) {
        return layer::scratch_effects(view, in, unreproduced);
      };
      o.created_by = "strata build --base scratch --variant " + r.variant + " " + str::join(r.packages, " ");
    }
    b.result = check(layer::build_overlay(base, base_blobs, debs, o, *dest.store));
    for (const auto& n : b.result.notes) log_debug(g, n);
    for (const auto& u : b.result.unreproduced) log_info(g, "not reproduced: " + u);
    log_info(g, p.str() + ": " + std::to_string(debs.size()) + " packages, " + std::to_string(b.result.converted) +
                    " fragments converted, " + std::to_string(b.result.reused) + " reused");
    builds.push_back(std::move(b));
  }

  oci::Descriptor root;
  if (builds.size() == 1) {
    root = builds.front().result.manifest;
    if (dest_tag && *dest_tag != key_tag) {
      auto raw = check(dest.store->get_manifest(root.digest.str()));
      check(dest.store->put_manifest(raw, *dest_tag));
    }
  } else {
    oci::ImageIndex idx;
    idx.media_type = std::string(oci::media::kOciIndex);
    std::int64_t archive_date = 0;
    for (const auto& b : builds) {
      oci::Descriptor d = b.result.manifest;
      d.platform = b.platform;
      idx.manifests.push_back(d);
      for (const auto& s : b.lock.sources) archive_date = std::max(archive_date, s.date);
    }
    idx.annotations[std::string(layer::kAnnotationKey)] = key.hex;
    idx.annotations[std::string(layer::kAnnotationArchiveDate)] = std::to_string(archive_date);
    idx.annotations["org.opencontainers.image.base.name"] = r.base;
    auto raw = oci::make_raw_manifest(std::string(oci::media::kOciIndex), oci::serialize(idx));
    check(dest.store->put_manifest(raw, key_tag));
    if (dest_tag && *dest_tag != key_tag) check(dest.store->put_manifest(raw, *dest_tag));
    root = raw.descriptor;
  }
  check(dest.store->close());
  print(root, false, builds);
}

}  // namespace

void register_build(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto r = std::make_shared<OverlayRequest>();
  auto* cmd = add_command(
      app, "build", "Build (or find in the cache) the overlay base + one layer of Debian packages",
      "  strata build --base local:debian:12 build-essential libpq-dev --dest local:dev:1\n"
      "  strata build --base oci:/srv/img:base --lock dev.lock --dest oci:/srv/img:dev --compression zstd\n"
      "  strata build --base docker://reg/base:1 git --platform linux/amd64,linux/arm64 --dest docker://reg/dev:1\n");
  add_overlay_options(cmd, *r);
  cmd->add_option("--dest", r->dest, "Destination image reference")->required();
  cmd->callback([&g, r, http] { run_build(g, *r, *http); });
}

}  // namespace strata::cli
