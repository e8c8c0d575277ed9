#pragma once
// A latency histogram cheap enough for every request: recording takes no lock and allocates
// nothing, only relaxed atomic adds on the calling thread's shard (threads are spread over
// kShards shards, so two workers rarely share a cache line). Buckets are powers of two from
// 256 ns up to about 8.6 s, and an overflow bucket past that. Each sample may also carry an
// outcome, a small index (a command's result class), counted per outcome.
//
// A snapshot sums the shards with relaxed loads: each count is exact, but a snapshot taken
// while samples arrive may see a sample's bucket and not yet its sum; a later one sees both.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace tern::metrics {

inline constexpr size_t kHistogramBuckets = 26;  // plus one overflow bucket (+Inf)
inline constexpr size_t kOutcomes = 16;
inline constexpr size_t kShards = 8;

// The bucket a sample of `ns` nanoseconds falls in: 0 for ns <= 256, k for
// 256 * 2^(k-1) < ns <= 256 * 2^k, kHistogramBuckets past the last bound.
size_t histogram_bucket(uint64_t ns);
// The upper bound of bucket k < kHistogramBuckets, in nanoseconds.
constexpr uint64_t histogram_bound_ns(size_t k) { return uint64_t{256} << k; }

// This thread's shard, in [0, kShards): threads take shards in turn as they first ask.
size_t thread_shard();

struct HistogramSnapshot {
  std::array<uint64_t, kHistogramBuckets + 1> counts{};  // per bucket, not cumulative
  uint64_t sum_ns = 0;
  uint64_t count = 0;
  std::array<uint64_t, kOutcomes> outcomes{};
};

class LatencyHistogram {
 public:
  // `outcome` must be below kOutcomes.
  void record(uint64_t ns, size_t outcome = 0) {
    Shard& shard = shards_[thread_shard()];
    shard.counts[histogram_bucket(ns)].fetch_add(1, std::memory_order_relaxed);
    shard.sum_ns.fetch_add(ns, std::memory_order_relaxed);
    shard.outcomes[outcome].fetch_add(1, std::memory_order_relaxed);
  }

  HistogramSnapshot snapshot() const;

 private:
  struct alignas(64) Shard {
    std::array<std::atomic<uint64_t>, kHistogramBuckets + 1> counts{};
    std::atomic<uint64_t> sum_ns{0};
    std::array<std::atomic<uint64_t>, kOutcomes> outcomes{};
  };
  std::array<Shard, kShards> shards_{};
};

}  // namespace tern::metrics
