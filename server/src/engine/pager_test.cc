// The background pagers, run on the deterministic executor with a clock the test moves.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/clock.h"
#include "engine/engine.h"
#include "engine/expiry_pager.h"
#include "engine/item_pager.h"
#include "engine/stored_item.h"
#include "executor/manual_executor.h"

namespace tern::engine {
namespace {

const std::string kValue(100, 'v');

std::string key(int i) { return "key" + std::to_string(1000 + i); }

Config pager_config(size_t quota_items) {
  Config config;
  config.shard_count = 8;
  config.memory_quota_bytes = quota_items * item_charge(key(0).size(), kValue.size());
  return config;
}

class PagerTest : public ::testing::Test {
 protected:
  explicit PagerTest(size_t quota_items = 1000)
      : engine_(pager_config(quota_items), clock_), executor_(clock_) {}

  // Runs due tasks until none is due (each pass advances nothing: only snooze(0) re-runs).
  size_t run_until_idle() {
    size_t runs = 0;
    for (size_t pass = 0; pass < 10'000 && executor_.ready_count() > 0; ++pass) {
      runs += executor_.run_ready();
    }
    return runs;
  }

  ManualClock clock_;
  Engine engine_;
  executor::ManualExecutor executor_;
};

TEST_F(PagerTest, ExpiredItemsVanishWithoutBeingRead) {
  for (int i = 0; i < 300; ++i) {
    ASSERT_EQ(engine_.store(StoreMode::Set, key(i), kValue, 0, i % 2 ? 10 : 0, 0, 0).status,
              Status::Success);
  }
  auto pager = std::make_shared<ExpiryPager>(engine_, 60, executor::kServerOwner, 64);
  executor_.schedule(pager, 60);

  clock_.advance_seconds(11);  // the odd keys are past their expiry, but nobody reads them
  EXPECT_EQ(engine_.stats().curr_items, 300u);
  EXPECT_EQ(run_until_idle(), 0u) << "the pager must wait for its interval";

  clock_.advance_seconds(50);
  const size_t runs = run_until_idle();
  EXPECT_GT(runs, 1u) << "a small slice must take several runs, yielding between them";
  EXPECT_EQ(pager->passes(), 1u);
  const Stats stats = engine_.stats();
  EXPECT_EQ(stats.curr_items, 150u);
  EXPECT_EQ(stats.expired_items, 150u);
  EXPECT_EQ(stats.get_misses + stats.get_hits, 0u);
  EXPECT_EQ(engine_.get(key(0)).status, Status::Success);
  EXPECT_EQ(engine_.get(key(1)).status, Status::NotFound);
}

TEST_F(PagerTest, ExpiryPagerSleepsForTheIntervalAfterAPass) {
  auto pager = std::make_shared<ExpiryPager>(engine_, 5, executor::kServerOwner);
  executor_.schedule(pager);
  run_until_idle();
  EXPECT_EQ(pager->passes(), 1u);
  clock_.advance_seconds(4);
  EXPECT_EQ(executor_.ready_count(), 0u);
  clock_.advance_seconds(1);
  run_until_idle();
  EXPECT_EQ(pager->passes(), 2u);
}

class ItemPagerTest : public PagerTest {
 protected:
  ItemPagerTest() : PagerTest(100) {}
};

TEST_F(ItemPagerTest, PressureWakesThePagerWhichEvictsToTheLowWatermark) {
  attach_item_pager(engine_, executor_, executor::kServerOwner);
  EXPECT_EQ(run_until_idle(), 0u) << "the pager sleeps until memory pressure wakes it";

  int written = 0;
  while (engine_.mem_used() <= engine_.high_watermark_bytes()) {
    ASSERT_EQ(engine_.store(StoreMode::Set, key(written++), kValue, 0, 0, 0, 0).status,
              Status::Success);
  }
  EXPECT_EQ(engine_.stats().evictions, 0u);
  EXPECT_GT(run_until_idle(), 0u) << "crossing the high watermark must wake the pager";
  EXPECT_LE(engine_.mem_used(), engine_.low_watermark_bytes());
  EXPECT_GT(engine_.stats().evictions, 0u);
  EXPECT_EQ(run_until_idle(), 0u) << "below the low watermark the pager sleeps again";
}

TEST_F(ItemPagerTest, WritesKeepSucceedingPastTheQuotaAndStayWithinIt) {
  attach_item_pager(engine_, executor_, executor::kServerOwner);
  for (int i = 0; i < 1000; ++i) {  // ten times the quota
    ASSERT_EQ(engine_.store(StoreMode::Set, key(i), kValue, 0, 0, 0, 0).status, Status::Success)
        << "write " << i;
    ASSERT_LE(engine_.mem_used(), engine_.config().memory_quota_bytes);
    if (i % 7 == 0) run_until_idle();  // the pager runs now and then, as on a busy server
  }
  EXPECT_GT(engine_.stats().evictions, 0u);
  EXPECT_EQ(engine_.get(key(999)).status, Status::Success) << "the newest write survives";
}

TEST_F(ItemPagerTest, LockedItemsAreNeverEvicted) {
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(engine_.store(StoreMode::Set, key(i), kValue, 0, 0, 0, 0).status, Status::Success);
    ASSERT_EQ(engine_.get_locked(key(i), 30).status, Status::Success);
  }
  for (int i = 10; i < 1000; ++i) {
    ASSERT_EQ(engine_.store(StoreMode::Set, key(i), kValue, 0, 0, 0, 0).status, Status::Success);
  }
  EXPECT_GT(engine_.stats().evictions, 0u) << "the writes must have forced evictions";
  for (int i = 0; i < 10; ++i) EXPECT_EQ(engine_.get(key(i)).status, Status::Success) << i;
}

TEST_F(ItemPagerTest, AWriteFailsWithOutOfMemoryOnlyWhenNothingCanBeEvicted) {
  int written = 0;
  while (true) {
    const Status status = engine_.store(StoreMode::Set, key(written), kValue, 0, 0, 0, 0).status;
    if (status != Status::Success) {
      EXPECT_EQ(status, Status::OutOfMemory);
      break;
    }
    ASSERT_EQ(engine_.get_locked(key(written), 30).status, Status::Success);
    ASSERT_LT(++written, 1000) << "the quota must stop an engine full of locked items";
  }
  EXPECT_EQ(engine_.stats().curr_items, static_cast<uint64_t>(written));
}

}  // namespace
}  // namespace tern::engine
