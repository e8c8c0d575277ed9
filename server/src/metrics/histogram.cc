#include "metrics/histogram.h"

#include <bit>

namespace tern::metrics {

size_t histogram_bucket(uint64_t ns) {
  if (ns <= histogram_bound_ns(0)) return 0;
  const size_t k = static_cast<size_t>(std::bit_width((ns - 1) >> 8));
  return k < kHistogramBuckets ? k : kHistogramBuckets;
}

size_t thread_shard() {
  static std::atomic<size_t> next{0};
  thread_local const size_t shard = next.fetch_add(1, std::memory_order_relaxed) % kShards;
  return shard;
}

HistogramSnapshot LatencyHistogram::snapshot() const {
  HistogramSnapshot snapshot;
  for (const Shard& shard : shards_) {
    for (size_t k = 0; k <= kHistogramBuckets; ++k) {
      const uint64_t n = shard.counts[k].load(std::memory_order_relaxed);
      snapshot.counts[k] += n;
      snapshot.count += n;
    }
    snapshot.sum_ns += shard.sum_ns.load(std::memory_order_relaxed);
    for (size_t o = 0; o < kOutcomes; ++o) {
      snapshot.outcomes[o] += shard.outcomes[o].load(std::memory_order_relaxed);
    }
  }
  return snapshot;
}

}  // namespace tern::metrics
