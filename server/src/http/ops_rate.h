#pragma once
// Operations per second of each bucket, for the bucket view's basicStats.opsPerSec: the
// growth of the bucket's operation counters between two readings at least a second apart.
// Thread-safe (the HTTP threads share one).

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "common/mutex.h"

namespace tern::http {

class OpsRate {
 public:
  using Clock = std::chrono::steady_clock;

  // Records that `bucket` had done `total_ops` by `now`, and returns its rate over the last
  // interval of at least a second (0 until there is one).
  double sample(const std::string& bucket, uint64_t total_ops, Clock::time_point now);

 private:
  struct Reading {
    Clock::time_point at;
    uint64_t total_ops = 0;
    double rate = 0;
  };
  Mutex mutex_;
  std::map<std::string, Reading> last_ TERN_GUARDED_BY(mutex_);
};

}  // namespace tern::http
