#include "util/writeback.hpp"

#include <fcntl.h>

namespace strata::fs {

void start_writeback(int fd, std::uint64_t before, std::uint64_t after) {
  if (before / kWritebackStride == after / kWritebackStride) return;
  // Offset 0, length 0: every dirty page of the file not yet under writeback.
  (void)::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

}  // namespace strata::fs
