#include "layer/apt/archive.hpp"

#include <algorithm>

#include "layer/apt/package_cache.hpp"
#include "layer/apt/packages_index.hpp"
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

// The InRelease of a dist URL as last fetched on this machine, for
// --offline: $STRATA_HOME/releases/by-url/<sha256 of the dist URL>, the URL
// on the first line, then the bytes. It is verified like a fetched one.
std::filesystem::path remembered_release_path(const ArchiveOptions& opt, const std::string& dist) {
  return opt.home / "releases" / "by-url" / sha256_hex(dist);
}

void remember_release(const ArchiveOptions& opt, const std::string& dist, const std::string& bytes) {
  auto p = remembered_release_path(opt, dist);
  // Best effort: without it only an offline run is refused.
  if (fs::make_dirs(p.parent_path())) (void)fs::write_file_atomic(p, dist + "\n" + bytes);
}

Result<std::optional<std::string>> remembered_release(const ArchiveOptions& opt, const std::string& dist) {
  auto p = remembered_release_path(opt, dist);
  std::error_code ec;
  if (!std::filesystem::exists(p, ec)) return std::optional<std::string>();
  STRATA_TRY(std::string bytes, fs::read_file(p, kMaxRelease + 4096));
  auto nl = bytes.find('\n');
  if (nl == std::string::npos || bytes.compare(0, nl, dist) != 0) return std::optional<std::string>();
  return std::optional<std::string>(bytes.substr(nl + 1));
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

Result<LoadedSource> load_release(oci::http::Transport& transport, const AptSource& src, const ArchiveOptions& opt,
                                  std::vector<std::string>& warnings) {
  LoadedSource out;
  out.source = src;
  std::string dist = src.uri + "/dists/" + src.suite;
  std::string signed_text;
  if (src.trusted && !opt.allow_unsigned) {
    return fail(ErrorCode::kFailedPrecondition,
                src.where + ": the source is marked Trusted: yes (no signature check); refusing it. Remove the "
                            "option, or pass --allow-unsigned-archive to accept an unverified archive");
  }
  STRATA_TRY(TrustedKeys keys, trusted_keys_for(src, opt.apt_dir));
  std::optional<std::string> inrelease;
  if (opt.offline) {
    STRATA_TRY(inrelease, remembered_release(opt, dist));
    if (!inrelease) {
      return fail(ErrorCode::kNotFound, "--offline: " + dist + "/InRelease (" + src.where +
                                            ") was never fetched on this machine; resolve once with the network, or "
                                            "build from a lock whose .debs are cached (strata fetch --lock)");
    }
  } else {
    STRATA_TRY(inrelease, http_get(transport, dist + "/InRelease", kMaxRelease));
    if (inrelease) remember_release(opt, dist, *inrelease);
  }
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

}  // namespace

Result<LoadedArchive> load_archive(oci::http::Transport& transport, const std::vector<AptSource>& sources,
                                   const ArchiveOptions& opt) {
  if (opt.clock == nullptr) return fail(ErrorCode::kInvalidArgument, "load_archive: no clock");
  LoadedArchive out;
  std::vector<std::string> archs{opt.arch};
  archs.insert(archs.end(), opt.foreign_archs.begin(), opt.foreign_archs.end());
  for (const auto& src : sources) {
    STRATA_TRY(LoadedSource ls, load_release(transport, src, opt, out.warnings));
    std::size_t source_index = out.sources.size();
    out.sources.push_back(std::move(ls));
    const LoadedSource& loaded = out.sources.back();
    const Release& rel = loaded.release;
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
        req.dist_url = src.uri + "/dists/" + src.suite;
        req.path = comp + "/binary-" + a + "/Packages";
        req.by_hash = src.by_hash;
        req.cache_dir = opt.home / "indexes";
        LoadedIndex idx;
        idx.source = source_index;
        idx.component = comp;
        idx.arch = a;
        std::string origin = req.dist_url + "/" + req.path;
        // The parsed form of an index the signed Release names by hash: no
        // fetch, no hashing of the text, no parsing (package_cache.hpp).
        if (auto listed = rel.sha256.find(req.path); listed != rel.sha256.end()) {
          if (auto cached = load_cached_packages(req.cache_dir, listed->second.sha256)) {
            idx.packages = std::move(*cached);
            idx.sha256 = listed->second.sha256;
            out.indexes.push_back(std::move(idx));
            continue;
          }
        }
        if (opt.offline) {
          return fail(ErrorCode::kNotFound, "--offline: " + origin + " (" + src.where +
                                                ") is not in the index cache; resolve once with the network");
        }
        STRATA_TRY(VerifiedIndex v, fetch_packages_index(transport, rel, req, [&](const VerifiedIndex& vi) -> Result<void> {
          STRATA_TRY(idx.packages, parse_packages_index(vi.text, origin));
          return {};
        }));
        idx.sha256 = v.sha256;
        if (auto stored = store_cached_packages(req.cache_dir, v.sha256, idx.packages); !stored)
          out.warnings.push_back("warning: " + origin + ": cannot cache the parsed index: " + stored.error().message());
        out.indexes.push_back(std::move(idx));
      }
    }
  }
  return out;
}

}  // namespace strata::layer
