// Flushing a persistent bucket (Persistence::flush, Engine::flush, the flusher's clear): memory
// at once, the disk in the flusher's next batch, and nothing written after the flush lost to
// it, wherever the flush falls between the flusher's takes and writes.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "engine/persistence.h"
#include "engine/persistence_hooks.h"
#include "engine/persistent_engine_fixture.h"
#include "engine/stored_item.h"
#include "engine/test_store.h"
#include "executor/manual_executor.h"
#include "storage/store_rocksdb.h"
#include "storage/temp_dir.h"

namespace tern::engine {
namespace {

constexpr executor::OwnerId kOwner = 24;

// One start of a persistent engine on `store`, warm.
struct Node {
  Node(const Clock& clock, std::unique_ptr<storage::Store> store,
       executor::ManualExecutor& executor)
      : data(clock), persistence(data.engine, data.vbuckets(), std::move(store), clock) {
    persistence.start(executor, kOwner);
    executor.run_ready();
  }
  PersistentEngine data;
  Persistence persistence;
};

class PersistentFlushTest : public ::testing::Test {
 protected:
  PersistentFlushTest() : executor_(clock_) {
    auto owned = std::make_unique<TestStore>();
    store_ = owned.get();
    node_ = std::make_unique<Node>(clock_, std::move(owned), executor_);
  }
  ~PersistentFlushTest() override { executor_.unregister(kOwner); }

  PersistentEngine& data() { return node_->data; }

  // Flushes, counting the acknowledgements in acknowledged_.
  void flush() {
    ASSERT_TRUE(node_->persistence.flush([this] { ++acknowledged_; }));
  }

  // The keys the store holds, in its order.
  std::vector<std::string> stored_keys() {
    std::vector<std::string> keys;
    store_->scan([&keys](const storage::Record& record) {
      keys.emplace_back(record.key);
      return true;
    });
    return keys;
  }

  ManualClock clock_;
  executor::ManualExecutor executor_;
  TestStore* store_ = nullptr;
  std::unique_ptr<Node> node_;
  int acknowledged_ = 0;
};

using Keys = std::vector<std::string>;

TEST_F(PersistentFlushTest, MemoryGoesAtOnceAndTheDiskWithTheNextBatchWhichAcknowledgesIt) {
  data().set("a", "1", 1);
  data().set("b", "2", 2);
  executor_.run_ready();
  ASSERT_EQ(stored_keys(), (Keys{"a", "b"}));

  flush();
  EXPECT_EQ(data().value_of("a"), "<NotFound>");
  EXPECT_EQ(data().engine.stats().curr_items, 0u);
  EXPECT_EQ(acknowledged_, 0) << "not acknowledged before the disk is cleared";
  EXPECT_EQ(stored_keys(), (Keys{"a", "b"}));
  EXPECT_EQ(executor_.ready_count(), 1u) << "the flush wakes the flusher, with nothing queued";

  executor_.run_ready();
  EXPECT_TRUE(stored_keys().empty());
  EXPECT_EQ(acknowledged_, 1);
  EXPECT_EQ(store_->clears, 1);
  EXPECT_EQ(node_->persistence.flusher()->flushes_on_disk(), 1u);
  // The next batch is an ordinary one.
  data().set("c", "3", 1);
  executor_.run_ready();
  EXPECT_EQ(stored_keys(), (Keys{"c"}));
  EXPECT_EQ(store_->clears, 1);
}

// Changes still queued at the flush go with it; those made after it, a key written before
// it among them, are written after its clear in the same batch.
TEST_F(PersistentFlushTest, QueuedChangesGoWithTheFlushAndLaterOnesSurviveItsClear) {
  data().set("a", "old", 1);
  data().set("b", "old", 2);
  executor_.run_ready();
  data().set("queued", "never written", 3);
  data().remove("b", 2);
  flush();
  EXPECT_EQ(data().engine.persistence().dirty_count(), 0u)
      << "the queued changes went with the flush";
  const MutationResult again = data().set("a", "new", 1);
  data().set("later", "v", 4);

  executor_.run_ready();
  EXPECT_EQ(stored_keys(), (Keys{"a", "later"}));
  EXPECT_EQ(store_->get(1, "a")->value, "new");
  EXPECT_EQ(store_->get(1, "a")->cas, again.cas);
  EXPECT_EQ(acknowledged_, 1);
  EXPECT_EQ(data().vbuckets()[1].persisted_seqno(), again.seqno);
}

// The flusher took a batch before the flush and writes it while the flush and a later write
// happen: that batch lands first, the clear after it, then the later write.
TEST_F(PersistentFlushTest, ABatchBeingWrittenWhenTheFlushComesLandsBeforeItsClear) {
  data().set("before", "v", 1);
  store_->during_write = [this] {
    store_->during_write = nullptr;
    flush();
    data().set("after", "v", 2);
  };
  executor_.run_ready();
  EXPECT_EQ(stored_keys(), (Keys{"before"}));
  EXPECT_EQ(acknowledged_, 0);
  executor_.run_ready();  // woken during the first run
  EXPECT_EQ(stored_keys(), (Keys{"after"}));
  EXPECT_EQ(acknowledged_, 1);
  EXPECT_EQ(store_->clears, 1);
}

// A batch the store refused was taken before the flush: it is dropped, not written after the
// clear, while the flush's batch is retried until the store takes it.
TEST_F(PersistentFlushTest, ARefusedBatchFromBeforeTheFlushIsDroppedAndTheClearRetried) {
  data().set("refused", "v", 1);
  store_->refuse_writes = 2;
  executor_.run_ready();
  ASSERT_EQ(node_->persistence.flusher()->failures(), 1u);
  flush();
  data().set("after", "v", 2);
  clock_.advance_seconds(Flusher::kRetrySeconds);
  executor_.run_ready();
  EXPECT_EQ(node_->persistence.flusher()->failures(), 2u) << "the clear was refused too";
  EXPECT_EQ(acknowledged_, 0);
  clock_.advance_seconds(Flusher::kRetrySeconds);
  executor_.run_ready();
  EXPECT_EQ(stored_keys(), (Keys{"after"}));
  EXPECT_EQ(acknowledged_, 1);
}

// A durable write pending at the flush is not flushed: it commits afterwards, so the disk
// must hold it after the clear, whether an earlier batch wrote it or not, and whether it
// commits before the flusher's next take or after.
TEST_F(PersistentFlushTest, DurableWritesPendingAtTheFlushReachTheDiskAfterItsClear) {
  // Written by an earlier batch, committed only after the flush's batch.
  const MutationResult written = data().set("on disk", "p1", 1, 0, /*prepare=*/true);
  executor_.run_ready();
  ASSERT_TRUE(store_->get(1, "on disk"));
  // Queued, not written.
  const MutationResult queued = data().set("queued", "p2", 2, 0, /*prepare=*/true);
  data().set("plain", "flushed", 3);
  flush();
  executor_.run_ready();
  EXPECT_EQ(stored_keys(), (Keys{"on disk", "queued"}));
  EXPECT_EQ(data().value_of("on disk"), "<NotFound>") << "not yet committed";
  ASSERT_TRUE(data().engine.persistence().commit_prepared("on disk", written.cas));
  ASSERT_TRUE(data().engine.persistence().commit_prepared("queued", queued.cas));
  EXPECT_EQ(data().value_of("on disk"), "p1");
  EXPECT_EQ(data().engine.persistence().dirty_count(), 0u)
      << "committed after the take: nothing to redo";
}

TEST_F(PersistentFlushTest, ADurableWriteCommittedBetweenTheFlushAndTheTakeIsWrittenAgain) {
  const MutationResult written = data().set("k", "durable", 1, 0, /*prepare=*/true);
  store_->during_write = [this, &written] {
    store_->during_write = nullptr;
    // The batch holding the write is being written; the flush comes, then the write's
    // commit, before the flusher takes again.
    flush();
    ASSERT_TRUE(data().engine.persistence().commit_prepared("k", written.cas));
  };
  executor_.run_ready();
  EXPECT_EQ(store_->clears, 0);
  executor_.run_ready();  // woken during the first run
  EXPECT_EQ(stored_keys(), (Keys{"k"}));
  EXPECT_EQ(store_->clears, 1);
  EXPECT_EQ(store_->get(1, "k")->cas, written.cas);
  EXPECT_EQ(data().value_of("k"), "durable");
}

// A durable write in a batch the store refused is taken again after the flush (it survives
// it), so the flusher still needs it: once it leaves the index (committed, then replaced)
// while that batch is written, the quota counts it as held until the write is done.
TEST_F(PersistentFlushTest, ADurableWriteTakenAgainAfterTheFlushIsChargedAsHeldUntilWritten) {
  const MutationResult prepared = data().set("k", "durable", 1, 0, /*prepare=*/true);
  store_->refuse_writes = 1;
  executor_.run_ready();
  ASSERT_EQ(node_->persistence.flusher()->failures(), 1u);
  flush();
  const uint64_t charge = item_charge(1, 7);  // "k", and a value of 7 bytes
  std::optional<uint64_t> used_while_written;
  store_->during_write = [&] {
    if (used_while_written) return;  // the first write only
    ASSERT_TRUE(data().engine.persistence().commit_prepared("k", prepared.cas));
    data().set("k", "changed", 1);  // takes the committed write's place in the index
    used_while_written = data().engine.mem_used();
  };
  clock_.advance_seconds(Flusher::kRetrySeconds);
  executor_.run_ready();
  ASSERT_EQ(store_->clears, 1);
  EXPECT_EQ(used_while_written, 2 * charge)
      << "the document in the index, and the durable write the flusher is writing";
  executor_.run_ready();  // the change, queued during the write
  store_->during_write = nullptr;
  EXPECT_EQ(data().engine.mem_used(), charge);
  EXPECT_EQ(store_->get(1, "k")->value, "changed");
}

TEST_F(PersistentFlushTest, ADelayedFlushIsRefusedOnAPersistentBucket) {
  data().set("k", "v", 1);
  EXPECT_EQ(data().engine.flush(5), 0u);
  clock_.advance_seconds(10);
  EXPECT_EQ(data().value_of("k"), "v");
  EXPECT_EQ(data().engine.stats().cmd_flush, 0u);
}

TEST(PersistentFlushWarmup, ABucketStillWarmingUpIsNotFlushed) {
  ManualClock clock;
  executor::ManualExecutor executor(clock);
  auto store = std::make_unique<TestStore>();
  const storage::Record record{{.cas = 5, .seqno = 1, .vbucket = 1}, "k", "v"};
  store->write(std::span(&record, 1), {});
  PersistentEngine data(clock);
  Persistence persistence(data.engine, data.vbuckets(), std::move(store), clock);
  persistence.start(executor, kOwner);
  bool called = false;
  EXPECT_FALSE(persistence.flush([&called] { called = true; }));
  executor.run_ready();
  EXPECT_FALSE(called);
  EXPECT_EQ(data.value_of("k"), "v") << "warmup loaded it after the refused flush";
  executor.unregister(kOwner);
}

// Through RocksDB and a restart: what the flush dropped stays gone, what came after it stays.
TEST(PersistentFlushRestart, AfterARestartOnlyWhatCameAfterTheFlushIsThere) {
  ManualClock clock;
  executor::ManualExecutor executor(clock);
  storage::TempDir dir;
  const auto open = [&dir] { return storage::open_rocksdb_store(dir.sub("bucket"), {}); };
  {
    Node node(clock, open(), executor);
    for (int i = 0; i < 20; ++i) node.data.set("old" + std::to_string(i), "v", i % 8);
    executor.run_ready();
    bool acknowledged = false;
    ASSERT_TRUE(node.persistence.flush([&acknowledged] { acknowledged = true; }));
    node.data.set("old3", "written again", 3);
    node.data.set("new", "v", 5);
    executor.run_ready();
    EXPECT_TRUE(acknowledged);
    executor.unregister(kOwner);
  }
  Node node(clock, open(), executor);
  EXPECT_EQ(node.data.engine.stats().curr_items, 2u);
  EXPECT_EQ(node.data.value_of("old3"), "written again");
  EXPECT_EQ(node.data.value_of("new"), "v");
  EXPECT_EQ(node.data.value_of("old4"), "<NotFound>");
  executor.unregister(kOwner);
}

}  // namespace
}  // namespace tern::engine
