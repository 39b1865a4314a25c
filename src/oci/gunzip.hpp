// Gzip decompression with its trailers checked. Every gzip input strata
// reads (layers, imported root filesystems, .deb members, archive indexes,
// image archives) is inflated here and not by libarchive, whose gzip filter
// never compares a member's trailer with what it decompressed: one flipped
// byte inside a stored deflate block passed as changed content. Here each
// member's CRC-32 and ISIZE (RFC 1952 §2.3.1) must match, concatenated
// members are read as one stream (as gzip does), and the bytes after the last
// member may only be zeros (tape padding); anything else is refused.
//
// Not thread-safe; one decoder per stream. Memory: zlib's window plus one
// input buffer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace strata::oci {

// Fills `buf` and returns the byte count; 0 means end of input.
using PullFn = std::function<Result<std::size_t>(std::span<std::byte> buf)>;

// True when `head` starts with the gzip magic (1f 8b).
bool has_gzip_magic(std::span<const std::byte> head);

// A pull source that yields `source`'s bytes decompressed when they start with
// the gzip magic, and as they are otherwise. `what` names the input in errors
// ("layer sha256:…: gzip member 2: CRC-32 mismatch …"). The returned function
// owns the decoder; `consumed`, when given, counts the bytes taken from
// `source` (the compressed size, for ratio checks).
PullFn gunzip_if_gzip(PullFn source, std::string what, std::shared_ptr<std::uint64_t> consumed = nullptr);

// Decompresses a whole gzip buffer, refusing more than `max_size` bytes of
// output.
Result<std::string> gunzip(std::string_view data, std::string_view what, std::uint64_t max_size);

}  // namespace strata::oci
