// Image manifests, indexes and configs. Each parsed value keeps the exact
// bytes it came from: a manifest is never re-serialised after its digest is
// known, so copies are bit-exact.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "oci/descriptor.hpp"

namespace strata::oci {

// Manifests larger than this are refused (the registry's own limit, 4 MiB).
inline constexpr std::size_t kMaxManifestBytes = 4 * 1024 * 1024;
// Image configs can legitimately be larger (long histories); cap generously.
inline constexpr std::size_t kMaxConfigBytes = 64 * 1024 * 1024;
// Indexes within indexes followed below a root (the root index is level 1).
// OCI images need one or two (an index of platforms, an attestation index);
// a deeper chain, which a registry or a mirror entry can serve, is refused
// rather than walked (thousands of levels used to overflow the stack).
inline constexpr int kMaxIndexDepth = 8;

// Raw manifest or index bytes with the descriptor that names them.
struct RawManifest {
  Descriptor descriptor;  // media type, digest and size of `bytes`
  std::string bytes;
};

struct ImageManifest {
  std::string media_type;  // from the document, else the descriptor's
  std::optional<std::string> artifact_type;
  Descriptor config;
  std::vector<Descriptor> layers;
  std::optional<Descriptor> subject;
  std::map<std::string, std::string> annotations;
};

struct ImageIndex {
  std::string media_type;
  std::optional<std::string> artifact_type;
  std::vector<Descriptor> manifests;
  std::optional<Descriptor> subject;
  std::map<std::string, std::string> annotations;
};

using ParsedManifest = std::variant<ImageManifest, ImageIndex>;

// Parses manifest or index bytes. `media_type` is what the transport said
// (Content-Type, parent descriptor); the document's own mediaType wins when
// present and they must agree. Refuses schema1 and documents over `limit`
// (4 MiB; a layout's index.json has its own, kMaxLayoutIndexBytes).
Result<ParsedManifest> parse_manifest(std::string_view bytes, std::string_view media_type,
                                      std::string_view where, std::size_t limit = kMaxManifestBytes);

// The media type of manifest bytes when nothing else says it: the document's
// mediaType, else inferred from its shape (manifests vs layers).
Result<std::string> sniff_manifest_media_type(std::string_view bytes, std::string_view where);

// Serialises with image-spec field order, compact, no trailing newline.
std::string serialize(const ImageManifest& m);
// JSON text in which strings that are not UTF-8 (an annotation quoting a
// maintainer script in Latin-1, say) get U+FFFD instead of an exception;
// valid text is unchanged, byte for byte. Every JSON strata writes goes
// through here (documents, configs, --json output).
std::string dump_json(const nlohmann::ordered_json& j, int indent = -1);
std::string dump_json(const nlohmann::json& j, int indent = -1);
std::string serialize(const ImageIndex& idx);

// Returns a verified RawManifest for bytes whose digest is computed here.
RawManifest make_raw_manifest(std::string media_type, std::string bytes);

// Children of an index matching `platform` (first match first).
std::vector<Descriptor> select_platform(const ImageIndex& idx, const Platform& platform);

// An image config: the parsed JSON (kept for edits by pure functions that
// return new bytes) and the exact bytes.
struct ImageConfig {
  nlohmann::ordered_json json;
  std::string bytes;

  Platform platform() const;
  std::vector<std::string> diff_ids() const;
  std::vector<std::string> env() const;
  std::map<std::string, std::string> labels() const;
};
Result<ImageConfig> parse_config(std::string bytes, std::string_view where);

}  // namespace strata::oci
