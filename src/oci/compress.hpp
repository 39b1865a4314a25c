// Layer compression as a ByteSink decorator: uncompressed tar bytes go in,
// compressed bytes go to the next sink, and both digests (diff_id and the
// blob digest) come out of the same single pass.
//
// Determinism (docs/format/layer.md): the compressor, its level and its
// framing are pinned. The stream is cut into independent gzip members / zstd
// frames, one per kCompressionChunk uncompressed bytes counted from the last
// cut, plus a cut at every end_member() call and at finish(). Members and
// frames concatenate into valid streams, so a layer assembled from cached,
// separately compressed fragments is byte-identical to the same bytes sent
// through one CompressingSink with end_member() at each fragment boundary.
//
// Parallelism: with `jobs` > 1, up to `jobs` full chunks are compressed at
// once on their own threads (each with its own compressor); members are
// emitted in stream order. Chunk boundaries do not depend on `jobs`, so the
// bytes do not either.
//
// Not thread-safe; one sink per stream. Memory: `jobs` chunks plus their bounds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oci/blob_io.hpp"
#include "oci/digest.hpp"
#include "oci/media_types.hpp"

namespace strata::oci {

using Compression = oci::media::Compression;

// Uncompressed bytes per gzip member / zstd frame.
inline constexpr std::size_t kCompressionChunk = std::size_t{4} << 20;
// libdeflate level for gzip (pinned; changing it changes every digest, so
// bump kFragmentRecipe and kOverlayRecipe with it). 5, not 6: 18 % less
// compression time for 0.7 % more bytes (docs/format/layer.md).
inline constexpr int kGzipLevel = 5;
// libzstd level for zstd (pinned).
inline constexpr int kZstdLevel = 3;

struct LayerDigests {
  std::optional<oci::Digest> diff_id;                // sha256 of the uncompressed tar (unless skipped)
  oci::Digest digest = oci::Digest::sha256_of("");   // sha256 of the bytes written out
  std::int64_t size = 0;                             // bytes written out
  std::uint64_t uncompressed_size = 0;
};

// The OCI layer media type for a compression (kUnknown is not a layer).
std::string_view layer_media_type(Compression c);
// "gzip", "zstd", "none" → Compression; anything else kInvalidArgument.
Result<Compression> parse_compression(std::string_view name);
// The name parse_compression reads ("unknown" for kUnknown).
std::string_view compression_name(Compression c);

// Whether a CompressingSink hashes what goes in (for LayerDigests::diff_id):
// a piece of a larger layer has no diff_id of its own, and skipping the hash
// saves a SHA-256 pass over the largest stream.
enum class DiffId { kCompute, kSkip };

class CompressingSink : public oci::ByteSink {
 public:
  // kInvalidArgument for Compression::kUnknown. `jobs`: chunks compressed at
  // once (1 = on the caller's thread only).
  static Result<std::unique_ptr<CompressingSink>> create(Compression c, oci::ByteSink& out, unsigned jobs = 1,
                                                         DiffId diff_id = DiffId::kCompute);
  ~CompressingSink() override;

  Result<void> write(std::span<const std::byte> data) override;
  // Ends the current gzip member / zstd frame (no-op when it is empty).
  Result<void> end_member();
  // Ends the stream and returns the digests. REQUIRES: called once, last.
  Result<LayerDigests> finish();

  Compression compression() const { return compression_; }

 protected:
  CompressingSink(Compression c, oci::ByteSink& out, unsigned jobs, DiffId diff_id);

 private:
  struct Codec;
  Result<void> emit(std::span<const std::byte> data);
  // Queues the current chunk (when non-empty, or `even_if_empty`) and
  // compresses the queue once it holds `jobs` chunks or `drain` is set.
  Result<void> flush_chunk(bool even_if_empty, bool drain);
  Result<void> compress_batch();

  Compression compression_;
  oci::ByteSink& out_;
  unsigned jobs_;
  std::vector<std::unique_ptr<Codec>> codecs_;  // one per job
  std::string chunk_;
  std::vector<std::string> batch_;    // full chunks waiting to be compressed
  std::vector<std::string> packed_;   // their compressed members
  std::vector<std::string> spare_;    // emptied chunk buffers, reused
  std::optional<Hasher> uncompressed_hash_;
  Hasher compressed_hash_;
  std::uint64_t in_bytes_ = 0;
  std::uint64_t out_bytes_ = 0;
  std::uint64_t members_ = 0;
  bool finished_ = false;
};

}  // namespace strata::oci
