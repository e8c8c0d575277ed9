#include "metrics/histogram.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace tern::metrics {
namespace {

TEST(HistogramTest, BucketsArePowersOfTwoFrom256Nanoseconds) {
  EXPECT_EQ(histogram_bucket(0), 0u);
  EXPECT_EQ(histogram_bucket(256), 0u);
  EXPECT_EQ(histogram_bucket(257), 1u);
  EXPECT_EQ(histogram_bucket(512), 1u);
  EXPECT_EQ(histogram_bucket(513), 2u);
  EXPECT_EQ(histogram_bucket(1'000'000), 12u);  // 1 ms: 256 * 2^11 < 1e6 <= 256 * 2^12
  EXPECT_EQ(histogram_bucket(histogram_bound_ns(kHistogramBuckets - 1)), kHistogramBuckets - 1);
  EXPECT_EQ(histogram_bucket(histogram_bound_ns(kHistogramBuckets - 1) + 1), kHistogramBuckets);
  EXPECT_EQ(histogram_bucket(UINT64_MAX), kHistogramBuckets);
}

TEST(HistogramTest, SnapshotCountsEverySampleOnceWithItsSumAndOutcome) {
  LatencyHistogram histogram;
  histogram.record(100, 0);
  histogram.record(300, 2);
  histogram.record(10'000'000'000, 2);  // past the last bound
  const HistogramSnapshot snapshot = histogram.snapshot();
  EXPECT_EQ(snapshot.count, 3u);
  EXPECT_EQ(snapshot.sum_ns, 10'000'000'400u);
  EXPECT_EQ(snapshot.counts[0], 1u);
  EXPECT_EQ(snapshot.counts[1], 1u);
  EXPECT_EQ(snapshot.counts[kHistogramBuckets], 1u);
  EXPECT_EQ(snapshot.outcomes[0], 1u);
  EXPECT_EQ(snapshot.outcomes[2], 2u);
}

TEST(HistogramTest, ThreadsRecordingAtOnceLoseNothing) {
  LatencyHistogram histogram;
  constexpr int kThreads = 4;
  constexpr int kEach = 20'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&histogram] {
      for (int i = 0; i < kEach; ++i) histogram.record(1000, 1);
    });
  }
  for (std::thread& thread : threads) thread.join();
  const HistogramSnapshot snapshot = histogram.snapshot();
  EXPECT_EQ(snapshot.count, uint64_t{kThreads} * kEach);
  EXPECT_EQ(snapshot.sum_ns, uint64_t{kThreads} * kEach * 1000);
  EXPECT_EQ(snapshot.outcomes[1], uint64_t{kThreads} * kEach);
}

}  // namespace
}  // namespace tern::metrics
