#include "layer/compress.hpp"

#include <cstring>

#include <libdeflate.h>
#include <zstd.h>

namespace strata::layer {

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

struct CompressingSink::Codec {
  libdeflate_compressor* deflate = nullptr;
  ZSTD_CCtx* zstd = nullptr;
  ~Codec() {
    if (deflate) libdeflate_free_compressor(deflate);
    if (zstd) ZSTD_freeCCtx(zstd);
  }
};

CompressingSink::CompressingSink(Compression c, oci::ByteSink& out)
    : compression_(c), out_(out), codec_(std::make_unique<Codec>()) {}

CompressingSink::~CompressingSink() = default;

Result<std::unique_ptr<CompressingSink>> CompressingSink::create(Compression c, oci::ByteSink& out) {
  if (c == Compression::kUnknown) {
    return fail(ErrorCode::kInvalidArgument, "cannot compress a layer with an unknown compression");
  }
  std::unique_ptr<CompressingSink> s(new CompressingSink(c, out));
  if (c == Compression::kGzip) {
    s->codec_->deflate = libdeflate_alloc_compressor(kGzipLevel);
    if (!s->codec_->deflate) return fail(ErrorCode::kIoError, "libdeflate: cannot allocate a compressor");
  } else if (c == Compression::kZstd) {
    ZSTD_CCtx* z = ZSTD_createCCtx();
    if (!z) return fail(ErrorCode::kIoError, "zstd: cannot allocate a compression context");
    s->codec_->zstd = z;
    // Pinned frame parameters: level, a content checksum, the content size in
    // every frame header (each frame is compressed from a whole chunk), one
    // thread.
    bool ok = !ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, kZstdLevel)) &&
              !ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1)) &&
              !ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 1)) &&
              !ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_nbWorkers, 0));
    if (!ok) return fail(ErrorCode::kIoError, "zstd: cannot set the compression parameters");
  }
  if (c != Compression::kNone) s->chunk_.reserve(kCompressionChunk);
  return s;
}

Result<void> CompressingSink::emit(std::span<const std::byte> data) {
  compressed_hash_.update(data);
  out_bytes_ += data.size();
  return out_.write(data);
}

Result<void> CompressingSink::write(std::span<const std::byte> data) {
  if (finished_) return fail(ErrorCode::kInvalidArgument, "compressing sink: write after finish");
  uncompressed_hash_.update(data);
  in_bytes_ += data.size();
  if (compression_ == Compression::kNone) return emit(data);
  while (!data.empty()) {
    std::size_t take = std::min(data.size(), kCompressionChunk - chunk_.size());
    chunk_.append(reinterpret_cast<const char*>(data.data()), take);
    data = data.subspan(take);
    if (chunk_.size() == kCompressionChunk) STRATA_TRY_VOID(flush_chunk(false));
  }
  return {};
}

namespace {

void put_le32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

Result<void> CompressingSink::flush_chunk(bool even_if_empty) {
  if (compression_ == Compression::kNone) return {};
  if (chunk_.empty() && !even_if_empty) return {};
  if (compression_ == Compression::kGzip) {
    // Fixed member header: ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=0 OS=255.
    static constexpr unsigned char kHeader[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
    std::size_t bound = libdeflate_deflate_compress_bound(codec_->deflate, chunk_.size());
    scratch_.assign(sizeof kHeader, '\0');
    std::memcpy(scratch_.data(), kHeader, sizeof kHeader);
    scratch_.resize(sizeof kHeader + bound);
    std::size_t n = libdeflate_deflate_compress(codec_->deflate, chunk_.data(), chunk_.size(),
                                                scratch_.data() + sizeof kHeader, bound);
    if (n == 0) return fail(ErrorCode::kIoError, "libdeflate: compression failed");
    scratch_.resize(sizeof kHeader + n);
    put_le32(scratch_, libdeflate_crc32(0, chunk_.data(), chunk_.size()));
    put_le32(scratch_, static_cast<std::uint32_t>(chunk_.size()));  // ISIZE: size mod 2^32
  } else {
    std::size_t bound = ZSTD_compressBound(chunk_.size());
    scratch_.resize(bound);
    std::size_t n = ZSTD_compress2(codec_->zstd, scratch_.data(), bound, chunk_.data(), chunk_.size());
    if (ZSTD_isError(n)) {
      return fail(ErrorCode::kIoError, std::string("zstd: compression failed: ") + ZSTD_getErrorName(n));
    }
    scratch_.resize(n);
  }
  chunk_.clear();
  ++members_;
  return emit(oci::as_bytes(scratch_));
}

Result<void> CompressingSink::end_member() {
  if (finished_) return fail(ErrorCode::kInvalidArgument, "compressing sink: end_member after finish");
  return flush_chunk(false);
}

Result<LayerDigests> CompressingSink::finish() {
  if (finished_) return fail(ErrorCode::kInvalidArgument, "compressing sink: finish called twice");
  // An empty stream still gets one (empty) member so the blob is valid gzip/zstd.
  STRATA_TRY_VOID(flush_chunk(members_ == 0));
  finished_ = true;
  LayerDigests d;
  d.diff_id = oci::Digest::from_hex(HashAlgorithm::kSha256, uncompressed_hash_.finish_hex());
  d.digest = oci::Digest::from_hex(HashAlgorithm::kSha256, compressed_hash_.finish_hex());
  d.size = static_cast<std::int64_t>(out_bytes_);
  d.uncompressed_size = in_bytes_;
  return d;
}

}  // namespace strata::layer
