#include "auth/failure_throttle.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/clock.h"

namespace tern::auth {
namespace {

// Fails once at the clock's time and says how long attempts are then refused for.
int64_t fail_and_measure(FailureThrottle& throttle, ManualClock& clock) {
  throttle.failed(clock.steady_ms());
  return throttle.refused_until_ms() - clock.steady_ms();
}

TEST(FailureThrottleTest, TheFirstThreeFailuresAreFree) {
  ManualClock clock;
  FailureThrottle throttle;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(throttle.may_attempt(clock.steady_ms()));
    throttle.failed(clock.steady_ms());
  }
  EXPECT_TRUE(throttle.may_attempt(clock.steady_ms()));
  EXPECT_EQ(throttle.failures(), 3);
}

TEST(FailureThrottleTest, TheFourthFailureShutsAttemptsOutFor500Ms) {
  ManualClock clock;
  FailureThrottle throttle;
  for (int i = 0; i < 4; ++i) throttle.failed(clock.steady_ms());
  EXPECT_FALSE(throttle.may_attempt(clock.steady_ms()));
  clock.advance_ms(499);
  EXPECT_FALSE(throttle.may_attempt(clock.steady_ms()));
  clock.advance_ms(1);
  EXPECT_TRUE(throttle.may_attempt(clock.steady_ms()));
}

TEST(FailureThrottleTest, EachFurtherFailureDoublesTheWindowUpTo10Seconds) {
  ManualClock clock;
  FailureThrottle throttle;
  for (int i = 0; i < 3; ++i) throttle.failed(clock.steady_ms());
  std::vector<int64_t> windows;
  for (int i = 0; i < 8; ++i) {
    windows.push_back(fail_and_measure(throttle, clock));
    clock.advance_ms(windows.back());  // wait it out, then fail again
    EXPECT_TRUE(throttle.may_attempt(clock.steady_ms()));
  }
  EXPECT_EQ(windows, (std::vector<int64_t>{500, 1000, 2000, 4000, 8000, 10000, 10000, 10000}));
}

TEST(FailureThrottleTest, ARefusedAttemptNeitherExtendsNorDoublesTheWindow) {
  ManualClock clock;
  FailureThrottle throttle;
  for (int i = 0; i < 4; ++i) throttle.failed(clock.steady_ms());
  int64_t until = throttle.refused_until_ms();
  clock.advance_ms(200);
  EXPECT_FALSE(throttle.may_attempt(clock.steady_ms()));  // refused: the caller records nothing
  EXPECT_EQ(throttle.refused_until_ms(), until);
  EXPECT_EQ(throttle.failures(), 4);
  clock.advance_ms(300);
  ASSERT_TRUE(throttle.may_attempt(clock.steady_ms()));
  EXPECT_EQ(fail_and_measure(throttle, clock), 1000);
}

TEST(FailureThrottleTest, ASuccessForgivesEverything) {
  ManualClock clock;
  FailureThrottle throttle;
  for (int i = 0; i < 6; ++i) throttle.failed(clock.steady_ms());
  clock.advance_ms(2000);
  ASSERT_TRUE(throttle.may_attempt(clock.steady_ms()));
  throttle.succeeded();
  EXPECT_EQ(throttle.failures(), 0);
  for (int i = 0; i < 3; ++i) throttle.failed(clock.steady_ms());
  EXPECT_TRUE(throttle.may_attempt(clock.steady_ms()));  // three free failures again
  EXPECT_EQ(fail_and_measure(throttle, clock), 500);
}

TEST(FailureThrottleTest, ManyFailuresStayCapped) {
  ManualClock clock;
  FailureThrottle throttle;
  for (int i = 0; i < 1000; ++i) throttle.failed(clock.steady_ms());
  EXPECT_EQ(throttle.refused_until_ms() - clock.steady_ms(), 10'000);
  clock.advance_seconds(10);
  EXPECT_TRUE(throttle.may_attempt(clock.steady_ms()));
}

}  // namespace
}  // namespace tern::auth
