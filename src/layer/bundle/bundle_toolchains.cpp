#include "layer/bundle/bundle_toolchains.hpp"

#include <set>
#include <variant>

#include "layer/toolchain/toolchain_layer.hpp"
#include "oci/blob_io.hpp"
#include "oci/layer_spool.hpp"
#include "oci/manifest.hpp"
#include "oci/yaml_load.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;
namespace tc = toolchain;

namespace {

constexpr std::size_t kMaxRecordBytes = 1 << 20;

std::string describe(const tc::Release& r) { return r.tool + " " + r.version + " " + r.arch + " from " + r.source.describe(); }

// sha256 and size of a cached archive (a bundle names every blob by sha256).
Result<oci::Descriptor> file_descriptor(const stdfs::path& file) {
  Hasher h(HashAlgorithm::kSha256);
  std::int64_t size = 0;
  STRATA_TRY_VOID(fs::read_chunks(file, [&](std::string_view piece) -> Result<void> {
    h.update(piece);
    size += static_cast<std::int64_t>(piece.size());
    return {};
  }));
  oci::Descriptor d;
  d.media_type = std::string(kToolchainArchiveMediaType);
  d.digest = oci::Digest::from_hex(HashAlgorithm::kSha256, h.finish_hex());
  d.size = size;
  return d;
}

Result<void> put_file(oci::Store& bundle, const oci::Descriptor& d, const stdfs::path& file, const std::string& what) {
  return oci::write_blob_file(bundle, d, file, what);
}

// An archive verified from the bundle, in a temporary file beside the cache.
struct StagedArchive {
  oci::TempFile file;
  stdfs::path dest;
  std::uint64_t size = 0;
};

Result<StagedArchive> stage_archive(oci::Store& bundle, const oci::Descriptor& layer, const tc::Archive& a,
                                    const stdfs::path& home, const std::string& what) {
  STRATA_TRY_VOID(fs::make_dirs(home / "toolchains" / "tmp"));
  STRATA_TRY(oci::TempFile tmp, oci::TempFile::create(home / "toolchains" / "tmp", "bundle-archive"));
  STRATA_TRY(auto published, oci::Digest::parse(a.algorithm + ":" + a.hex));
  oci::FileSink file(tmp.fd(), tmp.path());
  // The record's digest (what its project publishes) and the bundle's own.
  oci::VerifyingSink as_published(file, published, a.size ? static_cast<std::int64_t>(a.size) : layer.size);
  oci::VerifyingSink as_bundled(as_published, layer.digest, layer.size);
  STRATA_TRY_VOID(with_context(bundle.fetch_blob(layer, as_bundled), what));
  STRATA_TRY_VOID(as_bundled.verify(what));
  if (auto ok = as_published.verify(what); !ok) {
    return fail(ErrorCode::kCorruption, what + ": not the archive its release record names (" + a.algorithm + " " +
                                            a.hex + ", " + a.verified_by + "): " + ok.error().message());
  }
  STRATA_TRY_VOID(file.sync());
  return StagedArchive{std::move(tmp), tc::archive_cache_path(home, a), as_bundled.bytes()};
}

}  // namespace

Result<std::vector<tc::ToolchainEntry>> load_bundle_toolchains(const stdfs::path& file) {
  STRATA_TRY(auto text, fs::read_file(file, kMaxRecordBytes));
  const std::string where = file.string();
  STRATA_TRY(YAML::Node root, oci::load_yaml(text, where));
  if (!root.IsMap()) return fail(ErrorCode::kInvalidArgument, where + ": expected a mapping with `toolchains`");
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>("");
    if (key != "toolchains")
      return fail(ErrorCode::kInvalidArgument, where + ": unknown key `" + key + "` (expected toolchains)");
  }
  STRATA_TRY(auto entries, tc::parse_toolchain_entries(root["toolchains"], where, file.parent_path()));
  if (entries.empty()) return fail(ErrorCode::kInvalidArgument, where + ": `toolchains` names no toolchain");
  return entries;
}

Result<EnsuredToolchains> ensure_bundle_toolchains(oci::http::Transport& http,
                                                   const std::vector<BundleToolchainInput>& inputs,
                                                   const stdfs::path& home, bool offline) {
  EnsuredToolchains out;
  std::set<std::string> seen;
  for (const auto& in : inputs) {
    tc::ToolchainRequest request{in.resolve, home, offline};
    request.need_archives = true;  // the bundle packs them, whether the layer was a hit or not
    auto layer = tc::ensure_toolchain(http, request);
    if (!layer) return fail(layer.error().context(in.where));
    out.downloaded += layer->downloaded;
    out.leases.push_back(layer->lease);
    const tc::Release& rel = layer->release;
    if (!seen.insert(rel.tool + "\n" + rel.version + "\n" + rel.arch + "\n" + rel.source.describe()).second) continue;
    out.releases.push_back(rel);
  }
  return out;
}

Result<BundleToolchain> put_toolchain(oci::Store& bundle, const stdfs::path& home, const tc::Release& rel) {
  const std::string record = tc::release_record(rel);
  auto record_desc = oci::descriptor_for(kToolchainRecordMediaType, record);
  STRATA_TRY_VOID(oci::write_blob(bundle, record_desc, record));
  std::vector<oci::Descriptor> archives;
  for (const auto& a : rel.archives) {
    const stdfs::path file = tc::archive_cache_path(home, a);
    const std::string what = file.string() + " (" + a.name + " of " + describe(rel) + ")";
    STRATA_TRY(auto d, with_context(file_descriptor(file), what));
    STRATA_TRY_VOID(put_file(bundle, d, file, what));
    archives.push_back(std::move(d));
  }
  auto m = toolchain_artifact(rel, record_desc, archives);
  STRATA_TRY_VOID(oci::write_blob(bundle, m.descriptor, m.bytes));
  return BundleToolchain{rel.tool, rel.version, rel.arch, rel.source.describe(), m.descriptor};
}

Result<ToolchainSeedReport> seed_toolchains(oci::Store& bundle, const std::vector<BundleToolchain>& toolchains,
                                            const stdfs::path& home) {
  ToolchainSeedReport report;
  std::vector<StagedArchive> staged;
  // Everything is read and verified first: nothing is published from a
  // bundle with one toolchain that does not verify.
  for (const auto& t : toolchains) {
    const std::string what = "bundle toolchain " + t.tool + " " + t.version + " " + t.arch + " from " + t.source;
    auto fetched = oci::fetch_manifest(bundle, t.manifest.digest.str());
    if (!fetched) return fail(fetched.error().context(what));
    const auto* m = std::get_if<oci::ImageManifest>(&fetched->parsed);
    if (m == nullptr || m->artifact_type != kToolchainArtifactType || m->layers.size() < 2 ||
        m->layers[0].media_type != kToolchainRecordMediaType) {
      return fail(ErrorCode::kCorruption, what + ": not an artifact of type " + std::string(kToolchainArtifactType) +
                                              " with a release record and its archives");
    }
    STRATA_TRY(auto record, with_context(oci::read_blob(bundle, m->layers[0], kMaxRecordBytes), what));
    STRATA_TRY(tc::Release rel, tc::parse_release_record(record, what + ": its release record"));
    if (rel.tool != t.tool || rel.version != t.version || rel.arch != t.arch || rel.source.describe() != t.source) {
      return fail(ErrorCode::kCorruption, what + ": its release record is " + describe(rel) +
                                              ", not what the bundle index names");
    }
    if (m->layers.size() != rel.archives.size() + 1) {
      return fail(ErrorCode::kCorruption, what + ": " + std::to_string(m->layers.size() - 1) +
                                              " archives, its release record names " +
                                              std::to_string(rel.archives.size()));
    }
    for (std::size_t i = 0; i < rel.archives.size(); ++i) {
      const tc::Archive& a = rel.archives[i];
      const oci::Descriptor& layer = m->layers[i + 1];
      if (!layer.digest.verifiable()) return fail(ErrorCode::kCorruption, what + ": an archive's digest cannot be verified");
      std::error_code ec;
      if (stdfs::is_regular_file(tc::archive_cache_path(home, a), ec)) {
        ++report.archives_present;
        continue;
      }
      STRATA_TRY(auto s, stage_archive(bundle, layer, a, home, what + ": " + a.name));
      staged.push_back(std::move(s));
    }
    report.releases.push_back(std::move(rel));
  }
  // Then published: each archive by link (a cached one is kept: the same
  // bytes, by its name), then the record that names them.
  for (auto& s : staged) {
    STRATA_TRY_VOID(fs::make_dirs(s.dest.parent_path()));
    STRATA_TRY(bool mine, fs::publish_file(s.file.path(), s.dest));
    if (mine) {
      ++report.archives_seeded;
      report.bytes += s.size;
    } else {
      ++report.archives_present;
    }
  }
  for (const auto& rel : report.releases) STRATA_TRY_VOID(tc::remember_release(home, rel));
  return report;
}

}  // namespace strata::layer
