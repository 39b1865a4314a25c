#include "layer/archive.hpp"

#include <algorithm>

#include "layer/packages_index.hpp"
#include "layer/signature.hpp"
#include "util/sha.hpp"

namespace strata::layer {

namespace {

constexpr std::size_t kMaxRelease = 64 << 20;

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
  STRATA_TRY(auto inrelease, http_get(transport, dist + "/InRelease", kMaxRelease));
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
      STRATA_TRY(VerifiedText v, verify_clearsigned(*inrelease, keys, dist + "/InRelease"));
      signed_text = std::move(v.content);
      out.fingerprint = v.fingerprint;
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
        STRATA_TRY(VerifiedIndex v, fetch_packages_index(transport, rel, req, [&](const VerifiedIndex& vi) -> Result<void> {
          STRATA_TRY(idx.packages, parse_packages_index(vi.text, origin));
          return {};
        }));
        idx.sha256 = v.sha256;
        out.indexes.push_back(std::move(idx));
      }
    }
  }
  return out;
}

}  // namespace strata::layer
