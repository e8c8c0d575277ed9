// The engine's hooks for a persistent bucket: the dirty queues and their listener, warmup's
// restore(). (Its value eviction: value_eviction_test.cc.)
#include "engine/persistence_hooks.h"

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine_fixture.h"
#include "engine/paging_hooks.h"
#include "engine/stored_item.h"
#include "engine/vbucket.h"

namespace tern::engine {
namespace {

// One shard, so that the queue's order is the order of the writes across keys too.
Config persistent_config() {
  Config config = small_config();
  config.shard_count = 1;
  config.persistent = true;
  return config;
}

class PersistenceHooksTest : public EngineTest {
 protected:
  PersistenceHooksTest() : EngineTest(persistent_config()) {
    for (uint16_t id = 0; id < kVBuckets; ++id) vbuckets_[id].set_id(id);
    engine_.persistence().set_vbuckets({vbuckets_.get(), kVBuckets});
  }

  MutationOptions on_vbucket() { return {.vbucket = &vbuckets_[7]}; }
  MutationResult set_on_vbucket(std::string_view key, std::string_view value) {
    return engine_.store(StoreMode::Set, key, value, 0, 0, 0, 0, on_vbucket());
  }

  // Takes what is queued and gives it back as written, as the flusher does
  // (PersistenceHooks::flushed).
  std::vector<ItemPtr> take() {
    std::vector<ItemPtr> taken;
    engine_.persistence().take_dirty(taken);
    engine_.persistence().flushed(taken);
    return taken;
  }

  // One line per queued change: "key value", or "key (deleted)" for a tombstone.
  std::vector<std::string> describe(const std::vector<ItemPtr>& items) {
    std::vector<std::string> lines;
    for (const ItemPtr& item : items) {
      lines.push_back(std::string(item->key()) +
                      (item->deleted ? " (deleted)" : " " + std::string(item->value())));
    }
    return lines;
  }

  static constexpr uint16_t kVBuckets = 8;
  std::unique_ptr<VBucket[]> vbuckets_ = std::make_unique<VBucket[]>(kVBuckets);
};

TEST_F(PersistenceHooksTest, EveryNewRevisionIsQueuedInOrderAsPublished) {
  set("a", "1");
  set("b", "2");
  engine_.concat(ConcatMode::Append, "a", "x", 0);
  engine_.arithmetic("n", true, 1, 5, 0, 0);
  engine_.touch("b", 100);  // a new expiry is a new revision to persist
  engine_.remove("a", 0);
  engine_.write_document("d", {.value = "{}", .deleted = true});  // created as deleted
  EXPECT_EQ(engine_.persistence().dirty_count(), 7u);
  const std::vector<ItemPtr> taken = take();
  EXPECT_EQ(describe(taken), (std::vector<std::string>{"a 1", "b 2", "a 1x", "n 5", "b 2",
                                                        "a (deleted)", "d (deleted)"}));
  EXPECT_NE(taken[4]->expiry_ms, 0);
  EXPECT_EQ(engine_.persistence().dirty_count(), 0u);
  EXPECT_TRUE(take().empty());
}

TEST_F(PersistenceHooksTest, QueuedItemsAreThePublishedOnesWithTheirVbucketAndSeqno) {
  const MutationResult first = set_on_vbucket("a", "1");
  const MutationResult removed = engine_.remove("a", 0, on_vbucket());
  const std::vector<ItemPtr> taken = take();
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0]->cas, first.cas);
  EXPECT_EQ(taken[0]->seqno, first.seqno);
  EXPECT_EQ(taken[1]->cas, removed.cas);
  EXPECT_EQ(taken[1]->seqno, removed.seqno);
  for (const ItemPtr& item : taken) EXPECT_EQ(item->vbucket, 7u);
  EXPECT_EQ(engine_.get_meta("a").cas, removed.cas);  // the tombstone queued is the one kept
}

TEST_F(PersistenceHooksTest, ALockIsNotQueuedAndKeepsTheItemsSeqno) {
  const MutationResult written = set("a", "1");
  take();
  const GetResult locked = engine_.get_locked("a", 0);
  ASSERT_EQ(locked.status, Status::Success);
  EXPECT_EQ(locked.item->seqno, written.seqno) << "on disk as soon as the item is";
  EXPECT_EQ(engine_.unlock("a", locked.item->cas), Status::Success);
  EXPECT_EQ(engine_.persistence().dirty_count(), 0u);
}

TEST_F(PersistenceHooksTest, FailedMutationsQueueNothing) {
  set("a", "1");
  take();
  EXPECT_EQ(engine_.store(StoreMode::Add, "a", "2", 0, 0, 0, 0).status, Status::Exists);
  EXPECT_EQ(engine_.remove("missing", 0).status, Status::NotFound);
  EXPECT_EQ(set("a", "2", 0, /*cas=*/12345).status, Status::CasMismatch);
  EXPECT_EQ(engine_.persistence().dirty_count(), 0u);
}

TEST_F(PersistenceHooksTest, ListenerIsCalledOncePerBatch) {
  int calls = 0;
  engine_.persistence().set_dirty_listener([&] { ++calls; });
  set("a", "1");
  EXPECT_EQ(calls, 1);
  set("b", "1");
  set("a", "2");
  EXPECT_EQ(calls, 1);  // the flusher was already told; it takes all three at once
  EXPECT_EQ(take().size(), 3u);
  EXPECT_EQ(calls, 1);
  set("c", "1");
  EXPECT_EQ(calls, 2);
  take();
  take();  // an empty take changes nothing
  EXPECT_EQ(calls, 2);
}

// --- Expiry: as much a change to persist as a remove. ---

// How an expired document is found: by a read, or by the expiry pager's sweep.
struct ExpiryFinder {
  const char* name;
  void (*find)(Engine& engine);
};

class ExpiryTombstoneTest : public PersistenceHooksTest,
                            public ::testing::WithParamInterface<ExpiryFinder> {};

TEST_P(ExpiryTombstoneTest, LeavesATombstoneNumberedOnTheDocumentsVbucketAndQueued) {
  int calls = 0;
  engine_.persistence().set_dirty_listener([&] { ++calls; });
  const MutationResult written =
      engine_.store(StoreMode::Set, "a", "1", 0, /*expiry=*/10, 0, 0, on_vbucket());
  take();
  clock_.advance_seconds(10);
  GetParam().find(engine_);
  EXPECT_EQ(value_of("a"), kMissing);
  const std::vector<ItemPtr> taken = take();
  ASSERT_EQ(taken.size(), 1u);
  const Item& tombstone = *taken[0];
  EXPECT_TRUE(tombstone.deleted);
  EXPECT_EQ(tombstone.key(), "a");
  EXPECT_EQ(tombstone.vbucket, 7u);
  EXPECT_EQ(tombstone.seqno, written.seqno + 1);
  EXPECT_EQ(vbuckets_[7].high_seqno(), written.seqno + 1);
  EXPECT_GT(tombstone.cas, written.cas);
  EXPECT_EQ(tombstone.rev_seqno, 2u);
  EXPECT_EQ(calls, 2);  // the write's batch, then the expiry's
  const MetaResult meta = engine_.get_meta("a");
  EXPECT_TRUE(meta.deleted);
  EXPECT_EQ(meta.cas, tombstone.cas);
  const Stats stats = engine_.stats();
  EXPECT_EQ(stats.curr_items, 0u);
  EXPECT_EQ(stats.expired_items, 1u);
  EXPECT_EQ(engine_.mem_used(), item_charge(1, 0));
}

INSTANTIATE_TEST_SUITE_P(
    Finders, ExpiryTombstoneTest,
    ::testing::Values(ExpiryFinder{"Get", [](Engine& e) { e.get("a"); }},
                      ExpiryFinder{"PurgeExpired",
                                   [](Engine& e) {
                                     for (size_t s = 0; s < e.paging().shard_count(); ++s) {
                                       e.paging().purge_expired(s, e.paging().shard_capacity(s));
                                     }
                                   }}),
    [](const ::testing::TestParamInfo<ExpiryFinder>& info) { return info.param.name; });

TEST_F(PersistenceHooksTest, AnExpiryUnderAPendingDurableWriteLeavesNoTombstone) {
  set("a", "1", /*expiry=*/10);
  const MutationResult prepare =
      engine_.store(StoreMode::Set, "a", "2", 0, 0, 0, 0, {.prepare = true});
  take();
  clock_.advance_seconds(10);
  EXPECT_EQ(value_of("a"), kMissing);
  EXPECT_EQ(engine_.persistence().dirty_count(),
            0u);  // the durable write, already queued, replaces it
  ASSERT_TRUE(engine_.persistence().commit_prepared("a", prepare.cas));
  EXPECT_EQ(value_of("a"), "2");
}

TEST(PersistentEngine, AnExpiryWithoutTombstonesStillQueuesOne) {
  Config config = persistent_config();
  config.metadata_purge_seconds = 0;
  ManualClock clock;
  Engine engine(config, clock);
  engine.store(StoreMode::Set, "a", "1", 0, 10, 0, 0);
  clock.advance_seconds(10);
  EXPECT_EQ(engine.get_meta("a").status, Status::NotFound);
  // Out of the index, the document is held by the dirty queue alone: charged until the
  // flusher is done with it (the tombstone, kept nowhere, is the queue's too).
  EXPECT_EQ(engine.mem_used(), item_charge(1, 1) + item_charge(1, 0));
  std::vector<ItemPtr> taken;
  engine.persistence().take_dirty(taken);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_TRUE(taken[1]->deleted);
  engine.persistence().flushed(taken);
  EXPECT_EQ(engine.mem_used(), 0u);
}

// Writers on many threads while the flusher's side takes: every change is taken exactly
// once, each key's changes in the order they were numbered, and no batch is left unsignalled.
TEST_F(PersistenceHooksTest, ConcurrentWritersLoseNoChangeAndKeepEachKeysOrder) {
  constexpr int kThreads = 4;
  constexpr int kWritesPerThread = 2000;
  std::atomic<int> signals{0};
  engine_.persistence().set_dirty_listener([&] { signals.fetch_add(1); });
  std::atomic<bool> writing{true};
  std::vector<ItemPtr> taken;
  int signals_before_last_take = 0;
  std::thread taker([&] {
    while (writing.load()) {
      signals_before_last_take = signals.load();
      engine_.persistence().take_dirty(taken);
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kWritesPerThread; ++i) {
        engine_.store(StoreMode::Set, "k" + std::to_string(i % 16), std::to_string(t), 0, 0, 0,
                      0, on_vbucket());
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  writing = false;
  taker.join();
  // Whatever the taker's last take missed was queued after it cleared the flag, so the
  // listener has been told since.
  if (engine_.persistence().dirty_count() > 0) {
    EXPECT_GT(signals.load(), signals_before_last_take);
  }
  engine_.persistence().take_dirty(taken);
  ASSERT_EQ(taken.size(), size_t{kThreads} * kWritesPerThread);
  std::map<std::string, uint64_t> last_seqno;
  for (const ItemPtr& item : taken) {
    uint64_t& last = last_seqno[std::string(item->key())];
    EXPECT_GT(item->seqno, last) << item->key();
    last = item->seqno;
  }
  EXPECT_EQ(engine_.persistence().dirty_count(), 0u);
}

// A delete must reach the disk even where memory keeps no tombstone.
TEST(PersistentEngine, ARemoveWithoutTombstonesStillQueuesOne) {
  Config config = persistent_config();
  config.metadata_purge_seconds = 0;
  ManualClock clock;
  Engine engine(config, clock);
  engine.store(StoreMode::Set, "a", "1", 0, 0, 0, 0);
  const uint64_t mem_with_item = engine.mem_used();
  ASSERT_EQ(engine.remove("a", 0).status, Status::Success);
  EXPECT_EQ(engine.get_meta("a").status, Status::NotFound);
  // Out of the index, the document and its tombstone are held by the dirty queue alone:
  // charged until the flusher is done with them.
  EXPECT_EQ(engine.mem_used(), mem_with_item + item_charge(1, 0));
  std::vector<ItemPtr> taken;
  engine.persistence().take_dirty(taken);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_TRUE(taken[1]->deleted);
  engine.persistence().flushed(taken);
  EXPECT_EQ(engine.mem_used(), 0u);
}

TEST(PersistentEngine, AnItemOnlyTheQueueHoldsIsChargedUntilTheFlusherIsDone) {
  ManualClock clock;
  Engine engine(persistent_config(), clock);
  engine.store(StoreMode::Set, "a", "1", 0, 0, 0, 0);
  EXPECT_EQ(engine.mem_used(), item_charge(1, 1));
  engine.store(StoreMode::Set, "a", "22", 0, 0, 0, 0);  // "1" is the queue's alone now
  EXPECT_EQ(engine.mem_used(), item_charge(1, 1) + item_charge(1, 2));
  std::vector<ItemPtr> taken;
  engine.persistence().take_dirty(taken);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(engine.mem_used(), item_charge(1, 1) + item_charge(1, 2));  // being written
  engine.store(StoreMode::Set, "a", "333", 0, 0, 0, 0);  // "22" leaves the index mid-write
  EXPECT_EQ(engine.mem_used(), item_charge(1, 1) + item_charge(1, 2) + item_charge(1, 3));
  engine.persistence().flushed(taken);
  EXPECT_EQ(engine.mem_used(), item_charge(1, 3));
  taken.clear();
  engine.persistence().take_dirty(taken);
  engine.persistence().flushed(taken);
  EXPECT_EQ(engine.mem_used(), item_charge(1, 3));  // in the index: charged there
}

TEST(EphemeralEngine, QueuesNothingAndNeverCallsTheListener) {
  ManualClock clock;
  Engine engine(small_config(), clock);
  int calls = 0;
  engine.persistence().set_dirty_listener([&] { ++calls; });
  engine.store(StoreMode::Set, "a", "1", 0, 0, 0, 0);
  engine.remove("a", 0);
  EXPECT_EQ(engine.persistence().dirty_count(), 0u);
  std::vector<ItemPtr> taken;
  engine.persistence().take_dirty(taken);
  EXPECT_TRUE(taken.empty());
  EXPECT_EQ(calls, 0);
}

// --- restore(): warmup's insert. ---

MutableItemPtr stored(std::string_view key, std::string_view value, uint64_t cas) {
  auto item = make_item(key, {value});
  item->cas = cas;
  item->rev_seqno = 3;
  item->seqno = 9;
  item->vbucket = 7;
  return item;
}

TEST_F(PersistenceHooksTest, RestoreInsertsTheItemAsStoredAndAlreadyPersisted) {
  ASSERT_EQ(engine_.persistence().restore(stored("a", "1", 500)),
            PersistenceHooks::Restored::Value);
  const GetResult got = engine_.get("a");
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.item->value(), "1");
  EXPECT_EQ(got.item->cas, 500u);
  EXPECT_EQ(got.item->rev_seqno, 3u);
  EXPECT_EQ(got.item->seqno, 9u);
  EXPECT_EQ(engine_.stats().curr_items, 1u);
  EXPECT_EQ(engine_.mem_used(), item_charge(1, 1));
  EXPECT_EQ(engine_.persistence().dirty_count(), 0u);  // it is on disk already
  // The next revision follows the restored one.
  set("a", "2");
  EXPECT_EQ(engine_.get_meta("a").rev_seqno, 4u);
}

// A key written through two vbuckets has two records on disk; they come back in either
// order, and the later write (higher CAS) wins.
struct RestoreOrderCase {
  const char* name;
  uint64_t first_cas, second_cas;
  bool second_deleted;
  const char* value;  // what get() then reads
};

class RestoreOrderTest : public PersistenceHooksTest,
                         public ::testing::WithParamInterface<RestoreOrderCase> {};

TEST_P(RestoreOrderTest, TheHigherCasWins) {
  const RestoreOrderCase& c = GetParam();
  ASSERT_EQ(engine_.persistence().restore(stored("a", "first", c.first_cas)),
            PersistenceHooks::Restored::Value);
  auto second = stored("a", c.second_deleted ? "" : "second", c.second_cas);
  second->deleted = c.second_deleted;
  if (c.second_deleted) second->expiry_ms = clock_.steady_ms() + 1000;
  const PersistenceHooks::Restored restored = engine_.persistence().restore(second);
  EXPECT_EQ(restored, c.second_cas > c.first_cas
                          ? (c.second_deleted ? PersistenceHooks::Restored::Metadata
                                              : PersistenceHooks::Restored::Value)
                          : PersistenceHooks::Restored::Skipped);
  EXPECT_EQ(value_of("a"), c.value);
  EXPECT_EQ(engine_.stats().curr_items, c.value == kMissing ? 0u : 1u);
  const uint64_t charge = item_charge(1, std::string_view(c.value == kMissing ? "" : c.value).size());
  EXPECT_EQ(engine_.mem_used(), charge) << "the replaced item is no longer charged";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RestoreOrderTest,
    ::testing::Values(RestoreOrderCase{"NewerSecond", 1, 2, false, "second"},
                      RestoreOrderCase{"OlderSecond", 2, 1, false, "first"},
                      RestoreOrderCase{"SameCas", 2, 2, false, "first"},
                      RestoreOrderCase{"NewerTombstoneSecond", 1, 2, true, "<NotFound>"},
                      RestoreOrderCase{"OlderTombstoneSecond", 2, 1, true, "first"}),
    [](const ::testing::TestParamInfo<RestoreOrderCase>& info) { return info.param.name; });

TEST_F(PersistenceHooksTest, AnExpiredLaterWriteRemovesTheEarlierOneRestored) {
  ASSERT_EQ(engine_.persistence().restore(stored("a", "first", 1)),
            PersistenceHooks::Restored::Value);
  auto expired = stored("a", "second", 2);
  expired->expiry_ms = clock_.steady_ms() - 1;
  EXPECT_EQ(engine_.persistence().restore(expired), PersistenceHooks::Restored::Skipped);
  EXPECT_EQ(engine_.get_meta("a").status, Status::NotFound);
  EXPECT_EQ(engine_.mem_used(), 0u);
}

TEST_F(PersistenceHooksTest, RestoreSkipsExpiredDocuments) {
  auto item = stored("a", "1", 1);
  item->expiry_ms = clock_.steady_ms() - 1;
  EXPECT_EQ(engine_.persistence().restore(item), PersistenceHooks::Restored::Skipped);
  EXPECT_EQ(engine_.get_meta("a").status, Status::NotFound);
  EXPECT_EQ(engine_.mem_used(), 0u);
}

TEST_F(PersistenceHooksTest, RestoredTombstonesCountAsTombstones) {
  auto tombstone = stored("a", "", 1);
  tombstone->deleted = true;
  tombstone->expiry_ms = clock_.steady_ms() + 1000;
  ASSERT_EQ(engine_.persistence().restore(tombstone), PersistenceHooks::Restored::Metadata);
  EXPECT_EQ(value_of("a"), kMissing);
  EXPECT_TRUE(engine_.get_meta("a").deleted);
  EXPECT_EQ(engine_.stats().curr_items, 0u);
  EXPECT_EQ(engine_.store(StoreMode::Add, "a", "1", 0, 0, 0, 0).status, Status::Success);
}

TEST_F(PersistenceHooksTest, RestoreLoadsValuesToTheLowWatermarkThenMetadataToTheHigh) {
  const std::string value(1000, 'v');
  const auto key = [](int i) { return "k" + std::to_string(i); };
  int values = 0;
  while (engine_.persistence().restore(stored(key(values), value, 1)) ==
         PersistenceHooks::Restored::Value)
    ++values;
  EXPECT_GT(values, 0);
  EXPECT_EQ(value_of(key(values)), "<NotResident>") << "the first past the low watermark";
  EXPECT_LE(engine_.mem_used() - item_charge(key(values).size(), 0),
            engine_.low_watermark_bytes());
  int keys = values + 1;
  PersistenceHooks::Restored restored;
  while ((restored = engine_.persistence().restore(stored(key(keys), value, 1))) ==
         PersistenceHooks::Restored::Metadata) {
    ++keys;
  }
  EXPECT_EQ(restored, PersistenceHooks::Restored::Full);
  EXPECT_LE(engine_.mem_used(), engine_.high_watermark_bytes());
  EXPECT_GT(engine_.mem_used() + item_charge(key(keys).size(), 0),
            engine_.high_watermark_bytes());
  EXPECT_EQ(engine_.get_meta(key(keys)).status, Status::NotFound) << "Full inserts nothing";
  const Stats stats = engine_.stats();
  EXPECT_EQ(stats.curr_items, static_cast<uint64_t>(keys));
  EXPECT_EQ(stats.num_non_resident, static_cast<uint64_t>(keys - values));
  EXPECT_EQ(value_of(key(0)), value);
  EXPECT_EQ(engine_.persistence().evicted(key(keys - 1))->vbucket, 7u)
      << "filed where it was stored";
}

// CAS = sequence << shard bits | shard index, and the disk may hold CAS values from another
// shard count: a new write must still get a larger CAS than any restored.
struct CasFloorCase {
  const char* name;
  uint64_t restored_cas;
};

class RestoreCasFloorTest : public ::testing::TestWithParam<CasFloorCase> {};

TEST_P(RestoreCasFloorTest, NewWritesGetALargerCasThanAnyRestored) {
  Config config = small_config();  // 4 shards: 2 bits
  config.persistent = true;
  ManualClock clock;
  Engine engine(config, clock);
  ASSERT_EQ(engine.persistence().restore(stored("restored", "1", GetParam().restored_cas)),
            PersistenceHooks::Restored::Value);
  for (int i = 0; i < 8; ++i) {  // every shard's next CAS
    const MutationResult written =
        engine.store(StoreMode::Set, "k" + std::to_string(i), "1", 0, 0, 0, 0);
    EXPECT_GT(written.cas, GetParam().restored_cas) << "key k" << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RestoreCasFloorTest,
    ::testing::Values(CasFloorCase{"SameShardCount", (uint64_t{1000} << 2) | 3},
                      CasFloorCase{"MoreShardsBefore", (uint64_t{1000} << 10) | 1023},
                      CasFloorCase{"OneShardBefore", 123456789}),
    [](const ::testing::TestParamInfo<CasFloorCase>& info) { return info.param.name; });

}  // namespace
}  // namespace tern::engine
