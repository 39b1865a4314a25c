#include "layer/scratch/scratch_base.hpp"

#include <array>
#include <utility>

#include "oci/tar_writer.hpp"
#include "oci/media_types.hpp"

namespace strata::layer {

namespace {

// link → target, relative as Debian's usrmerge makes them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kMergedUsr{{
    {"bin", "usr/bin"}, {"lib", "usr/lib"}, {"lib64", "usr/lib64"}, {"sbin", "usr/sbin"}}};

}  // namespace

std::vector<EffectFile> skeleton_effects(std::int64_t epoch) {
  std::vector<EffectFile> out;
  EffectFile usr;
  usr.entry.path = "usr";
  usr.entry.type = oci::TarEntryType::kDirectory;
  usr.entry.mode = 0755;
  usr.entry.mtime = epoch;
  out.push_back(usr);
  for (auto [link, target] : kMergedUsr) {
    EffectFile d = usr;
    d.entry.path = std::string(target);
    out.push_back(d);
    out.push_back(effect_symlink(std::string(link), std::string(target), epoch));
  }
  return out;
}

Result<BaseImage> scratch_base(const oci::Platform& platform) {
  BaseImage base;
  // The filesystem: the skeleton applied as one in-memory layer.
  oci::StringSink tar;
  {
    oci::TarWriter w(tar);
    auto entries = skeleton_effects(0);
    std::sort(entries.begin(), entries.end(),
              [](const EffectFile& a, const EffectFile& b) { return oci::tar_path_less(a.entry.path, b.entry.path); });
    for (const auto& e : entries) STRATA_TRY_VOID(w.add(e.entry));
    STRATA_TRY_VOID(w.finish(oci::TarWriter::Trailer::kWrite));
  }
  std::string bytes = std::move(tar.str());
  std::size_t offset = 0;
  auto pull = [&bytes, &offset](std::span<std::byte> buf) -> Result<std::size_t> {
    std::size_t n = std::min(buf.size(), bytes.size() - offset);
    std::memcpy(buf.data(), bytes.data() + offset, n);
    offset += n;
    return n;
  };
  STRATA_TRY(auto reader, oci::TarReader::open(pull, {}, "the scratch skeleton"));
  STRATA_TRY_VOID(base.fs.apply_layer(*reader));

  nlohmann::ordered_json config = nlohmann::ordered_json::object();
  config["architecture"] = platform.architecture;
  if (!platform.variant.empty()) config["variant"] = platform.variant;
  config["os"] = platform.os;
  config["config"] = {{"Env", {"PATH=" + std::string(kScratchPath)}}, {"Cmd", {"/bin/bash"}}};
  config["rootfs"] = {{"type", "layers"}, {"diff_ids", nlohmann::ordered_json::array()}};
  config["history"] = nlohmann::ordered_json::array();
  STRATA_TRY(base.config, oci::parse_config(config.dump(), "the scratch config"));
  base.manifest.media_type = std::string(oci::media::kOciManifest);
  return base;
}

}  // namespace strata::layer
