#pragma once
// Slows down password guessing on one connection. The first kFreeFailures failed attempts
// cost nothing (people mistype); each failure after that shuts attempts out for a penalty
// window starting at the failure, 500 ms for the first and doubling with each further
// failure up to 10 s. An attempt inside the window is to be refused without checking the
// password, and such a refusal is not a failure: it neither extends nor doubles the window.
// A success forgives everything.
//
// Times are steady milliseconds from tern::Clock (steady_ms()), passed in so that the
// caller reads the clock once per request. Not thread-safe: one per connection.

#include <cstdint>

namespace tern::auth {

class FailureThrottle {
 public:
  static constexpr int kFreeFailures = 3;
  static constexpr int64_t kFirstPenaltyMs = 500;
  static constexpr int64_t kMaxPenaltyMs = 10'000;

  // Whether an attempt may be checked now: false inside a penalty window.
  bool may_attempt(int64_t now_ms) const { return now_ms >= refused_until_ms_; }

  // Records a failed attempt made at now_ms.
  void failed(int64_t now_ms);

  // Records a successful attempt: failures so far are forgotten.
  void succeeded();

  // Failures since the last success.
  int failures() const { return failures_; }
  // When the current penalty window ends (in the past when there is none).
  int64_t refused_until_ms() const { return refused_until_ms_; }

 private:
  int failures_ = 0;
  int64_t refused_until_ms_ = INT64_MIN;
};

}  // namespace tern::auth
