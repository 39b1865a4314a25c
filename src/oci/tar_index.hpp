// TarIndex: where each member of an uncompressed tar file lies (data offset
// and size), found by one pass over the headers that seeks over the data, so
// an image archive's blobs can be streamed from the file instead of being
// unpacked. Understands ustar (name + prefix), pax extended headers (path,
// size) and GNU long names; a global pax header is skipped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "oci/blob_io.hpp"

namespace strata::oci {

struct TarMember {
  std::uint64_t offset = 0;  // of the first data byte
  std::uint64_t size = 0;
  char type = '0';           // '0' file, '5' directory, '1'/'2' links, …
};

struct TarIndex {
  std::map<std::string, TarMember> members;  // by name, "./" stripped, later members win
};

// Whether the file starts like a compressed stream (gzip, zstd, xz, bzip2):
// such an archive cannot be indexed, only read through.
Result<bool> tar_is_compressed(const std::filesystem::path& file);

// Indexes `file`; `what` names it in errors. Refuses a bad header checksum,
// a member running past the end, names longer than 64 KiB, and more than
// `max_members` members.
Result<TarIndex> index_tar(const std::filesystem::path& file, const std::string& what,
                           std::size_t max_members = 1 << 20);

// Streams `m`'s bytes from `from` on into `sink`, from the open `fd`.
Result<void> read_tar_member(int fd, const TarMember& m, std::uint64_t from, ByteSink& sink, const std::string& what);

}  // namespace strata::oci
