#include "oci/http/retry_transport.hpp"

#include <algorithm>
#include <ctime>
#include <random>

#include "oci/http/url.hpp"
#include "util/strings.hpp"

namespace strata::oci::http {

std::optional<std::int64_t> parse_retry_after(std::string_view value, std::int64_t now) {
  value = str::trim(value);
  if (auto secs = str::parse_u64(value)) return static_cast<std::int64_t>(std::min<std::uint64_t>(*secs, INT32_MAX));
  // IMF-fixdate, the form RFC 9110 requires senders to use.
  std::tm tm{};
  std::string text(value);
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  std::int64_t at = timegm(&tm);
  return std::max<std::int64_t>(0, at - now);
}

bool is_retryable_status(int status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

namespace {

// Counts bytes offered to the real sink, so a retry never replays a body
// into a sink that has already received part of one.
class OfferCountingSink final : public ByteSink {
 public:
  explicit OfferCountingSink(ByteSink& next) : next_(next) {}
  Result<void> write(std::span<const std::byte> data) override {
    offered_ += data.size();
    return next_.write(data);
  }
  Result<void> restart() override { return next_.restart(); }
  std::uint64_t offered() const { return offered_; }

 private:
  ByteSink& next_;
  std::uint64_t offered_ = 0;
};

std::chrono::milliseconds jittered(std::chrono::milliseconds base, double jitter) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> dist(0.0, jitter);
  return std::chrono::milliseconds(static_cast<std::int64_t>(static_cast<double>(base.count()) * (1.0 + dist(rng))));
}

}  // namespace

RetryTransport::RetryTransport(std::shared_ptr<Transport> inner, RetryPolicy policy, Clock& clock)
    : inner_(std::move(inner)), policy_(policy), clock_(clock) {}

void RetryTransport::wait_for_host(const std::string& authority) {
  std::int64_t until = 0;
  {
    std::lock_guard lock(mutex_);
    auto it = host_not_before_.find(authority);
    if (it != host_not_before_.end()) until = it->second;
  }
  std::int64_t now = clock_.now();
  if (until > now) clock_.sleep(std::chrono::seconds(until - now));
}

void RetryTransport::hold_host(const std::string& authority, std::int64_t until) {
  std::lock_guard lock(mutex_);
  auto& slot = host_not_before_[authority];
  slot = std::max(slot, until);
}

std::optional<Error> RetryTransport::silent_host(const std::string& authority) {
  std::lock_guard lock(mutex_);
  auto it = silence_.find(authority);
  if (it == silence_.end() || it->second.timeouts < std::max(1, policy_.max_timeout_attempts)) return std::nullopt;
  return Error(ErrorCode::kDeadlineExceeded,
               authority + " did not answer: " + std::to_string(it->second.timeouts) +
                   " exchanges in a row timed out, so it is not asked again (the last: " +
                   (it->second.last ? it->second.last->message() : std::string("timeout")) + ")");
}

bool RetryTransport::count_silence(const std::string& authority, const Error& error) {
  std::lock_guard lock(mutex_);
  auto& s = silence_[authority];
  ++s.timeouts;
  s.last = error;
  return s.timeouts >= std::max(1, policy_.max_timeout_attempts);
}

void RetryTransport::answered(const std::string& authority) {
  std::lock_guard lock(mutex_);
  if (auto it = silence_.find(authority); it != silence_.end()) silence_.erase(it);
}

Result<Response> RetryTransport::send(Request& request) {
  auto parsed = parse_url(request.url);
  const std::string authority = parsed ? parsed->authority : request.url;
  const bool rewindable = request.body == nullptr || static_cast<bool>(request.body->rewind);
  ByteSink* original_sink = request.sink;
  std::chrono::milliseconds backoff = policy_.initial_backoff;
  int timeouts = 0;

  for (int attempt = 1;; ++attempt) {
    if (auto silent = silent_host(authority)) return fail(*silent);
    wait_for_host(authority);
    if (attempt > 1 && request.body != nullptr) STRATA_TRY_VOID(request.body->rewind());
    std::optional<OfferCountingSink> counter;
    if (original_sink != nullptr) {
      counter.emplace(*original_sink);
      request.sink = &*counter;
    }
    Result<Response> result = inner_->send(request);
    request.sink = original_sink;
    const bool body_started = counter && counter->offered() > 0;
    const int max_attempts = request.max_attempts > 0 ? std::min(request.max_attempts, policy_.max_attempts)
                                                      : policy_.max_attempts;
    // A body that started to flow, or any HTTP answer, is the host
    // answering (slowly, perhaps); a timeout before either is silence.
    bool host_silent = false;
    if (result || body_started) {
      answered(authority);
    } else if (result.error().is(ErrorCode::kDeadlineExceeded)) {
      host_silent = count_silence(authority, result.error());
    }
    if (!result && result.error().is(ErrorCode::kDeadlineExceeded)) ++timeouts;
    const bool last = attempt >= max_attempts || !rewindable || body_started || host_silent ||
                      timeouts >= std::max(1, policy_.max_timeout_attempts);

    if (!result) {
      if (last || !is_transient(result.error())) {
        if (attempt > 1 && is_transient(result.error()))
          return fail(result.error().context("after " + std::to_string(attempt) + " attempts"));
        return result;
      }
    } else if (!is_retryable_status(result->status)) {
      return result;
    }

    std::chrono::milliseconds wait = jittered(backoff, policy_.jitter);
    if (result) {
      if (auto ra = result->headers.get("Retry-After")) {
        if (auto secs = parse_retry_after(*ra, clock_.now())) {
          if (*secs > policy_.max_retry_after.count()) return result;  // too long to wait here
          wait = std::chrono::seconds(*secs);
          hold_host(authority, clock_.now() + *secs);
        }
      }
      if (last) return result;
    }
    clock_.sleep(wait);
    backoff = std::min(backoff * 2, policy_.max_backoff);
  }
}

}  // namespace strata::oci::http
