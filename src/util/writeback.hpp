#pragma once
// Writeback as a file is written. A file written in full and then fsynced
// waits at the end for every byte to reach the disk; asking the kernel to
// start writing each stride back as soon as it is written (asynchronously)
// leaves the final fsync only the last stride to wait for. Advisory: the
// fsync that commits the file still decides, and an error here is ignored.

#include <cstdint>

namespace strata::fs {

inline constexpr std::uint64_t kWritebackStride = std::uint64_t{8} << 20;

// After a write took the file open on `fd` from `before` to `after` bytes:
// starts the writeback of its dirty pages when a stride boundary was crossed.
void start_writeback(int fd, std::uint64_t before, std::uint64_t after);

}  // namespace strata::fs
