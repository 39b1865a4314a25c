#include "layer/apt/archive.hpp"

#include <algorithm>
#include <thread>

#include "layer/apt/packages_index.hpp"
#include "layer/apt/remembered_release.hpp"
#include "layer/apt/signature.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"

namespace strata::layer {

namespace {

constexpr std::size_t kMaxRelease = 64 << 20;

// Verified InRelease files, so identical bytes are not verified again with
// gpgv on every run: $STRATA_HOME/releases/<sha256 of the InRelease bytes>-
// <sha256 of the trusted keys>, holding the signing key's fingerprint, a
// newline, and the signed text gpgv extracted. The key part makes an entry
// count only for the same trust (same keyrings, inline keys, fingerprint
// restrictions). Only the signature check is skipped: the Release is parsed
// and checked (Date, Valid-Until, suite, components) on every run, as apt
// re-checks Valid-Until of its cached lists.
Result<std::string> trust_digest(const TrustedKeys& keys) {
  std::string all;
  for (const auto& k : keys.keyrings) {
    STRATA_TRY(std::string bytes, fs::read_file(k, 64 << 20));
    all += "keyring " + std::to_string(bytes.size()) + "\n" + bytes;
  }
  for (const auto& k : keys.armored_keys) all += "inline " + std::to_string(k.size()) + "\n" + k;
  for (const auto& f : keys.fingerprints) all += "fpr " + f + "\n";
  return sha256_hex(all);
}

std::filesystem::path verified_release_path(const ArchiveOptions& opt, const std::string& release_sha,
                                            const std::string& trust) {
  return opt.home / "releases" / (release_sha + "-" + trust);
}

std::optional<VerifiedText> load_verified_release(const std::filesystem::path& p) {
  std::error_code ec;
  if (!std::filesystem::exists(p, ec)) return std::nullopt;
  auto bytes = fs::read_file(p, kMaxRelease + 4096);
  if (!bytes) return std::nullopt;
  auto nl = bytes->find('\n');
  if (nl == std::string::npos || nl == 0) return std::nullopt;
  return VerifiedText{bytes->substr(nl + 1), bytes->substr(0, nl)};
}

std::string dist_of(const AptSource& src) { return src.uri + "/dists/" + src.suite; }

// "45s", "7m", "3h", "2d".
std::string age(std::int64_t s) {
  if (s < 120) return std::to_string(s) + "s";
  if (s < 7200) return std::to_string(s / 60) + "m";
  if (s < 172800) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

// A source's InRelease for this run; nullopt bytes: the archive has none
// (load_release fetches Release and Release.gpg).
struct InReleaseBytes {
  std::optional<std::string> bytes;
  bool from_window = false;  // remembered and young enough: no network asked
};

// Every source's InRelease: remembered (--offline, or confirmed within
// index_max_age), else fetched, conditionally when remembered, the sources
// in parallel. `window`: whether the freshness window may answer.
Result<std::vector<InReleaseBytes>> inreleases(oci::http::Transport& transport, const std::vector<AptSource>& sources,
                                               const ArchiveOptions& opt, bool window) {
  const std::int64_t now = opt.clock->now();
  std::vector<InReleaseBytes> out(sources.size());
  std::vector<std::optional<RememberedRelease>> known(sources.size());
  std::vector<std::size_t> fetch;
  std::string told;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const AptSource& src = sources[i];
    if (src.trusted && !opt.allow_unsigned) {
      return fail(ErrorCode::kFailedPrecondition,
                  src.where + ": the source is marked Trusted: yes (no signature check); refusing it. Remove the "
                              "option, or pass --allow-unsigned-archive to accept an unverified archive");
    }
    const std::string dist = dist_of(src);
    known[i] = read_remembered_release(opt.home, dist, kMaxRelease);
    if (opt.offline) {
      if (!known[i]) {
        return fail(ErrorCode::kNotFound, "--offline: " + dist + "/InRelease (" + src.where +
                                              ") was never fetched on this machine; resolve once with the network, or "
                                              "build from a lock whose .debs are cached (strata fetch --lock)");
      }
      out[i].bytes = std::move(known[i]->bytes);
      continue;
    }
    if (window && known[i] && is_fresh(*known[i], now, opt.index_max_age)) {
      out[i] = {std::move(known[i]->bytes), true};
      continue;
    }
    fetch.push_back(i);
    std::string why = !known[i]                 ? "never fetched here"
                      : opt.index_max_age == 0  ? "revalidating, --index-max-age 0"
                      : known[i]->checked == 0  ? "revalidating"
                                                : "revalidating, checked " + age(now - known[i]->checked) +
                                                      " ago, --index-max-age " + age(opt.index_max_age);
    told += (told.empty() ? "" : ", ") + dist + "/InRelease (" + why + ")";
  }
  if (fetch.empty()) return out;
  if (opt.on_fetch) opt.on_fetch("fetching " + told);
  std::vector<Result<std::optional<RememberedRelease>>> got(fetch.size());
  auto one = [&](std::size_t k) {
    std::size_t i = fetch[k];
    got[k] = fetch_release(transport, dist_of(sources[i]) + "/InRelease", known[i] ? &*known[i] : nullptr,
                           kMaxRelease, now);
  };
  if (fetch.size() == 1) {
    one(0);
  } else {
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < fetch.size(); ++k) threads.emplace_back(one, k);
    for (auto& t : threads) t.join();
  }
  for (std::size_t k = 0; k < fetch.size(); ++k) {
    if (!got[k]) return std::unexpected(got[k].error());
    if (!*got[k]) continue;  // no InRelease: Release + Release.gpg
    std::size_t i = fetch[k];
    remember_release(opt.home, dist_of(sources[i]), **got[k]);
    out[i].bytes = std::move((*got[k])->bytes);
  }
  return out;
}

Result<LoadedSource> load_release(oci::http::Transport& transport, const AptSource& src, const ArchiveOptions& opt,
                                  std::optional<std::string> inrelease, std::vector<std::string>& warnings) {
  LoadedSource out;
  out.source = src;
  std::string dist = dist_of(src);
  std::string signed_text;
  STRATA_TRY(TrustedKeys keys, trusted_keys_for(src, opt.apt_dir));
  if (inrelease) {
    out.release_sha256 = sha256_hex(*inrelease);
    if (src.trusted) {
      warnings.push_back("WARNING: " + dist + "/InRelease is NOT verified (Trusted: yes, --allow-unsigned-archive)");
      auto begin = inrelease->find("\n\n");
      auto end = inrelease->find("\n-----BEGIN PGP SIGNATURE-----");
      signed_text = begin != std::string::npos && end != std::string::npos && end > begin
                        ? inrelease->substr(begin + 2, end - begin - 1)
                        : *inrelease;
    } else {
      STRATA_TRY(std::string trust, trust_digest(keys));
      auto memo = verified_release_path(opt, out.release_sha256, trust);
      std::optional<VerifiedText> v = load_verified_release(memo);
      if (!v) {
        STRATA_TRY(v, verify_clearsigned(*inrelease, keys, dist + "/InRelease"));
        // Best effort: a failure to remember only costs a gpgv run next time.
        if (fs::make_dirs(memo.parent_path()))
          (void)fs::write_file_atomic(memo, v->fingerprint + "\n" + v->content);
      }
      signed_text = std::move(v->content);
      out.fingerprint = v->fingerprint;
    }
  } else {
    STRATA_TRY(auto release, http_get(transport, dist + "/Release", kMaxRelease));
    if (!release) {
      return fail(ErrorCode::kNotFound, dist + ": neither InRelease nor Release exists; check the URI and suite in " +
                                            src.where);
    }
    out.release_sha256 = sha256_hex(*release);
    if (src.trusted) {
      warnings.push_back("WARNING: " + dist + "/Release is NOT verified (Trusted: yes, --allow-unsigned-archive)");
    } else {
      STRATA_TRY(auto sig, http_get(transport, dist + "/Release.gpg", 1 << 20));
      if (!sig) {
        return fail(ErrorCode::kFailedPrecondition,
                    dist + ": the archive is not signed (no InRelease, no Release.gpg); refusing it");
      }
      STRATA_TRY(VerifiedText v, verify_detached(*release, *sig, keys, dist + "/Release"));
      out.fingerprint = v.fingerprint;
    }
    signed_text = std::move(*release);
  }
  STRATA_TRY(out.release, parse_release(signed_text, dist + "/InRelease"));
  ReleaseChecks checks;
  checks.suite = src.suite;
  checks.now = opt.clock->now();
  checks.check_valid_until = src.check_valid_until;
  checks.components = src.components;
  if (src.architectures.empty()) checks.architectures = {opt.arch};
  else if (std::find(src.architectures.begin(), src.architectures.end(), opt.arch) != src.architectures.end())
    checks.architectures = {opt.arch};
  STRATA_TRY_VOID(check_release(out.release, checks, dist + "/InRelease"));
  out.priority = out.release.pin_priority();
  return out;
}

// One source loaded: its Release and its indexes, with their warnings.
struct SourceLoad {
  LoadedSource source;
  std::vector<LoadedIndex> indexes;
  std::vector<std::string> warnings;
};

// `src`'s Release verified and checked, its indexes from the cache or
// fetched. nullopt when the Release came from the freshness window and is
// refused (expired since) or names an index the cache lacks: the archive
// moved on, ask it.
Result<std::optional<SourceLoad>> load_source(oci::http::Transport& transport, const AptSource& src,
                                              const ArchiveOptions& opt, InReleaseBytes in) {
  SourceLoad out;
  auto release = load_release(transport, src, opt, std::move(in.bytes), out.warnings);
  if (!release && in.from_window) return std::optional<SourceLoad>();
  STRATA_TRY(out.source, std::move(release));
  const Release& rel = out.source.release;
  std::vector<std::string> archs{opt.arch};
  archs.insert(archs.end(), opt.foreign_archs.begin(), opt.foreign_archs.end());
  std::vector<std::string> want;
  for (const auto& a : archs) {
    bool listed = std::find(rel.architectures.begin(), rel.architectures.end(), a) != rel.architectures.end();
    bool allowed = src.architectures.empty() ||
                   std::find(src.architectures.begin(), src.architectures.end(), a) != src.architectures.end();
    if (listed && allowed) want.push_back(a);
  }
  if (std::find(rel.architectures.begin(), rel.architectures.end(), "all") != rel.architectures.end() &&
      !rel.no_arch_all_packages)
    want.push_back("all");
  for (const auto& comp : src.components) {
    for (const auto& a : want) {
      IndexRequest req;
      req.dist_url = dist_of(src);
      req.path = comp + "/binary-" + a + "/Packages";
      req.by_hash = src.by_hash;
      req.cache_dir = opt.home / "indexes";
      LoadedIndex idx;
      idx.component = comp;
      idx.arch = a;
      std::string origin = req.dist_url + "/" + req.path;
      // The name index of an index the signed Release names by hash: no
      // fetch, no hashing of the text, no parsing (name_index.hpp).
      if (auto listed = rel.sha256.find(req.path); listed != rel.sha256.end()) {
        if (auto cached = open_name_index(req.cache_dir, listed->second.sha256)) {
          std::optional<std::vector<Package>> all;
          if (opt.decode_packages) {
            if (auto decoded = cached->packages()) all = std::move(*decoded);
          }
          if (all || !opt.decode_packages) {
            idx.index = std::move(cached);
            if (all) idx.packages = std::move(*all);
            idx.sha256 = listed->second.sha256;
            out.indexes.push_back(std::move(idx));
            continue;
          }
        }
      }
      if (opt.offline) {
        return fail(ErrorCode::kNotFound, "--offline: " + origin + " (" + src.where +
                                              ") is not in the index cache; resolve once with the network");
      }
      if (in.from_window) return std::optional<SourceLoad>();
      if (opt.on_fetch) opt.on_fetch("fetching " + origin + " (not in the index cache)");
      std::vector<Package> parsed;
      STRATA_TRY(VerifiedIndex v, fetch_packages_index(transport, rel, req, [&](const VerifiedIndex& vi) -> Result<void> {
        STRATA_TRY(parsed, parse_packages_index(vi.text, origin));
        return {};
      }));
      idx.sha256 = v.sha256;
      idx.index = NameIndex::of(parsed, name_index_path(req.cache_dir, v.sha256).string(), v.sha256);
      if (auto stored = store_name_index(req.cache_dir, v.sha256, *idx.index); !stored)
        out.warnings.push_back("warning: " + origin + ": cannot cache the parsed index: " + stored.error().message());
      if (opt.decode_packages) idx.packages = std::move(parsed);
      out.indexes.push_back(std::move(idx));
    }
  }
  return std::optional<SourceLoad>(std::move(out));
}

}  // namespace

Result<LoadedArchive> load_archive(oci::http::Transport& transport, const std::vector<AptSource>& sources,
                                   const ArchiveOptions& opt) {
  if (opt.clock == nullptr) return fail(ErrorCode::kInvalidArgument, "load_archive: no clock");
  LoadedArchive out;
  STRATA_TRY(auto releases, inreleases(transport, sources, opt, true));
  for (std::size_t i = 0; i < sources.size(); ++i) {
    STRATA_TRY(auto loaded, load_source(transport, sources[i], opt, std::move(releases[i])));
    if (!loaded) {
      STRATA_TRY(auto fresh, inreleases(transport, {sources[i]}, opt, false));
      STRATA_TRY(loaded, load_source(transport, sources[i], opt, std::move(fresh.front())));
    }
    std::size_t source_index = out.sources.size();
    out.sources.push_back(std::move(loaded->source));
    for (auto& idx : loaded->indexes) {
      idx.source = source_index;
      out.indexes.push_back(std::move(idx));
    }
    out.warnings.insert(out.warnings.end(), loaded->warnings.begin(), loaded->warnings.end());
  }
  return out;
}

}  // namespace strata::layer
