#include "layer/import/import.hpp"

#include "layer/import/config_change.hpp"
#include "layer/sbom/image_attestations.hpp"
#include "oci/layer_spool.hpp"
#include "oci/append_layer.hpp"
#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "oci/store.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

using oci::TarEntryType;

// The rules of a root filesystem tarball, as an entry map: the root's own
// entry dropped, whiteouts refused, host SELinux labels dropped.
Result<bool> rootfs_entry(oci::TarEntry& e, const std::filesystem::path& tarball) {
  if (e.path.empty()) return false;  // the root directory's own entry
  for (std::string_view p = e.path; !p.empty(); p = oci::parent_path(p)) {
    if (oci::base_name(p).starts_with(oci::kWhiteoutPrefix)) {
      return fail(ErrorCode::kInvalidArgument,
                  tarball.string() + ": entry " + str::quote(e.path) +
                      ": whiteout names (.wh.*) have no meaning in a root filesystem tarball");
    }
  }
  e.xattrs.erase("security.selinux");  // host labelling, not image content
  return true;
}

}  // namespace

Result<std::int64_t> parse_source_date_epoch(std::string_view text) {
  auto v = str::parse_u64(text);
  if (!v || *v > static_cast<std::uint64_t>(INT64_MAX)) {
    return fail(ErrorCode::kInvalidArgument,
                "SOURCE_DATE_EPOCH=" + str::quote(text) +
                    " is not a decimal number of seconds since 1970 (e.g. `git log -1 --format=%ct`)");
  }
  return static_cast<std::int64_t>(*v);
}

namespace {

// The import's SBOMs (the image's own dpkg database) and provenance (the
// tarball by name and digest, the changes, the platform and epoch). A store
// that keeps none, or a failure, leaves the image as it is and says so.
void attach_import_documents(const std::filesystem::path& tarball, const ImportOptions& o, oci::Store& dest,
                             ImportResult& result) {
  if (!dest.keeps_referrers()) {
    result.notes.push_back(dest.describe() + " keeps no referrers: the SBOM and provenance are not attached");
    return;
  }
  auto sha = fs::file_sha256(tarball);
  if (!sha) {
    result.notes.push_back("the SBOM and provenance were not attached: " + sha.error().message());
    return;
  }
  sbom::ImageAttestations a;
  a.image = result.manifest;
  a.provenance.build_type = kImportBuildType;
  // The tarball by its name, not its path: two machines importing the same
  // bytes write the same documents.
  const std::string name = tarball.filename().string();
  nlohmann::ordered_json ext = {{"rootfs", {{"name", name}, {"digest", "sha256:" + *sha}}},
                                {"platform", o.platform.str()},
                                {"compression", oci::compression_name(o.compression)},
                                {"changes", o.changes}};
  if (o.epoch) ext["sourceDateEpoch"] = *o.epoch;
  a.provenance.external_parameters = ext;
  a.provenance.resolved.push_back({"", name, "sha256", *sha});
  if (auto attached = sbom::attach_image_attestations(dest, a); !attached)
    result.notes.push_back("the SBOM and provenance were not attached: " + attached.error().message());
}

}  // namespace

Result<ImportResult> import_rootfs(const std::filesystem::path& tarball, const ImportOptions& o,
                                   oci::Store& dest) {
  auto ctx = [&](Error e) { return e.context("importing " + tarball.string()); };
  // Config changes first: a typo should not cost a full read of the tarball.
  RuntimeConfig runtime;
  for (const auto& change : o.changes) {
    auto next = apply_change(std::move(runtime), change);
    if (!next) return fail(next.error());
    runtime = std::move(*next);
  }
  if (o.compression == oci::Compression::kUnknown) {
    return fail(ErrorCode::kInvalidArgument, "import: choose gzip, zstd or none as the layer compression");
  }

  STRATA_TRY(auto reader, oci::TarReader::open_file(tarball, o.limits));
  STRATA_TRY(oci::LayerSpool spool, oci::LayerSpool::create(o.temp_dir));
  auto map = [&](oci::TarEntry& e) { return rootfs_entry(e, tarball); };
  STRATA_TRY_VOID(spool.add_archive(*reader, map, tarball.string()));
  if (o.epoch) spool.clamp_mtimes(*o.epoch);
  STRATA_TRY_VOID(spool.complete_parents(o.epoch.value_or(0), tarball.string()));
  auto spooled = spool.write(o.compression, o.temp_dir);
  if (!spooled) return fail(ctx(spooled.error()));

  ImportResult result;
  result.digests = spooled->digests;
  result.entries = spooled->entries;
  result.layer = spooled->descriptor(o.compression);
  STRATA_TRY_VOID(spooled->store_in(dest, result.layer));
  const oci::LayerDigests& digests = result.digests;

  nlohmann::ordered_json config = nlohmann::ordered_json::object();
  if (o.epoch) config["created"] = nullptr;  // first, as image builders write it; append_layer sets it
  config["architecture"] = o.platform.architecture;
  config["os"] = o.platform.os;
  if (!o.platform.os_version.empty()) config["os.version"] = o.platform.os_version;
  if (!o.platform.variant.empty()) config["variant"] = o.platform.variant;
  auto runtime_json = to_json(runtime);
  if (!runtime_json.empty()) config["config"] = runtime_json;
  std::optional<std::string_view> tag;
  if (o.tag) tag = *o.tag;
  STRATA_TRY(oci::AppendedImage written,
             oci::append_layer(dest, {std::move(config), {}, result.layer, *digests.diff_id, o.epoch, "strata import", {}},
                               tag));
  result.config = written.config;
  result.manifest = written.manifest;
  attach_import_documents(tarball, o, dest, result);
  return result;
}

}  // namespace strata::layer
