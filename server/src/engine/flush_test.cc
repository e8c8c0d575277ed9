#include "engine/engine_fixture.h"

namespace tern::engine {
namespace {

TEST_F(EngineTest, FlushNowDropsEverythingAndFreesMemory) {
  for (int i = 0; i < 100; ++i) set("k" + std::to_string(i), "v");
  ASSERT_EQ(engine_.stats().curr_items, 100u);
  engine_.flush(0);
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.curr_items, 0u);
  EXPECT_EQ(stats.mem_used, 0u);
  EXPECT_EQ(stats.cmd_flush, 1u);
  EXPECT_EQ(value_of("k5"), kMissing);
  // Items stored after the flush are unaffected.
  set("k5", "again");
  EXPECT_EQ(value_of("k5"), "again");
}

TEST_F(EngineTest, DelayedFlushTakesEffectWhenItsTimeComes) {
  set("before", "v");
  engine_.flush(10);
  set("during", "v");
  clock_.advance_ms(9999);
  EXPECT_EQ(value_of("before"), "v");
  EXPECT_EQ(value_of("during"), "v");
  clock_.advance_ms(1);
  EXPECT_EQ(value_of("before"), kMissing);
  EXPECT_EQ(value_of("during"), kMissing);
  set("after", "v");
  clock_.advance_seconds(100);
  EXPECT_EQ(value_of("after"), "v");
  EXPECT_EQ(engine_.stats().mem_used, engine_.mem_used());
  EXPECT_EQ(engine_.stats().curr_items, 1u);
}

TEST_F(EngineTest, LaterFlushReplacesAPendingOne) {
  set("k", "v");
  engine_.flush(100);
  engine_.flush(5);
  clock_.advance_seconds(5);
  EXPECT_EQ(value_of("k"), kMissing);
  set("k", "v2");
  clock_.advance_seconds(200);
  EXPECT_EQ(value_of("k"), "v2");
}

TEST_F(EngineTest, FlushAlsoDropsLockedItems) {
  set("k", "v");
  ASSERT_EQ(engine_.get_locked("k", 0).status, Status::Success);
  engine_.flush(0);
  EXPECT_EQ(value_of("k"), kMissing);
  EXPECT_EQ(set("k", "x").status, Status::Success);
}

}  // namespace
}  // namespace tern::engine
