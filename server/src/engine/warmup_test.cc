// Warmup on the deterministic executor: an engine's data written by a flusher to the
// in-memory store comes back into a fresh engine as it was.

#include "engine/warmup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "common/clock.h"
#include "engine/bg_fetcher.h"
#include "engine/flusher.h"
#include "engine/paging_hooks.h"
#include "engine/persistence_hooks.h"
#include "engine/persistent_engine_fixture.h"
#include "engine/stored_item.h"
#include "engine/test_store.h"
#include "executor/manual_executor.h"

namespace tern::engine {
namespace {

class WarmupTest : public ::testing::Test {
 protected:
  WarmupTest() : before_(clock_), executor_(clock_) {}

  // Flushes everything `before_` holds, as a clean shutdown would.
  void flush() {
    Flusher(before_.engine, before_.vbuckets(), store_, executor::kServerOwner, clock_)
        .flush_all();
  }

  // A restarted engine, warmed up from the store.
  std::unique_ptr<PersistentEngine> restart(Config config = persistent_config()) {
    auto after = std::make_unique<PersistentEngine>(clock_, config);
    warmup_ = std::make_shared<Warmup>(after->engine, after->vbuckets(), store_,
                                       executor::kServerOwner, clock_);
    warmup_->set_done_listener([this] { ++done_calls_; });
    executor_.schedule(warmup_);
    EXPECT_FALSE(warmup_->done());
    EXPECT_EQ(warmup_state_name(warmup_->state()), "initialize");
    EXPECT_EQ(executor_.run_ready(), 1u);
    EXPECT_EQ(executor_.ready_count(), 0u) << "warmup runs once";
    return after;
  }

  ManualClock clock_;
  PersistentEngine before_;
  TestStore store_;
  executor::ManualExecutor executor_;
  std::shared_ptr<Warmup> warmup_;
  int done_calls_ = 0;
};

TEST_F(WarmupTest, RestoresDocumentsTombstonesAndSeqnos) {
  const MutationResult a = before_.set("a", "alpha", 1);
  const MutationResult b = before_.set("b", "beta", 2, /*expiry=*/500);
  before_.set("gone", "x", 2);
  ASSERT_EQ(before_.remove("gone", 2).status, Status::Success);
  const MetaResult b_meta = before_.engine.get_meta("b");
  const MetaResult gone_meta = before_.engine.get_meta("gone");
  flush();

  auto after = restart();
  EXPECT_TRUE(warmup_->done());
  EXPECT_EQ(warmup_state_name(warmup_->state()), "done");
  EXPECT_EQ(done_calls_, 1) << "ternd logs its readiness from this";
  EXPECT_EQ(warmup_->loaded_values(), 2u);
  EXPECT_EQ(warmup_->loaded_keys(), 3u) << "the tombstone's too";
  EXPECT_EQ(warmup_->skipped(), 0u);

  EXPECT_EQ(after->value_of("a"), "alpha");
  EXPECT_EQ(after->value_of("b"), "beta");
  EXPECT_EQ(after->value_of("gone"), "<NotFound>");
  EXPECT_EQ(after->engine.get("a").item->cas, a.cas);
  EXPECT_EQ(after->engine.get("b").item->cas, b.cas);

  const MetaResult b_after = after->engine.get_meta("b");
  EXPECT_EQ(b_after.expiry, b_meta.expiry);
  EXPECT_EQ(b_after.flags, b_meta.flags);
  EXPECT_EQ(b_after.rev_seqno, b_meta.rev_seqno);
  const MetaResult gone_after = after->engine.get_meta("gone");
  EXPECT_EQ(gone_after.status, Status::Success);
  EXPECT_TRUE(gone_after.deleted);
  EXPECT_EQ(gone_after.cas, gone_meta.cas);
  EXPECT_EQ(gone_after.expiry, gone_meta.expiry) << "the same deletion time";

  for (uint16_t id = 0; id < kTestVBucketCount; ++id) {
    EXPECT_EQ(after->vbuckets()[id].high_seqno(), before_.vbuckets()[id].high_seqno()) << id;
    EXPECT_EQ(after->vbuckets()[id].persisted_seqno(), before_.vbuckets()[id].high_seqno()) << id;
  }
  EXPECT_EQ(after->engine.persistence().dirty_count(), 0u)
      << "what came from disk is not written back";
  after->engine.paging().evict(after->engine.mem_used());
  EXPECT_TRUE(after->engine.persistence().evicted("a").has_value()) << "it is on disk: evictable";
}

TEST_F(WarmupTest, AWriteAfterWarmupGetsAHigherSeqnoAndCas) {
  const MutationResult old = before_.set("a", "old", 1);
  flush();
  auto after = restart();
  const MutationResult fresh = after->set("b", "new", 1);
  EXPECT_GT(fresh.seqno, old.seqno);
  EXPECT_GT(fresh.cas, old.cas);
}

// A plain write is acknowledged before the flusher has it: a crash loses it, yet its client
// may still hold its CAS. The wall clock has moved on by the restart, and so do CAS values.
TEST_F(WarmupTest, CasValuesAfterARestartExceedEveryCasIssuedBeforeItEvenUnpersisted) {
  before_.set("a", "on disk");
  flush();
  uint64_t highest = 0;
  for (int i = 0; i < 100; ++i) highest = std::max(highest, before_.set("a", "lost").cas);
  clock_.advance_seconds(1);
  auto after = restart();  // without the flush: as after kill -9
  ASSERT_EQ(after->value_of("a"), "on disk");
  for (int i = 0; i < 100; ++i) {
    const std::string key = "k" + std::to_string(i);
    EXPECT_GT(after->set(key, "new").cas, highest) << key;
  }
  EXPECT_GT(after->set("a", "new").cas, highest) << "the very key whose CAS was lost";
}

// With the clock where it was (or set back), what is on disk still sets the floor: also the
// records a full quota left there.
TEST_F(WarmupTest, RecordsLeftOnDiskByAFullQuotaStillRaiseTheCasFloor) {
  const std::string value(1000, 'v');
  for (int i = 0; i < 100; ++i) before_.set("key" + std::to_string(i), value, 0);
  // The highest CAS, in the vbucket scanned last.
  uint64_t highest = 0;
  for (int i = 0; i < 200; ++i) highest = before_.set("zz", value, kTestVBucketCount - 1).cas;
  flush();

  auto after = restart(persistent_config(/*quota_bytes=*/20 * item_charge(6, value.size())));
  ASSERT_GT(warmup_->skipped(), 0u);
  ASSERT_EQ(after->engine.get_meta("zz").status, Status::NotFound) << "left on disk";
  for (int i = 0; i < 20; ++i) {
    const std::string key = "new" + std::to_string(i);
    const MutationResult added = after->set(key, "");
    ASSERT_EQ(added.status, Status::Success) << key;
    EXPECT_GT(added.cas, highest) << key;
  }
}

// An expiry found while warmup is still reading numbers its tombstone above every CAS on
// disk, also those of records not read yet (a later write of the key under another vbucket
// would otherwise beat the tombstone and bring the document back).
TEST_F(WarmupTest, AnExpiryDuringWarmupNumbersItsTombstoneAboveEveryCasOnDisk) {
  before_.set("a", "expires", 0, /*expiry=*/10);
  uint64_t highest = 0;
  for (int i = 0; i < 100; ++i) highest = before_.set("b", "later", 1).cas;
  flush();
  clock_.advance_seconds(1);

  PersistentEngine after(clock_);
  Warmup warmup(after.engine, after.vbuckets(), store_, executor::kServerOwner, clock_);
  store_.before_visit = [&](const storage::Record& record) {
    if (record.key != "b") return;
    clock_.advance_seconds(10);
    for (size_t shard = 0; shard < after.engine.paging().shard_count(); ++shard) {
      after.engine.paging().purge_expired(shard, after.engine.paging().shard_capacity(shard));
    }
  };
  EXPECT_FALSE(warmup.run());
  ASSERT_TRUE(warmup.done());
  const MetaResult tombstone = after.engine.get_meta("a");
  ASSERT_TRUE(tombstone.deleted);
  EXPECT_GT(tombstone.cas, highest);
}

TEST_F(WarmupTest, ATombstoneIsPurgedWhenItsIntervalEndsAfterTheRestart) {
  before_.set("gone", "x");
  before_.remove("gone");
  flush();
  clock_.advance_seconds(60);
  auto after = restart();
  ASSERT_TRUE(after->engine.get_meta("gone").deleted);
  clock_.advance_seconds(after->engine.config().metadata_purge_seconds - 60 + 1);
  for (size_t shard = 0; shard < after->engine.paging().shard_count(); ++shard) {
    after->engine.paging().purge_expired(shard, after->engine.paging().shard_capacity(shard));
  }
  EXPECT_EQ(after->engine.get_meta("gone").status, Status::NotFound);
}

TEST_F(WarmupTest, LoadsOnlyMetadataPastTheLowWatermarkAndThoseValuesFetchBack) {
  const std::string value(1000, 'v');
  constexpr int kDocuments = 100;
  const auto key = [](int i) { return "key" + std::to_string(i); };
  for (int i = 0; i < kDocuments; ++i) {
    ASSERT_EQ(before_.set(key(i), value, i % kTestVBucketCount).status, Status::Success);
  }
  flush();

  // Room for about 60 values below the low watermark, and the other keys' metadata.
  auto after = restart(persistent_config(/*quota_bytes=*/80 * item_charge(6, value.size())));
  EXPECT_TRUE(warmup_->done());
  EXPECT_EQ(warmup_->skipped(), 0u);
  EXPECT_EQ(warmup_->loaded_keys(), uint64_t{kDocuments});
  EXPECT_GT(warmup_->loaded_values(), 0u);
  EXPECT_LT(warmup_->loaded_values(), uint64_t{kDocuments});
  const Stats stats = after->engine.stats();
  EXPECT_EQ(stats.curr_items, uint64_t{kDocuments});
  EXPECT_EQ(stats.num_non_resident, kDocuments - warmup_->loaded_values());

  BgFetcher fetcher(after->engine, store_);
  fetcher.start(executor_, executor::kServerOwner);
  int told = 0;
  for (int i = 0; i < kDocuments; ++i) {
    const GetResult got = after->engine.get(key(i));
    if (got.status == Status::Success) continue;
    ASSERT_EQ(got.status, Status::NotResident) << key(i);
    fetcher.fetch(key(i), 0, [&told] { ++told; });
  }
  executor_.run_ready();
  EXPECT_EQ(static_cast<uint64_t>(told), kDocuments - warmup_->loaded_values());
  EXPECT_EQ(fetcher.fetched(), kDocuments - warmup_->loaded_values());
  for (int i = 0; i < kDocuments; ++i) EXPECT_EQ(after->value_of(key(i)), value) << key(i);
}

TEST_F(WarmupTest, StopsLoadingWhenEvenMetadataDoesNotFitAndCountsWhatStayedOnDisk) {
  const std::string value(1000, 'v');
  constexpr int kDocuments = 400;
  for (int i = 0; i < kDocuments; ++i) {
    ASSERT_EQ(before_.set("key" + std::to_string(i), value, i % kTestVBucketCount).status,
              Status::Success);
  }
  flush();

  auto after = restart(persistent_config(/*quota_bytes=*/50 * item_charge(6, value.size())));
  EXPECT_TRUE(warmup_->done()) << "a full quota ends warmup; it does not hang the bucket";
  EXPECT_GT(warmup_->loaded_values(), 0u);
  EXPECT_GT(warmup_->loaded_keys(), warmup_->loaded_values()) << "metadata past the values";
  EXPECT_GT(warmup_->skipped(), 0u);
  EXPECT_EQ(warmup_->loaded_keys() + warmup_->skipped(), uint64_t{kDocuments});
  EXPECT_EQ(after->engine.stats().curr_items, warmup_->loaded_keys());
  EXPECT_LE(after->engine.mem_used(), after->engine.high_watermark_bytes());
  for (uint16_t id = 0; id < kTestVBucketCount; ++id) {
    EXPECT_EQ(after->vbuckets()[id].high_seqno(), before_.vbuckets()[id].high_seqno())
        << "seqnos come back whole even when values do not";
  }
}

// Stopping the bucket cancels the task (Executor::unregister, which then waits for the run):
// the scan stops at the next record instead of loading the rest.
TEST_F(WarmupTest, ACancelStopsTheScanAndLeavesTheBucketNotWarm) {
  for (int i = 0; i < 10; ++i) before_.set("key" + std::to_string(i), "v");
  flush();
  int visits = 0;
  store_.before_visit = [&](const storage::Record&) {
    if (++visits == 3) executor_.cancel(warmup_->id());
  };
  auto after = restart();
  EXPECT_EQ(visits, 3) << "no record read after the cancel";
  EXPECT_FALSE(warmup_->done());
  EXPECT_EQ(warmup_->state(), WarmupState::LoadingData);
  EXPECT_EQ(warmup_->loaded_keys(), 2u);
  EXPECT_EQ(after->engine.stats().curr_items, 2u);
  EXPECT_EQ(executor_.ready_count(), 0u);
  EXPECT_EQ(done_calls_, 0) << "not ready: ternd must not say it is";
}

TEST_F(WarmupTest, AnEmptyStoreWarmsAtOnce) {
  auto after = restart();
  EXPECT_TRUE(warmup_->done());
  EXPECT_EQ(warmup_->loaded_values(), 0u);
  EXPECT_EQ(after->vbuckets()[0].high_seqno(), 0u);
}

}  // namespace
}  // namespace tern::engine
