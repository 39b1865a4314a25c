// strata::Error and Result<T>: the error vocabulary shared by every module.
//
// Library code never throws for expected failures; it returns Result<T>
// (std::expected<T, Error>) and adds context as the error travels up
// (`err.context("pulling docker://…")`). Exceptions are reserved for
// programming errors and the CLI's final exit.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>

namespace strata {

enum class ErrorCode {
  kInvalidArgument,     // bad input: a malformed reference, digest, document
  kNotFound,            // a blob, manifest, tag, file or package that is absent
  kAlreadyExists,       // usually treated as success by callers
  kFailedPrecondition,  // verification failed: digest/size mismatch, bad signature
  kUnavailable,         // transient: network, 5xx, 429; worth retrying
  kDeadlineExceeded,    // the peer stopped answering within a timeout; retried sparingly
  kUnreachable,         // no exchange could start: the name does not resolve, the port
                        // refuses, the peer does not speak TLS; another try would fail alike
  kUnauthorized,        // credentials missing or refused
  kCorruption,          // a store's own state is damaged
  kIoError,             // local filesystem failure
  kUnsupported,         // a valid input strata does not handle (schema1, …)
  kCancelled,
};

std::string_view error_code_name(ErrorCode code);

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "<what>: <original message>".
  [[nodiscard]] Error context(std::string_view what) const {
    return Error(code_, std::string(what) + ": " + message_);
  }

  bool is(ErrorCode c) const { return code_ == c; }

 private:
  ErrorCode code_;
  std::string message_;
};

// std::expected<T, Error>, and [[nodiscard]]: a call whose Result is dropped
// does not compile (-Werror). A caller that means to drop one writes
// `(void)f();` with a comment saying why the failure does not matter.
// Everything std::expected offers is inherited (its constructors, value(),
// error(), comparisons); a std::expected<T, Error> converts to a Result<T>.
template <class T>
class [[nodiscard]] Result : public std::expected<T, Error> {
  using Base = std::expected<T, Error>;

 public:
  using Base::Base;
  using Base::operator=;
  Result() = default;
  Result(const Base& b) : Base(b) {}
  Result(Base&& b) : Base(std::move(b)) {}
};

// A network failure worth another try: a reset, a 5xx or 429
// (kUnavailable), or a timeout (kDeadlineExceeded). A peer that cannot be
// reached at all (kUnreachable) is not: a name that does not resolve or a
// port that refuses does so again a second later. Local failures (a full
// disk, a digest mismatch) are not either.
inline bool is_transient(const Error& e) {
  return e.is(ErrorCode::kUnavailable) || e.is(ErrorCode::kDeadlineExceeded);
}

// The network failed (transient or unreachable), as opposed to the peer
// answering or a local failure: e.g. the cue to try plain HTTP on an
// insecure registry.
inline bool is_network_failure(const Error& e) { return is_transient(e) || e.is(ErrorCode::kUnreachable); }

inline std::unexpected<Error> fail(ErrorCode code, std::string message) {
  return std::unexpected<Error>(Error(code, std::move(message)));
}
inline std::unexpected<Error> fail(Error e) { return std::unexpected<Error>(std::move(e)); }

// Adds context to the error of a Result, leaving a value untouched.
template <class T>
Result<T> with_context(Result<T> r, std::string_view what) {
  if (!r) return std::unexpected<Error>(r.error().context(what));
  return r;
}

}  // namespace strata

// Propagates an error: `STRATA_TRY(auto x, f());` or `STRATA_TRY_VOID(g());`.
#define STRATA_CONCAT_INNER(a, b) a##b
#define STRATA_CONCAT(a, b) STRATA_CONCAT_INNER(a, b)
#define STRATA_TRY_IMPL(tmp, decl, expr)            \
  auto tmp = (expr);                                \
  if (!tmp) return std::unexpected(std::move(tmp).error()); \
  decl = std::move(*tmp)
#define STRATA_TRY(decl, expr) STRATA_TRY_IMPL(STRATA_CONCAT(strata_try_, __LINE__), decl, expr)
#define STRATA_TRY_VOID(expr)                                               \
  do {                                                                      \
    auto strata_try_v = (expr);                                             \
    if (!strata_try_v) return std::unexpected(std::move(strata_try_v).error()); \
  } while (0)
