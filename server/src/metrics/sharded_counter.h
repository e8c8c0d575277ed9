#pragma once
// A counter many threads move at once, cheaply: each thread adds to its own shard (relaxed,
// on a cache line of its own, see thread_shard()), and a read sums the shards. A delta may be
// negative (a gauge such as open connections): the sum wraps back, as unsigned sums do.

#include <array>
#include <atomic>
#include <cstdint>

#include "metrics/histogram.h"

namespace tern::metrics {

class ShardedCounter {
 public:
  void add(int64_t delta) {
    slots_[thread_shard()].value.fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed);
  }
  uint64_t value() const {
    uint64_t sum = 0;
    for (const Slot& slot : slots_) sum += slot.value.load(std::memory_order_relaxed);
    return sum;
  }

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> value{0};
  };
  std::array<Slot, kShards> slots_{};
};

}  // namespace tern::metrics
