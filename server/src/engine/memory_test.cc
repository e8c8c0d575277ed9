#include <atomic>
#include <new>

#include "engine/engine_fixture.h"
#include "engine/paging_hooks.h"
#include "engine/stored_item.h"

namespace tern::engine {
namespace {

// Keys "key00".."key99" and 10-byte values: every item has the same charge.
std::string key(int i) { return (i < 10 ? "key0" : "key") + std::to_string(i); }
const std::string kValue(10, 'v');
const size_t kCharge = item_charge(5, 10);

Config quota_of_items(size_t items) {
  Config config = small_config();
  config.memory_quota_bytes = items * kCharge;
  config.evict_when_full = false;  // these tests are about the quota itself
  return config;
}

// Stores keys 0 to `count` - 1, each 1 ms after the one before: key 0 is the least recently
// used.
void store_a_ms_apart(Engine& engine, ManualClock& clock, int count) {
  for (int i = 0; i < count; ++i) {
    ASSERT_EQ(engine.store(StoreMode::Set, key(i), kValue, 0, 0, 0, 0).status, Status::Success);
    clock.advance_ms(1);
  }
}

// How many of keys `from` to `to` - 1 are gone (a get of each: it uses the others).
int missing(Engine& engine, int from, int to) {
  int count = 0;
  for (int i = from; i < to; ++i) count += engine.get(key(i)).status == Status::NotFound;
  return count;
}

class MemoryTest : public EngineTest {
 protected:
  MemoryTest() : EngineTest(quota_of_items(10)) {}
};

TEST_F(MemoryTest, MemUsedTracksKeysValuesAndOverhead) {
  set("key00", kValue);
  EXPECT_EQ(engine_.mem_used(), 99u);  // 5 + 10 + 84 (see ChargeIsKeyAndValuePlus84Bytes)
  set("key00", kValue + kValue);  // overwrite charges only the difference
  EXPECT_EQ(engine_.mem_used(), item_charge(5, 20));
  engine_.concat(ConcatMode::Append, "key00", "12345", 0);
  EXPECT_EQ(engine_.mem_used(), item_charge(5, 25));
  engine_.touch("key00", 100);
  engine_.get_locked("key00", 0);
  EXPECT_EQ(engine_.mem_used(), item_charge(5, 25));
  engine_.flush(0);
  EXPECT_EQ(engine_.mem_used(), 0u);
}

// A delete leaves a tombstone charged as an item with an empty value, until it is purged.
TEST_F(MemoryTest, MemUsedReturnsToZeroAfterDeletesOnceTombstonesArePurged) {
  for (int i = 0; i < 10; ++i) ASSERT_EQ(set(key(i), kValue).status, Status::Success);
  EXPECT_EQ(engine_.mem_used(), 10 * kCharge);
  for (int i = 0; i < 10; ++i) engine_.remove(key(i), 0);
  EXPECT_EQ(engine_.mem_used(), 10 * item_charge(5, 0));
  EXPECT_EQ(engine_.stats().curr_items, 0u);
  clock_.advance_seconds(engine_.config().metadata_purge_seconds);
  for (size_t s = 0; s < engine_.paging().shard_count(); ++s)
    engine_.paging().purge_expired(s, 1000);
  EXPECT_EQ(engine_.mem_used(), 0u);
}

TEST_F(MemoryTest, WithoutTombstonesADeleteFreesEverything) {
  Config config = quota_of_items(10);
  config.metadata_purge_seconds = 0;
  Engine engine(config, clock_);
  engine.store(StoreMode::Set, "key00", kValue, 0, 0, 0, 0);
  engine.remove("key00", 0);
  EXPECT_EQ(engine.mem_used(), 0u);
  EXPECT_EQ(engine.get_meta("key00").status, Status::NotFound);
}

TEST_F(MemoryTest, WriteOverQuotaIsOutOfMemoryAndChangesNothing) {
  for (int i = 0; i < 10; ++i) ASSERT_EQ(set(key(i), kValue).status, Status::Success);
  const uint64_t used = engine_.mem_used();
  EXPECT_EQ(set("key10", kValue).status, Status::OutOfMemory);
  EXPECT_EQ(value_of("key10"), kMissing);
  EXPECT_EQ(set("key00", kValue + "more").status, Status::OutOfMemory);
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "key00", "x", 0).status, Status::OutOfMemory);
  EXPECT_EQ(engine_.arithmetic("counter", true, 1, 1, 0, 0).status, Status::OutOfMemory);
  EXPECT_EQ(value_of("key00"), kValue);
  EXPECT_EQ(value_of("counter"), kMissing);
  EXPECT_EQ(engine_.mem_used(), used);
  EXPECT_EQ(engine_.stats().curr_items, 10u);
  EXPECT_EQ(engine_.stats().oom_errors, 4u) << "each refusal counts once";
  // Same-size overwrites, touches and deletes still work at the quota.
  EXPECT_EQ(set("key00", std::string(10, 'w')).status, Status::Success);
  EXPECT_EQ(engine_.touch("key01", 100).status, Status::Success);
  EXPECT_EQ(engine_.remove("key02", 0).status, Status::Success);
  // The delete's tombstone still holds key02 and its metadata until it is purged.
  EXPECT_EQ(set("key10", kValue).status, Status::OutOfMemory);
  clock_.advance_seconds(engine_.config().metadata_purge_seconds);
  for (size_t s = 0; s < engine_.paging().shard_count(); ++s)
    engine_.paging().purge_expired(s, 1000);
  EXPECT_EQ(set("key10", kValue).status, Status::Success);
}

TEST_F(MemoryTest, WatermarksFollowTheConfiguredPercentages) {
  const uint64_t quota = engine_.config().memory_quota_bytes;
  EXPECT_EQ(engine_.high_watermark_bytes(), quota * 85 / 100);
  EXPECT_EQ(engine_.low_watermark_bytes(), quota * 75 / 100);
}

TEST_F(MemoryTest, PressureListenerFiresAboveTheHighWatermarkAtMostOncePerInterval) {
  std::atomic<int> calls{0};
  engine_.paging().set_memory_pressure_listener([&] { ++calls; });
  for (int i = 0; i < 8; ++i) set(key(i), kValue);  // 80%: below 85%
  EXPECT_EQ(calls, 0);
  set(key(8), kValue);  // 90%
  EXPECT_EQ(calls, 1);
  set(key(9), kValue);
  EXPECT_EQ(calls, 1);
  clock_.advance_ms(PagingHooks::kPressureIntervalMs);
  EXPECT_EQ(set(key(10), kValue).status, Status::OutOfMemory);
  EXPECT_EQ(calls, 2);
  engine_.paging().set_memory_pressure_listener(nullptr);
  clock_.advance_ms(PagingHooks::kPressureIntervalMs);
  set(key(10), kValue);  // no listener: nothing to call, nothing breaks
  EXPECT_EQ(calls, 2);
}

// mem_used_highwat: the peak of mem_used, which a sampler of mem_used may miss.
uint64_t highwat(const Engine& engine) { return engine.stats().mem_used_highwat; }

TEST_F(MemoryTest, HighwatKeepsThePeakAfterMemoryIsFreedAndFollowsAHigherOne) {
  EXPECT_EQ(highwat(engine_), 0u);
  for (int i = 0; i < 6; ++i) set(key(i), kValue);
  EXPECT_EQ(highwat(engine_), 6 * kCharge);
  engine_.flush(0);
  EXPECT_EQ(engine_.mem_used(), 0u);
  EXPECT_EQ(highwat(engine_), 6 * kCharge);
  for (int i = 0; i < 4; ++i) set(key(i), kValue);  // below the old peak: it stays
  EXPECT_EQ(highwat(engine_), 6 * kCharge);
  for (int i = 4; i < 10; ++i) set(key(i), kValue);  // past it: it follows, to the quota
  EXPECT_EQ(highwat(engine_), 10 * kCharge);
}

// A write past the quota is charged and taken back at once: it never held that memory.
TEST_F(MemoryTest, HighwatIgnoresRefusedWrites) {
  for (int i = 0; i < 10; ++i) ASSERT_EQ(set(key(i), kValue).status, Status::Success);
  EXPECT_EQ(set(key(10), kValue).status, Status::OutOfMemory);
  EXPECT_EQ(set("key00", kValue + "more").status, Status::OutOfMemory);
  EXPECT_EQ(highwat(engine_), engine_.config().memory_quota_bytes);
}

TEST_F(MemoryTest, PurgeExpiredRemovesOnlyExpiredItems) {
  for (int i = 0; i < 10; ++i) set(key(i), kValue, i % 2 ? 10 : 0);
  clock_.advance_seconds(10);
  size_t removed = 0;
  for (size_t s = 0; s < engine_.paging().shard_count(); ++s)
    removed += engine_.paging().purge_expired(s, 1000);
  EXPECT_EQ(removed, 5u);
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.curr_items, 5u);
  EXPECT_EQ(stats.expired_items, 5u);
  EXPECT_EQ(stats.mem_used, 5 * kCharge);
  EXPECT_EQ(stats.reclaimed_bytes, 5 * kCharge);
  EXPECT_EQ(value_of(key(0)), kValue);
  EXPECT_EQ(engine_.paging().purge_expired(engine_.paging().shard_count(), 1000),
            0u);  // no such shard
}

TEST_F(MemoryTest, PurgeExpiredResumesWhereItStopped) {
  for (int i = 0; i < 10; ++i) set(key(i), kValue, 10);
  clock_.advance_seconds(10);
  size_t removed = 0;
  for (size_t s = 0; s < engine_.paging().shard_count(); ++s) {
    // One visit per call: exactly capacity calls sweep the shard, however the removals
    // shift the items that follow.
    const size_t capacity = engine_.paging().shard_capacity(s);
    for (size_t call = 0; call < capacity; ++call) removed += engine_.paging().purge_expired(s, 1);
  }
  EXPECT_EQ(removed, 10u);
  EXPECT_EQ(engine_.mem_used(), 0u);
}

TEST_F(MemoryTest, PurgeExpiredCountsFlushedItems) {
  for (int i = 0; i < 6; ++i) set(key(i), kValue);
  engine_.flush(1);
  clock_.advance_seconds(1);
  size_t removed = 0;
  for (size_t s = 0; s < engine_.paging().shard_count(); ++s)
    removed += engine_.paging().purge_expired(s, 1);
  EXPECT_EQ(removed, 6u);
  EXPECT_EQ(engine_.mem_used(), 0u);
}

TEST_F(MemoryTest, EvictFreesTheLeastRecentlyUsedItems) {
  for (int i = 0; i < 10; ++i) {
    set(key(i), kValue);
    clock_.advance_ms(1);
  }
  // Use the older half again so the newer half becomes least recently used.
  for (int i = 0; i < 5; ++i) {
    engine_.get(key(i));
    clock_.advance_ms(1);
  }
  EXPECT_EQ(engine_.paging().evict(5 * kCharge), 5 * kCharge);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(value_of(key(i)), kValue) << i;
  for (int i = 5; i < 10; ++i) EXPECT_EQ(value_of(key(i)), kMissing) << i;
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.evictions, 5u);
  EXPECT_EQ(stats.mem_used, 5 * kCharge);
}

// Above the low watermark the calls share one sweep, whose threshold is set for the band
// between the watermarks (or what memory is above the low one, if more) instead of each call's
// bytes: small calls take the least recently used items of that band. At the low watermark
// each call again takes the least recently used items for what it asks.
TEST_F(MemoryTest, EvictionUnderPressureTakesTheLeastRecentlyUsedOfTheBand) {
  Engine engine(quota_of_items(100), clock_);  // watermarks at 75 and 85 items
  ASSERT_NO_FATAL_FAILURE(store_a_ms_apart(engine, clock_, 90));
  for (int i = 0; i < 5; ++i) {  // the five oldest are used again
    engine.get(key(i));
    clock_.advance_ms(1);
  }
  // 15 items over the low watermark: the first sweep takes from the 15 least recently used,
  // reading each item about once (and once more for its sample), not once per call.
  for (int call = 0; call < 15; ++call) ASSERT_EQ(engine.paging().evict(kCharge), kCharge) << call;
  EXPECT_LE(engine.stats().eviction_visits, 3u * 90);
  for (int call = 15; call < 20; ++call) ASSERT_EQ(engine.paging().evict(kCharge), kCharge) << call;
  // 15 calls took them all; the last 5, at the low watermark, took the next 5.
  EXPECT_EQ(missing(engine, 5, 20), 15);
  EXPECT_EQ(missing(engine, 20, 30), 5);
  EXPECT_EQ(missing(engine, 0, 5) + missing(engine, 30, 90), 0);
  EXPECT_EQ(engine.stats().evictions, 20u);
}

// A sweep takes the items last used before it began, however long it lasts: what was used
// since, and items that have been idle as long only since then, wait for the next sweep.
TEST_F(MemoryTest, ASweepTakesNothingUsedSinceItBegan) {
  Engine engine(quota_of_items(100), clock_);  // watermarks at 75 and 85 items
  ASSERT_NO_FATAL_FAILURE(store_a_ms_apart(engine, clock_, 90));
  ASSERT_EQ(engine.paging().evict(kCharge), kCharge);  // a sweep for the 15 oldest begins
  clock_.advance_ms(1000);
  for (int i = 0; i < 15; ++i) engine.get(key(i));  // its band is used again
  for (int call = 0; call < 5; ++call) ASSERT_EQ(engine.paging().evict(kCharge), kCharge) << call;
  // The first sweep found nothing more; the next one took the least recently used now.
  EXPECT_EQ(missing(engine, 0, 15), 1);
  EXPECT_EQ(missing(engine, 15, 29), 5);
  EXPECT_EQ(missing(engine, 29, 90), 0);
}

TEST_F(MemoryTest, EvictNeverTakesLockedItems) {
  for (int i = 0; i < 10; ++i) set(key(i), kValue);
  for (int i = 0; i < 3; ++i) engine_.get_locked(key(i), 0);
  EXPECT_EQ(engine_.paging().evict(100 * kCharge), 7 * kCharge);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(value_of(key(i)), kValue) << i;
  EXPECT_EQ(engine_.stats().curr_items, 3u);
  EXPECT_EQ(engine_.paging().evict(kCharge), 0u);
  // Once the lock times out the item can go.
  clock_.advance_seconds(engine_.config().max_lock_seconds);
  EXPECT_EQ(engine_.paging().evict(kCharge), kCharge);
}

TEST_F(EngineTest, EvictScansLargeShardsInStepsAndKeepsRecentItems) {
  Config config = small_config();
  config.shard_count = 1;
  Engine engine(config, clock_);
  constexpr int kItems = 3000;
  for (int i = 0; i < kItems; ++i) {
    engine.store(StoreMode::Set, "item" + std::to_string(i), kValue, 0, 0, 0, 0);
    clock_.advance_ms(1);
  }
  for (int i = 0; i < kItems / 4; ++i) {
    engine.get("item" + std::to_string(i));
    clock_.advance_ms(1);
  }
  const uint64_t half = engine.mem_used() / 2;
  EXPECT_GE(engine.paging().evict(half), half);
  EXPECT_LE(engine.mem_used(), half);
  for (int i = 0; i < kItems / 4; ++i) {
    ASSERT_EQ(engine.get("item" + std::to_string(i)).status, Status::Success) << i;
  }
}

// A table that cannot grow fails the write with std::bad_alloc (the dispatcher answers
// Enomem), and nothing of the write stays counted.
TEST_F(EngineTest, WriteWhoseTableCannotGrowChargesNothing) {
  // Four shards of eight slots hold six items each before one must grow, so one of 25
  // writes must grow a table.
  constexpr int kWrites = 25;
  Stats before;
  int failed = -1;
  {
    GrowthFailure failure;
    for (int i = 0; i < kWrites && failed < 0; ++i) {
      before = engine_.stats();
      try {
        set(key(i), kValue);
      } catch (const std::bad_alloc&) {
        failed = i;
      }
    }
  }
  ASSERT_GE(failed, 0) << "no write had to grow a table";
  const Stats after = engine_.stats();
  EXPECT_EQ(value_of(key(failed)), kMissing);
  EXPECT_EQ(after.mem_used, before.mem_used);
  EXPECT_EQ(after.curr_items, before.curr_items);
  EXPECT_EQ(after.total_items, before.total_items);
  EXPECT_EQ(after.mem_used, after.curr_items * kCharge);
  // The same write succeeds once the table can grow, and the accounting stays exact.
  ASSERT_EQ(set(key(failed), kValue).status, Status::Success);
  EXPECT_EQ(engine_.mem_used(), (after.curr_items + 1) * kCharge);
  for (int i = 0; i < kWrites; ++i) engine_.remove(key(i), 0);
  EXPECT_EQ(engine_.mem_used(), (after.curr_items + 1) * item_charge(5, 0));  // tombstones
}

TEST_F(MemoryTest, EvictionMakesRoomForNewWrites) {
  for (int i = 0; i < 10; ++i) set(key(i), kValue);
  EXPECT_EQ(set(key(10), kValue).status, Status::OutOfMemory);
  EXPECT_GE(engine_.paging().evict(kCharge), kCharge);
  EXPECT_EQ(set(key(10), kValue).status, Status::Success);
  EXPECT_EQ(engine_.stats().oom_errors, 1u);
}

// A write that finds the quota full and evicts to make room is not refused, so it is not an
// OOM error; one that finds nothing to evict is.
TEST_F(MemoryTest, OnlyAWriteEvictionCannotMakeRoomForCountsAsAnOomError) {
  Config config = quota_of_items(10);
  config.evict_when_full = true;
  Engine engine(config, clock_);
  for (int i = 0; i < 11; ++i) {
    ASSERT_EQ(engine.store(StoreMode::Set, key(i), kValue, 0, 0, 0, 0).status, Status::Success);
  }
  EXPECT_GE(engine.stats().evictions, 1u);
  EXPECT_EQ(engine.stats().oom_errors, 0u);
  // Each new key locked once stored: they push the unlocked ones out, then fill the quota,
  // and with nothing left to evict the next writes are refused.
  uint64_t refused = 0;
  for (int i = 11; i < 40; ++i) {
    if (engine.store(StoreMode::Set, key(i), kValue, 0, 0, 0, 0).status == Status::Success) {
      engine.get_locked(key(i), 0);
    } else {
      ++refused;
    }
  }
  EXPECT_GE(refused, 19u);
  EXPECT_EQ(engine.stats().oom_errors, refused);
}

}  // namespace
}  // namespace tern::engine
