#include "util/error.hpp"

namespace strata {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kAlreadyExists: return "already exists";
    case ErrorCode::kFailedPrecondition: return "verification failed";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kDeadlineExceeded: return "timed out";
    case ErrorCode::kUnreachable: return "unreachable";
    case ErrorCode::kUnauthorized: return "unauthorized";
    case ErrorCode::kCorruption: return "corruption";
    case ErrorCode::kIoError: return "I/O error";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kCancelled: return "cancelled";
  }
  return "error";
}

}  // namespace strata
