// The CAS as a hybrid logical clock: the wall clock in nanoseconds, or one more than the last
// CAS when the clock has not moved past it. The SDKs' transactions read time from it.
#include <cstdint>

#include "engine/engine_fixture.h"

namespace tern::engine {
namespace {

class CasClockTest : public EngineTest {
 protected:
  uint64_t now_ns() const { return static_cast<uint64_t>(clock_.unix_nanoseconds()); }
};

TEST_F(CasClockTest, FollowsTheWallClock) {
  const uint64_t first = set("a", "v").cas;
  EXPECT_GE(first, now_ns());
  clock_.advance_seconds(60);
  // The same key, so the same shard: CAS values of two shards differ in their low bits too.
  const uint64_t later = set("a", "w").cas;
  // Within the few low bits the shard index takes, a minute later in nanoseconds.
  EXPECT_GE(later, now_ns());
  EXPECT_LT(later - now_ns(), 1'000'000u);
  EXPECT_GE(later - first, 60'000'000'000u);
}

TEST_F(CasClockTest, GrowsWhileTheClockStandsStill) {
  uint64_t previous = set("k", "0").cas;
  for (int i = 1; i < 1000; ++i) {
    const uint64_t cas = set("k", "v").cas;
    ASSERT_GT(cas, previous) << "write " << i;
    previous = cas;
  }
}

TEST_F(CasClockTest, NeverGoesBackWhenTheClockDoes) {
  const uint64_t before = set("k", "v").cas;
  clock_.advance_seconds(-30);
  EXPECT_GT(set("k", "w").cas, before) << "a document's CAS only grows";
}

}  // namespace
}  // namespace tern::engine
