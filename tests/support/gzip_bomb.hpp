// A gzip-compressed tar that expands about 1000:1: an empty OCI layout with
// one blob of `zeros` zero bytes, deflated at level 9 as it is written
// (256 MiB become about 256 KiB). For tests of the decompression-bomb guard
// of whatever unpacks archives; nothing of it is held in memory but the
// compressed bytes.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "oci/blob_io.hpp"
#include "oci/tar_writer.hpp"

namespace strata::testing {

class GzipSink final : public oci::ByteSink {
 public:
  GzipSink() {
    if (deflateInit2(&z_, 9, Z_DEFLATED, 16 + 15, 9, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("deflateInit2");
  }
  ~GzipSink() override { deflateEnd(&z_); }
  Result<void> write(std::span<const std::byte> data) override {
    run(data, Z_NO_FLUSH);
    return {};
  }
  std::string finish() {
    run({}, Z_FINISH);
    return std::move(out_);
  }

 private:
  void run(std::span<const std::byte> data, int flush) {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));
    z_.avail_in = static_cast<uInt>(data.size());
    unsigned char buf[1 << 16];
    int rc;
    do {
      z_.next_out = buf;
      z_.avail_out = sizeof buf;
      rc = deflate(&z_, flush);
      out_.append(reinterpret_cast<char*>(buf), sizeof buf - z_.avail_out);
    } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  }
  z_stream z_{};
  std::string out_;
};

inline void write_gzip_bomb(const std::filesystem::path& file, std::uint64_t zeros) {
  GzipSink gz;
  oci::TarWriter tar(gz);
  oci::TarEntry layout;
  layout.path = "blobs";
  layout.type = oci::TarEntryType::kDirectory;
  layout.mode = 0755;
  // Into memory (GzipSink::write never fails): no write below can fail.
  (void)tar.add(layout);
  layout.path = "blobs/sha256";
  (void)tar.add(layout);
  oci::TarEntry blob;
  blob.path = "blobs/sha256/" + std::string(64, '0');
  blob.mode = 0644;
  blob.size = zeros;
  (void)tar.add(blob);
  const std::vector<std::byte> chunk(1 << 20);
  for (std::uint64_t left = zeros; left > 0;) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, chunk.size()));
    (void)tar.write_data(std::span(chunk.data(), n));
    left -= n;
  }
  const std::string index_text = R"({"schemaVersion":2,"manifests":[]})";
  oci::TarEntry index;
  index.path = "index.json";
  index.mode = 0644;
  index.size = index_text.size();
  (void)tar.add_file(index, index_text);
  const std::string layout_text = R"({"imageLayoutVersion":"1.0.0"})";
  oci::TarEntry marker;
  marker.path = "oci-layout";
  marker.mode = 0644;
  marker.size = layout_text.size();
  (void)tar.add_file(marker, layout_text);
  (void)tar.finish();
  std::ofstream(file, std::ios::binary) << gz.finish();
}

}  // namespace strata::testing
