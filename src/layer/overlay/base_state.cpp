#include "layer/overlay/base_state.hpp"

#include "layer/debian/package_encoding.hpp"
#include "util/binary.hpp"
#include "util/fs.hpp"

namespace strata::layer {

namespace {

constexpr std::string_view kStateMagic = "STRATADS";
// A minbase holds ~100 packages (~60 KB encoded); a desktop base a few
// thousand. Anything larger is not an entry this code wrote.
constexpr std::uint64_t kMaxStateBytes = std::uint64_t{256} << 20;

template <class Io, class Digest, class State>
void state_fields(Io& io, Digest& digest, State& s) {
  io.str(digest, s.dpkg_arch);
  io.list(s.installed, kMinEncodedPackage, [&](auto& p) { package_fields(io, p); });
}

}  // namespace

Result<BaseDpkgState> base_dpkg_state(const BaseImage& base) {
  BaseDpkgState out;
  STRATA_TRY(out.installed, base_packages(base));
  out.dpkg_arch = base.fs.read_small_file("var/lib/dpkg/arch").value_or("");
  return out;
}

std::filesystem::path BaseStateCache::entry_path(const oci::Digest& manifest) const {
  std::string algo = manifest.str().substr(0, manifest.str().find(':'));
  return dir_ / ("state-" + std::to_string(kBaseStateFormat) + "-" + algo + "-" + std::string(manifest.hex()));
}

std::optional<BaseDpkgState> BaseStateCache::find(const oci::Digest& manifest) const {
  if (!manifest.verifiable()) return std::nullopt;
  auto bytes = fs::read_file(entry_path(manifest), kMaxStateBytes);
  if (!bytes) return std::nullopt;
  fs::mark_used(entry_path(manifest));  // `cache gc` evicts the least recently used
  std::string digest;
  BaseDpkgState state;
  if (!bin::decode_file(*bytes, kStateMagic, kBaseStateFormat,
                        [&](bin::Reader& r) { state_fields(r, digest, state); }) ||
      digest != manifest.str())
    return std::nullopt;
  return state;
}

void BaseStateCache::remember(const oci::Digest& manifest, const BaseDpkgState& state) const {
  if (!manifest.verifiable()) return;
  const std::string& digest = manifest.str();
  std::string bytes =
      bin::encode_file(kStateMagic, kBaseStateFormat, [&](bin::Writer& w) { state_fields(w, digest, state); });
  // Best effort: an entry not written only costs reading the base's dpkg state again.
  if (fs::make_dirs(dir_)) (void)fs::write_file_atomic(entry_path(manifest), bytes);
}

Result<BaseState> load_base_state(oci::Store& store, std::string_view ref, const oci::Platform& platform,
                                  const BaseStateCache* cache, const BaseFsCache* fs_cache) {
  STRATA_TRY(BaseManifest m, load_base_manifest(store, ref, platform));
  BaseState out;
  out.descriptor = m.descriptor;
  if (cache) {
    if (auto hit = cache->find(m.descriptor.digest)) {
      out.state = std::move(*hit);
      out.cached = true;
      return out;
    }
  }
  STRATA_TRY(BaseImage base, load_base_image(store, std::move(m), {}, fs_cache));
  STRATA_TRY(out.state, base_dpkg_state(base));
  if (cache) cache->remember(out.descriptor.digest, out.state);
  return out;
}

}  // namespace strata::layer
