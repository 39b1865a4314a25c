#include "contract/image/facts_cache.hpp"

#include <nlohmann/json.hpp>

#include "oci/digest.hpp"
#include "oci/manifest.hpp"
#include "util/fs.hpp"

namespace strata::contract::image {
namespace {

using nlohmann::ordered_json;

// Entries are a few kilobytes (one line per command on PATH); refuse more.
constexpr std::uint64_t kMaxEntryBytes = std::uint64_t{16} << 20;

template <class Map>
ordered_json object_of(const Map& m) {
  ordered_json o = ordered_json::object();
  for (const auto& [k, v] : m) o[k] = v;
  return o;
}

}  // namespace

std::string facts_to_json(const ImageFacts& f) {
  ordered_json j;
  j["format"] = f.format;
  j["manifest_digest"] = f.manifest_digest;
  j["platform"] = f.platform.str();
  j["env"] = f.env;
  j["path"] = f.path;
  j["labels"] = object_of(f.labels);
  j["annotations"] = object_of(f.annotations);
  j["packages"] = object_of(f.packages);
  ordered_json provides = ordered_json::object();
  for (const auto& [name, providers] : f.provides) provides[name] = providers;
  j["provides"] = std::move(provides);
  j["commands"] = object_of(f.commands);
  ordered_json rt = ordered_json::array();
  for (const auto& r : f.runtimes)
    rt.push_back({{"tool", r.tool}, {"version", r.version}, {"kind", r.kind}, {"source", r.source}});
  j["runtimes"] = std::move(rt);
  j["notes"] = f.notes;
  return oci::dump_json(j, 2) + "\n";
}

Result<ImageFacts> facts_from_json(std::string_view text, std::string_view where) {
  try {
    auto j = nlohmann::json::parse(text);
    ImageFacts f;
    f.format = j.at("format").get<int>();
    f.manifest_digest = j.at("manifest_digest").get<std::string>();
    STRATA_TRY(f.platform, oci::parse_platform(j.at("platform").get<std::string>()));
    f.env = j.at("env").get<std::vector<std::string>>();
    f.path = j.at("path").get<std::vector<std::string>>();
    f.labels = j.at("labels").get<std::map<std::string, std::string>>();
    f.annotations = j.at("annotations").get<std::map<std::string, std::string>>();
    f.packages = j.at("packages").get<std::map<std::string, std::string>>();
    f.provides = j.at("provides").get<std::map<std::string, std::vector<std::string>>>();
    f.commands = j.at("commands").get<std::map<std::string, std::string>>();
    for (const auto& r : j.at("runtimes")) {
      f.runtimes.push_back({r.at("tool").get<std::string>(), r.at("version").get<std::string>(),
                            r.at("kind").get<std::string>(), r.at("source").get<std::string>()});
    }
    f.notes = j.at("notes").get<std::vector<std::string>>();
    return f;
  } catch (const nlohmann::json::exception& e) {
    return fail(ErrorCode::kInvalidArgument, std::string(where) + ": not an image facts document: " + e.what());
  }
}

std::filesystem::path FactsCache::entry_path(const std::string& manifest_digest) const {
  std::string name = manifest_digest;
  std::replace(name.begin(), name.end(), ':', '-');
  return dir_ / (name + ".json");
}

std::optional<ImageFacts> FactsCache::find(const std::string& manifest_digest) const {
  auto d = oci::Digest::parse(manifest_digest);
  if (!d || !d->verifiable()) return std::nullopt;
  auto path = entry_path(manifest_digest);
  auto text = fs::read_file(path, kMaxEntryBytes);
  if (!text) return std::nullopt;
  auto facts = facts_from_json(*text, path.string());
  if (!facts || facts->format != kFactsFormat || facts->manifest_digest != manifest_digest) return std::nullopt;
  return std::move(*facts);
}

void FactsCache::remember(const ImageFacts& facts) const {
  auto d = oci::Digest::parse(facts.manifest_digest);
  if (!d || !d->verifiable()) return;
  if (!fs::make_dirs(dir_)) return;
  // Best effort: a cache that cannot be written only costs reading the
  // image's layers again next time; the facts in hand are right either way.
  (void)fs::write_file_atomic(entry_path(facts.manifest_digest), facts_to_json(facts));
}

}  // namespace strata::contract::image
