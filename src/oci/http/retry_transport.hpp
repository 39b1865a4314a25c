// RetryTransport: a Transport decorator that retries transient failures.
//
// Retried: HTTP 408, 429, 500, 502, 503, 504 and exchanges that broke off
// without an HTTP answer (kUnavailable: a reset), and, up to
// max_timeout_attempts tries, ones that timed out (kDeadlineExceeded). A peer
// that cannot be reached (kUnreachable: no such host, connection refused, no
// TLS) fails at once. Not retried: a request whose
// body cannot be rewound, and a response whose body had already started to
// flow into the request's sink (the caller owns resuming that, e.g. with a
// Range request). Waits are exponential with jitter, or what Retry-After
// (seconds or HTTP-date) asks for. A Retry-After also holds back every other
// request to the same host until it has passed (per-host backoff state).
// Sleeping goes through the injected Clock so tests never sleep.
//
// The timeout budget is per host, not per request: once max_timeout_attempts
// exchanges with a host in a row timed out without a byte of answer, every
// later request to it fails at once (kDeadlineExceeded, naming the host and
// saying it did not answer) until one of it answers. Without that, each step
// of a push (HEAD, POST, PATCH, PUT, the DELETE of a failed session, the
// copy's whole-blob retries) paid the whole timeout budget again, and a
// registry that accepts connections and never answers held a command for
// minutes; with it, it costs max_timeout_attempts timeouts and the backoff
// between them, whatever the command does.
//
// Thread-safety: send() may be called concurrently.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "oci/http/transport.hpp"
#include "util/clock.hpp"

namespace strata::oci::http {

struct RetryPolicy {
  int max_attempts = 5;                               // total tries, including the first
  // Tries of an exchange whose peer stopped answering (kDeadlineExceeded):
  // each costs a whole timeout, and a stalled peer usually stays stalled.
  // Also the host's budget: this many timed-out exchanges in a row, whatever
  // requests they were, and the host is not asked again (see above).
  int max_timeout_attempts = 2;
  std::chrono::milliseconds initial_backoff{1000};    // doubled after each failure
  std::chrono::milliseconds max_backoff{60000};
  // A Retry-After longer than this is not waited for: the error is returned.
  std::chrono::seconds max_retry_after{300};
  double jitter = 0.1;  // +0..10 % on computed backoffs
};

// Seconds to wait for a Retry-After value (delta-seconds or an HTTP-date),
// relative to `now` (epoch seconds). nullopt when unparseable.
std::optional<std::int64_t> parse_retry_after(std::string_view value, std::int64_t now);

bool is_retryable_status(int status);

class RetryTransport final : public Transport {
 public:
  RetryTransport(std::shared_ptr<Transport> inner, RetryPolicy policy, Clock& clock);
  Result<Response> send(Request& request) override;

 private:
  void wait_for_host(const std::string& authority);
  void hold_host(const std::string& authority, std::int64_t until);
  // The error for a host whose timeout budget is spent, or nullopt.
  std::optional<Error> silent_host(const std::string& authority);
  // Counts a timed-out exchange without an answer; true when the host's
  // budget is now spent.
  bool count_silence(const std::string& authority, const Error& error);
  void answered(const std::string& authority);

  std::shared_ptr<Transport> inner_;
  RetryPolicy policy_;
  Clock& clock_;
  std::mutex mutex_;
  std::map<std::string, std::int64_t> host_not_before_;  // epoch seconds
  struct Silence {
    int timeouts = 0;           // exchanges in a row that timed out without an answer
    std::optional<Error> last;  // the last of them
  };
  std::map<std::string, Silence> silence_;  // by authority
};

}  // namespace strata::oci::http
