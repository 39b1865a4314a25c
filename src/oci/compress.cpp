#include "oci/compress.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

#include <libdeflate.h>
#include <zstd.h>

namespace strata::oci {

std::string_view layer_media_type(Compression c) {
  switch (c) {
    case Compression::kNone: return oci::media::kOciLayer;
    case Compression::kGzip: return oci::media::kOciLayerGzip;
    case Compression::kZstd: return oci::media::kOciLayerZstd;
    case Compression::kUnknown: break;
  }
  return {};
}

Result<Compression> parse_compression(std::string_view name) {
  if (name == "gzip") return Compression::kGzip;
  if (name == "zstd") return Compression::kZstd;
  if (name == "none") return Compression::kNone;
  return fail(ErrorCode::kInvalidArgument,
              "unknown compression '" + std::string(name) + "'; use gzip, zstd or none");
}

std::string_view compression_name(Compression c) {
  switch (c) {
    case Compression::kGzip: return "gzip";
    case Compression::kZstd: return "zstd";
    case Compression::kNone: return "none";
    case Compression::kUnknown: break;
  }
  return "unknown";
}

struct CompressingSink::Codec {
  libdeflate_compressor* deflate = nullptr;
  ZSTD_CCtx* zstd = nullptr;
  ~Codec() {
    if (deflate) libdeflate_free_compressor(deflate);
    if (zstd) ZSTD_freeCCtx(zstd);
  }

  static Result<std::unique_ptr<Codec>> make(Compression c) {
    auto codec = std::make_unique<Codec>();
    if (c == Compression::kGzip) {
      codec->deflate = libdeflate_alloc_compressor(kGzipLevel);
      if (!codec->deflate) return fail(ErrorCode::kIoError, "libdeflate: cannot allocate a compressor");
    } else if (c == Compression::kZstd) {
      ZSTD_CCtx* z = ZSTD_createCCtx();
      if (!z) return fail(ErrorCode::kIoError, "zstd: cannot allocate a compression context");
      codec->zstd = z;
      // Pinned frame parameters: level, a content checksum, the content size in
      // every frame header (each frame is compressed from a whole chunk), one
      // thread (parallelism comes from compressing whole chunks at once).
      bool ok = !ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, kZstdLevel)) &&
                !ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1)) &&
                !ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 1)) &&
                !ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_nbWorkers, 0));
      if (!ok) return fail(ErrorCode::kIoError, "zstd: cannot set the compression parameters");
    }
    return codec;
  }

  // One whole gzip member / zstd frame for `in`, into `out`.
  Result<void> member(Compression c, std::string_view in, std::string& out) {
    if (c == Compression::kGzip) {
      // Fixed member header: ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=0 OS=255.
      static constexpr unsigned char kHeader[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
      std::size_t bound = libdeflate_deflate_compress_bound(deflate, in.size());
      out.resize(sizeof kHeader + bound + 8);
      std::memcpy(out.data(), kHeader, sizeof kHeader);
      std::size_t n = libdeflate_deflate_compress(deflate, in.data(), in.size(), out.data() + sizeof kHeader, bound);
      if (n == 0) return fail(ErrorCode::kIoError, "libdeflate: compression failed");
      out.resize(sizeof kHeader + n);
      put_le32(out, libdeflate_crc32(0, in.data(), in.size()));
      put_le32(out, static_cast<std::uint32_t>(in.size()));  // ISIZE: size mod 2^32
      return {};
    }
    std::size_t bound = ZSTD_compressBound(in.size());
    out.resize(bound);
    std::size_t n = ZSTD_compress2(zstd, out.data(), bound, in.data(), in.size());
    if (ZSTD_isError(n)) {
      return fail(ErrorCode::kIoError, std::string("zstd: compression failed: ") + ZSTD_getErrorName(n));
    }
    out.resize(n);
    return {};
  }

  static void put_le32(std::string& s, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
};

CompressingSink::CompressingSink(Compression c, oci::ByteSink& out, unsigned jobs, DiffId diff_id)
    : compression_(c), out_(out), jobs_(std::max(1u, jobs)) {
  if (diff_id == DiffId::kCompute) uncompressed_hash_.emplace();
}

CompressingSink::~CompressingSink() = default;

Result<std::unique_ptr<CompressingSink>> CompressingSink::create(Compression c, oci::ByteSink& out, unsigned jobs,
                                                                DiffId diff_id) {
  if (c == Compression::kUnknown) {
    return fail(ErrorCode::kInvalidArgument, "cannot compress a layer with an unknown compression");
  }
  std::unique_ptr<CompressingSink> s(new CompressingSink(c, out, jobs, diff_id));
  if (c != Compression::kNone) {
    STRATA_TRY(auto codec, Codec::make(c));
    s->codecs_.push_back(std::move(codec));  // the rest on first use
    s->chunk_.reserve(kCompressionChunk);
  }
  return s;
}

Result<void> CompressingSink::emit(std::span<const std::byte> data) {
  compressed_hash_.update(data);
  out_bytes_ += data.size();
  return out_.write(data);
}

Result<void> CompressingSink::write(std::span<const std::byte> data) {
  if (finished_) return fail(ErrorCode::kInvalidArgument, "compressing sink: write after finish");
  if (uncompressed_hash_) uncompressed_hash_->update(data);
  in_bytes_ += data.size();
  if (compression_ == Compression::kNone) return emit(data);
  while (!data.empty()) {
    std::size_t take = std::min(data.size(), kCompressionChunk - chunk_.size());
    chunk_.append(reinterpret_cast<const char*>(data.data()), take);
    data = data.subspan(take);
    if (chunk_.size() == kCompressionChunk) STRATA_TRY_VOID(flush_chunk(false, false));
  }
  return {};
}

Result<void> CompressingSink::flush_chunk(bool even_if_empty, bool drain) {
  if (compression_ == Compression::kNone) return {};
  if (!chunk_.empty() || even_if_empty) {
    batch_.push_back(std::move(chunk_));
    if (spare_.empty()) {
      chunk_ = std::string();
      chunk_.reserve(kCompressionChunk);
    } else {
      chunk_ = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (batch_.size() >= jobs_ || (drain && !batch_.empty())) return compress_batch();
  return {};
}

Result<void> CompressingSink::compress_batch() {
  std::size_t n = batch_.size();
  while (codecs_.size() < n) {
    STRATA_TRY(auto codec, Codec::make(compression_));
    codecs_.push_back(std::move(codec));
  }
  packed_.resize(n);
  std::vector<Result<void>> results(n);
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 1; i < n; ++i) {
      threads.emplace_back([this, i, &results] { results[i] = codecs_[i]->member(compression_, batch_[i], packed_[i]); });
    }
    results[0] = codecs_[0]->member(compression_, batch_[0], packed_[0]);
  }  // joined
  for (std::size_t i = 0; i < n; ++i) {
    if (!results[i]) return results[i];
    ++members_;
    STRATA_TRY_VOID(emit(oci::as_bytes(packed_[i])));
  }
  for (auto& b : batch_) {  // keep the buffers for the next batch
    b.clear();
    spare_.push_back(std::move(b));
  }
  batch_.clear();
  return {};
}

Result<void> CompressingSink::end_member() {
  if (finished_) return fail(ErrorCode::kInvalidArgument, "compressing sink: end_member after finish");
  return flush_chunk(false, true);
}

Result<LayerDigests> CompressingSink::finish() {
  if (finished_) return fail(ErrorCode::kInvalidArgument, "compressing sink: finish called twice");
  // An empty stream still gets one (empty) member so the blob is valid gzip/zstd.
  STRATA_TRY_VOID(flush_chunk(members_ == 0 && batch_.empty(), true));
  finished_ = true;
  LayerDigests d;
  if (uncompressed_hash_) d.diff_id = oci::Digest::from_hex(HashAlgorithm::kSha256, uncompressed_hash_->finish_hex());
  d.digest = oci::Digest::from_hex(HashAlgorithm::kSha256, compressed_hash_.finish_hex());
  d.size = static_cast<std::int64_t>(out_bytes_);
  d.uncompressed_size = in_bytes_;
  return d;
}

}  // namespace strata::oci
