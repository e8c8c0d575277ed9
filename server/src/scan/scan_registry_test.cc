// The registry of range scans, on a ManualClock: ids, the per-bucket limit, one continue at a
// time, cancel of idle and busy scans, and the cancellation of scans left idle.
#include "scan/scan_registry.h"

#include <gtest/gtest.h>

namespace tern::scan {
namespace {

class ScanRegistryTest : public ::testing::Test {
 protected:
  ManualClock clock_;
  ScanRegistry registry_{clock_, {.max_per_bucket = 2, .idle_ms = 1000}};
  const int bucket_a_ = 0;
  const int bucket_b_ = 0;
};

TEST_F(ScanRegistryTest, EachBucketHoldsAtMostItsLimit) {
  const auto a1 = registry_.add(&bucket_a_, 3, true, {"k"});
  const auto a2 = registry_.add(&bucket_a_, 3, true, {"k"});
  ASSERT_TRUE(a1 && a2);
  EXPECT_NE(*a1, *a2);
  EXPECT_FALSE(registry_.has_room(&bucket_a_));
  EXPECT_FALSE(registry_.add(&bucket_a_, 3, true, {"k"}));
  EXPECT_TRUE(registry_.add(&bucket_b_, 3, true, {"k"}));
  EXPECT_TRUE(registry_.cancel(*a1, &bucket_a_, 3));
  EXPECT_TRUE(registry_.has_room(&bucket_a_));
  registry_.drop_bucket(&bucket_b_);
  EXPECT_EQ(registry_.size(), 1u);
}

TEST_F(ScanRegistryTest, AScanAnswersOnlyOnItsBucketAndVBucketOneContinueAtATime) {
  const ScanId id = *registry_.add(&bucket_a_, 3, true, {"a", "b"});
  ScanRegistry::Claim why;
  EXPECT_EQ(registry_.claim(id, &bucket_b_, 3, why), nullptr);
  EXPECT_EQ(why, ScanRegistry::Claim::Unknown);
  EXPECT_EQ(registry_.claim(id, &bucket_a_, 4, why), nullptr);
  EXPECT_EQ(why, ScanRegistry::Claim::Unknown);
  const std::shared_ptr<RangeScan> scan = registry_.claim(id, &bucket_a_, 3, why);
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(why, ScanRegistry::Claim::Claimed);
  EXPECT_EQ(registry_.claim(id, &bucket_a_, 3, why), nullptr);
  EXPECT_EQ(why, ScanRegistry::Claim::Busy);
  // A cancel while busy ends the scan once its continue ends.
  EXPECT_TRUE(registry_.cancel(id, &bucket_a_, 3));
  EXPECT_TRUE(scan->cancelled());
  EXPECT_EQ(registry_.size(), 1u);
  registry_.release(scan);
  EXPECT_EQ(registry_.size(), 0u);
}

TEST_F(ScanRegistryTest, ScansLeftIdleAreCancelledBusyOnesAreNot) {
  const ScanId idle = *registry_.add(&bucket_a_, 3, true, {"a"});
  const ScanId busy = *registry_.add(&bucket_b_, 3, true, {"a"});
  ScanRegistry::Claim why;
  const std::shared_ptr<RangeScan> running = registry_.claim(busy, &bucket_b_, 3, why);
  clock_.advance_ms(1000);
  EXPECT_EQ(registry_.reap_idle(), 0u) << "idle for exactly the limit: kept";
  clock_.advance_ms(1);
  EXPECT_EQ(registry_.reap_idle(), 1u);
  EXPECT_EQ(registry_.claim(idle, &bucket_a_, 3, why), nullptr);
  EXPECT_EQ(why, ScanRegistry::Claim::Unknown);
  // Its idle time starts again when its continue ends.
  registry_.release(running);
  clock_.advance_ms(1000);
  EXPECT_EQ(registry_.reap_idle(), 0u);
  EXPECT_EQ(registry_.size(), 1u);
}

}  // namespace
}  // namespace tern::scan
