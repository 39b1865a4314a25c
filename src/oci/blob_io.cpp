#include "oci/blob_io.hpp"

namespace strata::oci {

Result<void> StringSink::write(std::span<const std::byte> data) {
  if (data_.size() + data.size() > limit_) {
    return fail(ErrorCode::kInvalidArgument,
                "content exceeds the limit of " + std::to_string(limit_) + " bytes");
  }
  data_.append(reinterpret_cast<const char*>(data.data()), data.size());
  return {};
}

}  // namespace strata::oci
