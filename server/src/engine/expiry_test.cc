#include "engine/engine_fixture.h"

namespace tern::engine {
namespace {

constexpr uint32_t kThirtyDays = 30 * 24 * 60 * 60;

TEST_F(EngineTest, RelativeExpiryHidesTheItemOnceItPasses) {
  set("k", "v", 10);
  clock_.advance_ms(9999);
  EXPECT_EQ(value_of("k"), "v");
  clock_.advance_ms(1);
  EXPECT_EQ(value_of("k"), kMissing);
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.expired_items, 1u);
  EXPECT_EQ(stats.curr_items, 0u);
  EXPECT_EQ(stats.mem_used, 0u);
}

TEST_F(EngineTest, ThirtyDaysIsStillRelative) {
  set("k", "v", kThirtyDays);
  clock_.advance_seconds(kThirtyDays - 1);
  EXPECT_EQ(value_of("k"), "v");
  clock_.advance_seconds(1);
  EXPECT_EQ(value_of("k"), kMissing);
}

TEST_F(EngineTest, LargerExpiryIsAbsoluteUnixTime) {
  const auto at = static_cast<uint32_t>(clock_.unix_seconds() + 100);
  set("k", "v", at);
  EXPECT_EQ(engine_.get("k").item->expiry_ms, clock_.steady_ms() + 100'000);
  clock_.advance_seconds(99);
  EXPECT_EQ(value_of("k"), "v");
  clock_.advance_seconds(1);
  EXPECT_EQ(value_of("k"), kMissing);
}

TEST_F(EngineTest, PastAbsoluteExpiryExpiresAtOnce) {
  set("k", "old");
  ASSERT_EQ(value_of("k"), "old");
  const auto past = static_cast<uint32_t>(clock_.unix_seconds() - 5);
  MutationResult result = set("k", "v", past);
  EXPECT_EQ(result.status, Status::Success);
  EXPECT_EQ(value_of("k"), kMissing);
  EXPECT_EQ(engine_.stats().mem_used, 0u);
  // Just above the relative range is long past too.
  set("k", "v", kThirtyDays + 1);
  EXPECT_EQ(value_of("k"), kMissing);
}

TEST_F(EngineTest, AddSucceedsOverAnExpiredItem) {
  set("k", "v", 2);
  clock_.advance_seconds(1);
  EXPECT_EQ(engine_.store(StoreMode::Add, "k", "early", 0, 0, 0, 0).status, Status::Exists);
  clock_.advance_seconds(1);
  EXPECT_EQ(engine_.store(StoreMode::Add, "k", "new", 0, 0, 0, 0).status, Status::Success);
  EXPECT_EQ(value_of("k"), "new");
}

TEST_F(EngineTest, TouchChangesExpiryAndCasButNotValue) {
  const uint64_t cas = set("k", "v", 5).cas;
  MutationResult touched = engine_.touch("k", 100);
  ASSERT_EQ(touched.status, Status::Success);
  EXPECT_NE(touched.cas, cas);
  clock_.advance_seconds(50);
  GetResult got = engine_.get("k");
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.item->value(), "v");
  EXPECT_EQ(got.item->cas, touched.cas);
  clock_.advance_seconds(50);
  EXPECT_EQ(value_of("k"), kMissing);
}

TEST_F(EngineTest, TouchToZeroRemovesTheExpiry) {
  set("k", "v", 5);
  engine_.touch("k", 0);
  clock_.advance_seconds(1000);
  EXPECT_EQ(value_of("k"), "v");
}

TEST_F(EngineTest, TouchOfMissingOrExpiredKeyIsNotFound) {
  EXPECT_EQ(engine_.touch("k", 10).status, Status::NotFound);
  set("k", "v", 2);
  clock_.advance_seconds(1);
  ASSERT_EQ(value_of("k"), "v");
  clock_.advance_seconds(1);
  EXPECT_EQ(engine_.touch("k", 10).status, Status::NotFound);
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.cmd_touch, 2u);
  EXPECT_EQ(stats.touch_misses, 2u);
}

TEST_F(EngineTest, GetAndTouchReturnsTheItemWithItsNewExpiry) {
  set("k", "v", 5);
  GetResult got = engine_.get_and_touch("k", 20);
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.item->value(), "v");
  EXPECT_EQ(got.item->expiry_ms, clock_.steady_ms() + 20'000);
  clock_.advance_seconds(10);
  EXPECT_EQ(value_of("k"), "v");
  EXPECT_EQ(engine_.stats().touch_hits, 1u);
  EXPECT_EQ(engine_.get_and_touch("missing", 20).status, Status::NotFound);
}

TEST_F(EngineTest, RepeatedTouchesKeepTheValue) {
  set("k", std::string(100, 'z'));
  for (int i = 0; i < 10; ++i) engine_.touch("k", 100 + i);
  EXPECT_EQ(value_of("k"), std::string(100, 'z'));
}

TEST_F(EngineTest, ExpiryDeadlineConversion) {
  const int64_t now = clock_.steady_ms();
  EXPECT_EQ(engine_.expiry_deadline_ms(0), 0);
  EXPECT_EQ(engine_.expiry_deadline_ms(1), now + 1000);
  EXPECT_EQ(engine_.expiry_deadline_ms(kThirtyDays), now + int64_t{kThirtyDays} * 1000);
  const auto in_an_hour = static_cast<uint32_t>(clock_.unix_seconds() + 3600);
  EXPECT_EQ(engine_.expiry_deadline_ms(in_an_hour), now + 3'600'000);
  EXPECT_LE(engine_.expiry_deadline_ms(kThirtyDays + 1), now);
  EXPECT_NE(engine_.expiry_deadline_ms(kThirtyDays + 1), 0);
}

}  // namespace
}  // namespace tern::engine
