// GET_META, revision seqnos and the tombstones a remove leaves.
#include "engine/engine_fixture.h"
#include "engine/paging_hooks.h"
#include "engine/stored_item.h"

namespace tern::engine {
namespace {

void purge_all(Engine& engine) {
  for (size_t s = 0; s < engine.paging().shard_count(); ++s)
    engine.paging().purge_expired(s, 1 << 20);
}

TEST_F(EngineTest, GetMetaReportsALiveDocumentsMetadata) {
  const uint64_t cas = engine_.store(StoreMode::Set, "k", "value", 0xcafe, 100, 0x01, 0).cas;
  const MetaResult meta = engine_.get_meta("k");
  ASSERT_EQ(meta.status, Status::Success);
  EXPECT_FALSE(meta.deleted);
  EXPECT_EQ(meta.flags, 0xcafeu);
  EXPECT_EQ(meta.expiry, clock_.unix_seconds() + 100);
  EXPECT_EQ(meta.rev_seqno, 1u);
  EXPECT_EQ(meta.datatype, 0x01);
  EXPECT_EQ(meta.cas, cas);
}

TEST_F(EngineTest, GetMetaReportsNoExpiryAsZeroAndAnAbsoluteOneAsGiven) {
  set("never", "v");
  EXPECT_EQ(engine_.get_meta("never").expiry, 0u);
  const auto at = static_cast<uint32_t>(clock_.unix_seconds() + 5000);
  set("at", "v", at);
  clock_.advance_seconds(1000);
  EXPECT_EQ(engine_.get_meta("at").expiry, at);
}

TEST_F(EngineTest, GetMetaOfAMissingOrExpiredKeyIsNotFound) {
  EXPECT_EQ(engine_.get_meta("nope").status, Status::NotFound);
  set("k", "v", 10);
  clock_.advance_seconds(10);
  EXPECT_EQ(engine_.get_meta("k").status, Status::NotFound);
}

TEST_F(EngineTest, GetMetaOfALockedDocumentHidesItsCas) {
  set("k", "v");
  ASSERT_EQ(engine_.get_locked("k", 5).status, Status::Success);
  EXPECT_EQ(engine_.get_meta("k").cas, Engine::kLockedCas);
}

TEST_F(EngineTest, GetMetaCountsNothing) {
  set("k", "v");
  const Stats before = engine_.stats();
  engine_.get_meta("k");
  engine_.get_meta("missing");
  const Stats after = engine_.stats();
  EXPECT_EQ(after.cmd_get, before.cmd_get);
  EXPECT_EQ(after.get_hits, before.get_hits);
  EXPECT_EQ(after.get_misses, before.get_misses);
}

TEST_F(EngineTest, EveryMutationIsANewRevisionButALockIsNot) {
  auto rev = [&] { return engine_.get_meta("k").rev_seqno; };
  set("k", "1");
  EXPECT_EQ(rev(), 1u);
  set("k", "2");
  EXPECT_EQ(rev(), 2u);
  engine_.concat(ConcatMode::Append, "k", "0", 0);
  EXPECT_EQ(rev(), 3u);
  engine_.arithmetic("k", true, 1, 0, 0, 0);
  EXPECT_EQ(rev(), 4u);
  engine_.touch("k", 100);
  EXPECT_EQ(rev(), 5u);
  engine_.get_and_touch("k", 200);
  EXPECT_EQ(rev(), 6u);
  const uint64_t lock_cas = engine_.get_locked("k", 5).item->cas;
  EXPECT_EQ(rev(), 6u);
  engine_.unlock("k", lock_cas);
  EXPECT_EQ(rev(), 6u);
  engine_.remove("k", 0);
  EXPECT_EQ(rev(), 7u);
}

TEST_F(EngineTest, RemoveLeavesATombstoneThatGetMetaReportsDeleted) {
  engine_.store(StoreMode::Set, "k", "value", 0xcafe, 0, 0x01, 0);
  clock_.advance_seconds(7);
  const int64_t removed_at = clock_.unix_seconds();
  const MutationResult removed = engine_.remove("k", 0);
  ASSERT_EQ(removed.status, Status::Success);
  clock_.advance_seconds(60);
  const MetaResult meta = engine_.get_meta("k");
  ASSERT_EQ(meta.status, Status::Success);
  EXPECT_TRUE(meta.deleted);
  EXPECT_EQ(meta.cas, removed.cas);
  EXPECT_EQ(meta.rev_seqno, 2u);
  EXPECT_EQ(meta.flags, 0xcafeu);
  EXPECT_EQ(meta.datatype, 0);  // nothing is left to have a type
  EXPECT_EQ(meta.expiry, removed_at);  // Couchbase reports a tombstone's deletion time
}

TEST_F(EngineTest, ATombstoneIsAbsentToEveryOtherOperation) {
  set("k", "v");
  ASSERT_EQ(engine_.remove("k", 0).status, Status::Success);
  const uint64_t tombstone_cas = engine_.get_meta("k").cas;
  EXPECT_EQ(value_of("k"), kMissing);
  EXPECT_EQ(engine_.get_and_touch("k", 10).status, Status::NotFound);
  EXPECT_EQ(engine_.touch("k", 10).status, Status::NotFound);
  EXPECT_EQ(engine_.get_locked("k", 0).status, Status::NotFound);
  EXPECT_EQ(engine_.unlock("k", tombstone_cas), Status::NotFound);
  EXPECT_EQ(engine_.remove("k", 0).status, Status::NotFound);
  EXPECT_EQ(engine_.remove("k", tombstone_cas).status, Status::NotFound);
  EXPECT_EQ(set("k", "x", 0, tombstone_cas).status, Status::NotFound);
  EXPECT_EQ(engine_.store(StoreMode::Replace, "k", "x", 0, 0, 0, 0).status, Status::NotFound);
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", "x", 0).status, Status::NotStored);
  EXPECT_EQ(engine_.arithmetic("k", true, 1, 0, 0xffffffff, 0).status, Status::NotFound);
  EXPECT_TRUE(engine_.get_meta("k").deleted) << "none of the failures above touched it";
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.curr_items, 0u);
  EXPECT_EQ(stats.total_items, 1u);
  EXPECT_EQ(stats.delete_hits, 1u);
  EXPECT_EQ(stats.delete_misses, 1u);  // the CAS delete failed as a CAS miss, as for an absent key
  EXPECT_EQ(stats.cas_misses, 2u);
  EXPECT_EQ(stats.mem_used, item_charge(1, 0));
}

TEST_F(EngineTest, AddOverATombstoneCreatesTheNextRevision) {
  set("k", "v");
  set("k", "v2");
  engine_.remove("k", 0);
  ASSERT_EQ(engine_.store(StoreMode::Add, "k", "back", 0, 0, 0, 0).status, Status::Success);
  EXPECT_EQ(value_of("k"), "back");
  const MetaResult meta = engine_.get_meta("k");
  EXPECT_FALSE(meta.deleted);
  EXPECT_EQ(meta.rev_seqno, 4u);
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.curr_items, 1u);
  EXPECT_EQ(stats.mem_used, item_charge(1, 4));
}

TEST_F(EngineTest, ArithmeticOverATombstoneCreatesTheCounter) {
  set("k", "5");
  engine_.remove("k", 0);
  const ArithmeticResult result = engine_.arithmetic("k", true, 1, 10, 0, 0);
  ASSERT_EQ(result.status, Status::Success);
  EXPECT_EQ(result.value, 10u);
  EXPECT_EQ(engine_.get_meta("k").rev_seqno, 3u);
}

TEST_F(EngineTest, ATombstoneIsPurgedAfterTheMetadataPurgeInterval) {
  const uint32_t interval = engine_.config().metadata_purge_seconds;
  ASSERT_EQ(interval, 3600u);  // the default
  set("k", "v");
  engine_.remove("k", 0);
  clock_.advance_seconds(interval - 1);
  purge_all(engine_);
  EXPECT_TRUE(engine_.get_meta("k").deleted);
  clock_.advance_seconds(1);
  purge_all(engine_);
  EXPECT_EQ(engine_.get_meta("k").status, Status::NotFound);
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.mem_used, 0u);
  EXPECT_EQ(stats.expired_items, 0u) << "a tombstone was never an item";
  EXPECT_EQ(stats.reclaimed_bytes, 0u);
  // The key starts over.
  set("k", "new");
  EXPECT_EQ(engine_.get_meta("k").rev_seqno, 1u);
}

TEST_F(EngineTest, ATombstoneDueForPurgingIsDroppedWhenLookedUp) {
  set("k", "v");
  engine_.remove("k", 0);
  clock_.advance_seconds(engine_.config().metadata_purge_seconds);
  EXPECT_EQ(engine_.get_meta("k").status, Status::NotFound);
  EXPECT_EQ(engine_.stats().mem_used, 0u);
}

TEST_F(EngineTest, FlushDropsTombstones) {
  set("k", "v");
  engine_.remove("k", 0);
  engine_.flush(0);
  EXPECT_EQ(engine_.get_meta("k").status, Status::NotFound);
  EXPECT_EQ(engine_.stats().mem_used, 0u);
}

TEST_F(EngineTest, EvictionMayDropTombstonesWithoutCountingThem) {
  for (int i = 0; i < 10; ++i) set("k" + std::to_string(i), "v");
  for (int i = 0; i < 10; ++i) engine_.remove("k" + std::to_string(i), 0);
  const uint64_t tombstones = engine_.mem_used();
  ASSERT_EQ(tombstones, 10 * item_charge(2, 0));
  EXPECT_EQ(engine_.paging().evict(tombstones), tombstones);
  EXPECT_EQ(engine_.get_meta("k3").status, Status::NotFound);
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.mem_used, 0u);
  EXPECT_EQ(stats.evictions, 0u);
  EXPECT_EQ(stats.reclaimed_bytes, 0u);
}

}  // namespace
}  // namespace tern::engine
