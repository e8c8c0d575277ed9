// The flusher on the deterministic executor, against the in-memory store: what a run
// writes, what it marks, and how it survives a store that refuses.

#include "engine/flusher.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/clock.h"
#include "engine/persistence_hooks.h"
#include "engine/persistent_engine_fixture.h"
#include "engine/test_store.h"
#include "executor/manual_executor.h"

namespace tern::engine {
namespace {

class FlusherTest : public ::testing::Test {
 protected:
  FlusherTest()
      : data_(clock_),
        executor_(clock_),
        flusher_(std::make_shared<Flusher>(data_.engine, data_.vbuckets(), store_,
                                           executor::kServerOwner, clock_)) {
    flusher_->set_persisted_listener([this] { ++persisted_calls_; });
    const executor::TaskId id = executor_.schedule(flusher_, executor::kForever);
    data_.engine.persistence().set_dirty_listener([this, id] { executor_.wake(id); });
  }

  std::optional<storage::OwnedRecord> stored(uint16_t vbucket, std::string_view key) {
    return store_.get(vbucket, key);
  }

  uint64_t stored_high_seqno(uint16_t vbucket) {
    for (const storage::VBucketSeqno& entry : store_.high_seqnos()) {
      if (entry.vbucket == vbucket) return entry.seqno;
    }
    return 0;
  }

  ManualClock clock_;
  PersistentEngine data_;
  TestStore store_;
  executor::ManualExecutor executor_;
  std::shared_ptr<Flusher> flusher_;
  int persisted_calls_ = 0;
};

TEST_F(FlusherTest, SleepsUntilAWriteWakesIt) {
  executor_.run_ready();
  EXPECT_EQ(executor_.ready_count(), 0u);
  clock_.advance_seconds(3600);
  EXPECT_EQ(executor_.ready_count(), 0u) << "it must not poll";

  const MutationResult written = data_.set("k", "v", 3);
  ASSERT_EQ(written.status, Status::Success);
  EXPECT_EQ(executor_.ready_count(), 1u);
  EXPECT_EQ(store_.size(), 0u) << "the write is acknowledged before it is on disk";

  EXPECT_EQ(executor_.run_ready(), 1u);
  auto record = stored(3, "k");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->value, "v");
  EXPECT_EQ(record->cas, written.cas);
  EXPECT_EQ(record->seqno, written.seqno);
  EXPECT_EQ(record->flags, 7u);
  EXPECT_FALSE(record->deleted);
  EXPECT_EQ(stored_high_seqno(3), written.seqno);
  EXPECT_EQ(data_.vbuckets()[3].persisted_seqno(), written.seqno);
  EXPECT_EQ(data_.vbuckets()[2].persisted_seqno(), 0u);
  EXPECT_EQ(persisted_calls_, 1);
  EXPECT_EQ(flusher_->total_persisted(), 1u);
  EXPECT_EQ(flusher_->todo(), 0u);
  EXPECT_EQ(data_.engine.persistence().dirty_count(), 0u);

  clock_.advance_seconds(3600);
  EXPECT_EQ(executor_.ready_count(), 0u) << "back to sleep until the next write";
}

// A change numbered just after a run read the high seqnos, but queued before it took the
// queues, is written by that run while the persisted seqno stops below it. The next run
// takes nothing; it must still move the persisted seqno up, or a durable write waiting on
// that change would wait for some unrelated later write (or time out).
TEST_F(FlusherTest, ARunThatTakesNothingStillAdvancesThePersistedSeqnos) {
  const MutationResult written = data_.set("k", "v", 3);
  ASSERT_EQ(written.status, Status::Success);
  executor_.run_ready();
  ASSERT_EQ(data_.vbuckets()[3].persisted_seqno(), written.seqno);
  ASSERT_EQ(persisted_calls_, 1);

  // As if that run had also taken, and written, the change numbered next.
  const uint64_t taken_late = data_.vbuckets()[3].record_mutation();
  flusher_->flush_all();
  EXPECT_EQ(data_.vbuckets()[3].persisted_seqno(), taken_late);
  EXPECT_EQ(persisted_calls_, 2) << "waiting durable writes are told";

  flusher_->flush_all();
  EXPECT_EQ(persisted_calls_, 2) << "no news, no call";
}

// The same change in a running task: numbered after the run read the high seqnos, it sent no
// wake (the queues were not empty since the last take). The task must run again by itself,
// or nothing would report it persisted until some other write.
TEST_F(FlusherTest, ARunAfterWhichAVBucketNumberedMoreRunsAgainAndReportsIt) {
  ASSERT_EQ(data_.set("k", "v", 3).status, Status::Success);
  uint64_t taken_late = 0;
  store_.during_write = [&] {
    taken_late = data_.vbuckets()[3].record_mutation();
    store_.during_write = nullptr;
  };
  executor_.run_ready();
  EXPECT_LT(data_.vbuckets()[3].persisted_seqno(), taken_late);
  ASSERT_EQ(executor_.ready_count(), 1u) << "due again at once, with no wake";
  executor_.run_ready();
  EXPECT_EQ(data_.vbuckets()[3].persisted_seqno(), taken_late);
  EXPECT_EQ(persisted_calls_, 2) << "the batch, then the run that reports the late change";
  EXPECT_EQ(executor_.ready_count(), 0u) << "then it sleeps until the next write";
}

TEST_F(FlusherTest, WritesThatArriveTogetherShareOneSyncedBatch) {
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(data_.set("key" + std::to_string(i), "v", i % kTestVBucketCount).status,
              Status::Success);
  }
  EXPECT_EQ(executor_.ready_count(), 1u);
  executor_.run_ready();
  EXPECT_EQ(store_.write_calls, 1);
  EXPECT_EQ(store_.size(), 100u);
  EXPECT_EQ(flusher_->batches(), 1u);
  EXPECT_EQ(flusher_->total_persisted(), 100u);
  for (VBucket& vbucket : data_.vbuckets()) {
    EXPECT_EQ(vbucket.persisted_seqno(), vbucket.high_seqno());
    EXPECT_EQ(stored_high_seqno(vbucket.id()), vbucket.high_seqno());
  }
}

TEST_F(FlusherTest, TheFsyncPerWriteBaselineWritesEachChangeAloneAndPersistsTheSame) {
  flusher_->set_fsync_per_write(true);
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(data_.set("key" + std::to_string(i), "v", i % kTestVBucketCount).status,
              Status::Success);
  }
  executor_.run_ready();
  EXPECT_EQ(store_.write_calls, 100) << "one synced write per change";
  EXPECT_EQ(store_.size(), 100u);
  EXPECT_EQ(flusher_->batches(), 1u);
  EXPECT_EQ(flusher_->total_persisted(), 100u);
  EXPECT_EQ(persisted_calls_, 1);
  for (VBucket& vbucket : data_.vbuckets()) {
    EXPECT_EQ(vbucket.persisted_seqno(), vbucket.high_seqno());
    EXPECT_EQ(stored_high_seqno(vbucket.id()), vbucket.high_seqno());
  }

  flusher_->set_fsync_per_write(false);
  data_.set("a", "1");
  data_.set("b", "2");
  executor_.run_ready();
  EXPECT_EQ(store_.write_calls, 101) << "group commit again";
}

TEST_F(FlusherTest, ALaterChangeOfAKeyWinsOnDisk) {
  data_.set("k", "first");
  data_.set("k", "second");
  executor_.run_ready();
  EXPECT_EQ(stored(0, "k")->value, "second");
}

TEST_F(FlusherTest, ARefusedBatchIsKeptAndRetriedAfterTheWait) {
  store_.refuse_writes = 1;
  data_.set("a", "1");
  executor_.run_ready();
  EXPECT_EQ(flusher_->failures(), 1u);
  EXPECT_EQ(flusher_->todo(), 1u);
  EXPECT_EQ(store_.size(), 0u);
  EXPECT_EQ(data_.vbuckets()[0].persisted_seqno(), 0u);
  EXPECT_EQ(persisted_calls_, 0);

  // A write during the wait wakes the task, but it waits out the retry interval.
  data_.set("b", "2");
  executor_.run_ready();
  EXPECT_EQ(store_.write_calls, 1);
  clock_.advance_ms(static_cast<int64_t>(Flusher::kRetrySeconds * 1000) - 1);
  EXPECT_EQ(executor_.ready_count(), 0u);

  clock_.advance_ms(1);
  executor_.run_ready();
  EXPECT_EQ(store_.write_calls, 2);
  EXPECT_EQ(store_.size(), 2u) << "nothing of the refused batch may be lost";
  EXPECT_EQ(flusher_->todo(), 0u);
  EXPECT_EQ(flusher_->total_persisted(), 2u);
  EXPECT_EQ(data_.vbuckets()[0].persisted_seqno(), data_.vbuckets()[0].high_seqno());
  EXPECT_EQ(persisted_calls_, 1);
}

TEST_F(FlusherTest, FlushAllWritesEverythingQueuedWithoutTheExecutor) {
  for (int i = 0; i < 10; ++i) data_.set("key" + std::to_string(i), "v", i % 2);
  flusher_->flush_all();
  EXPECT_EQ(data_.engine.persistence().dirty_count(), 0u);
  EXPECT_EQ(store_.size(), 10u);
  EXPECT_EQ(data_.vbuckets()[1].persisted_seqno(), data_.vbuckets()[1].high_seqno());
}

TEST_F(FlusherTest, FlushAllGivesUpOnAStoreThatKeepsRefusingAndLosesNothing) {
  data_.set("k", "v");
  store_.refuse_writes = Flusher::kExitAttempts;
  EXPECT_THROW(flusher_->flush_all(), storage::StoreError);
  EXPECT_EQ(store_.size(), 0u);
  flusher_->flush_all();  // the disk is back
  EXPECT_EQ(store_.size(), 1u);
}

TEST_F(FlusherTest, ExpiriesAreStoredAsUnixTimesAndTombstonesWithTheirDeletionTime) {
  const int64_t now = clock_.unix_seconds();
  data_.set("expiring", "v", 0, /*expiry=*/100);
  data_.set("gone", "v");
  clock_.advance_seconds(10);
  ASSERT_EQ(data_.remove("gone").status, Status::Success);
  executor_.run_ready();

  EXPECT_EQ(stored(0, "expiring")->expiry, now + 100);
  auto tombstone = stored(0, "gone");
  ASSERT_TRUE(tombstone.has_value());
  EXPECT_TRUE(tombstone->deleted);
  EXPECT_EQ(tombstone->expiry, now + 10);
  EXPECT_EQ(tombstone->expiry, data_.engine.get_meta("gone").expiry)
      << "GET_META reports the same deletion time";
}

}  // namespace
}  // namespace tern::engine
