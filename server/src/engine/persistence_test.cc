// The persistence tasks wired together (Persistence) on the deterministic executor, and a
// whole round trip through the real RocksDB store: write, shut down, start again, read back.

#include "engine/persistence.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "engine/bucket.h"
#include "engine/paging_hooks.h"
#include "engine/persistent_engine_fixture.h"
#include "engine/test_store.h"
#include "executor/manual_executor.h"
#include "metrics/stat_view.h"
#include "storage/temp_dir.h"

namespace tern::engine {
namespace {

// One start of a persistent engine on `store`: warm once run_ready() ran warmup.
struct Node {
  Node(const Clock& clock, std::unique_ptr<storage::Store> store, executor::Executor& executor)
      : data(clock), persistence(data.engine, data.vbuckets(), std::move(store), clock) {
    persistence.start(executor, kOwner);
  }
  static constexpr executor::OwnerId kOwner = 11;

  std::map<std::string, std::string> stats() const {
    std::map<std::string, std::string> out;
    metrics::StatView view(
        [&out](std::string_view name, std::string_view value) { out.emplace(name, value); });
    persistence.collect(view);
    return out;
  }

  PersistentEngine data;
  Persistence persistence;
};

class PersistenceTest : public ::testing::Test {
 protected:
  PersistenceTest() : executor_(clock_) {}

  ManualClock clock_;
  executor::ManualExecutor executor_;  // before the nodes: their tasks go with them
};

TEST_F(PersistenceTest, NotWarmUntilWarmupHasRun) {
  auto store = std::make_unique<TestStore>();
  Node node(clock_, std::move(store), executor_);
  EXPECT_FALSE(node.persistence.warm());
  EXPECT_EQ(node.stats()["ep_warmup_state"], "initialize");
  executor_.run_ready();
  EXPECT_TRUE(node.persistence.warm());
  EXPECT_EQ(node.stats()["ep_warmup_state"], "done");
}

TEST_F(PersistenceTest, AWriteWakesTheFlusherAndTheStatsFollow) {
  auto owned = std::make_unique<TestStore>();
  TestStore& store = *owned;
  Node node(clock_, std::move(owned), executor_);
  executor_.run_ready();

  node.data.set("a", "1", 1);
  node.data.set("b", "2", 2);
  EXPECT_EQ(node.stats()["ep_queue_size"], "2");
  EXPECT_EQ(executor_.ready_count(), 1u) << "the dirty listener wakes the flusher";
  executor_.run_ready();
  EXPECT_EQ(store.size(), 2u);
  EXPECT_EQ(store.write_calls, 1);
  const auto stats = node.stats();
  EXPECT_EQ(stats.at("ep_queue_size"), "0");
  EXPECT_EQ(stats.at("ep_flusher_todo"), "0");
  EXPECT_EQ(stats.at("ep_total_persisted"), "2");
  EXPECT_EQ(stats.at("ep_durability_pending"), "0");
}

TEST_F(PersistenceTest, ADurableWriteCompletesOnceTheFlusherPersistsIt) {
  Node node(clock_, std::make_unique<TestStore>(), executor_);
  executor_.run_ready();
  node.data.set("k", "committed");
  executor_.run_ready();

  const MutationResult prepared = node.data.set("k", "durable", 0, 0, /*prepare=*/true);
  ASSERT_EQ(prepared.status, Status::Success);
  std::optional<SyncWriteOutcome> outcome;
  node.persistence.durability().add(0, prepared.seqno, "k", prepared.cas,
                                    clock_.steady_ms() + 30'000,
                                    [&outcome](SyncWriteOutcome o) { outcome = o; });
  EXPECT_FALSE(outcome.has_value());
  EXPECT_EQ(node.data.value_of("k"), "committed") << "reads see the committed value meanwhile";
  EXPECT_EQ(node.stats()["ep_durability_pending"], "1");

  executor_.run_ready();
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(*outcome, SyncWriteOutcome::Committed);
  EXPECT_EQ(node.data.value_of("k"), "durable");
  EXPECT_EQ(node.data.engine.get("k").item->cas, prepared.cas);
  EXPECT_EQ(node.stats()["ep_durability_committed"], "1");
}

TEST_F(PersistenceTest, EverythingComesBackFromRocksDbAfterACleanShutdown) {
  storage::TempDir dir;
  const auto open = [&dir] { return storage::open_rocksdb_store(dir.sub("bucket"), {}); };
  MutationResult kept, removed, late;
  uint64_t high_seqno = 0;
  {
    Node node(clock_, open(), executor_);
    executor_.run_ready();
    kept = node.data.set("kept", "value", 5, /*expiry=*/1000);
    removed = node.data.set("removed", "x", 6);
    ASSERT_EQ(node.data.remove("removed", 6).status, Status::Success);
    executor_.run_ready();
    late = node.data.set("late", "queued at shutdown", 5);  // never run by the executor
    high_seqno = node.data.vbuckets()[5].high_seqno();
    executor_.unregister(Node::kOwner);
    node.persistence.flush_before_exit();
  }
  Node node(clock_, open(), executor_);
  EXPECT_FALSE(node.persistence.warm());
  executor_.run_ready();
  ASSERT_TRUE(node.persistence.warm());
  EXPECT_EQ(node.data.value_of("kept"), "value");
  EXPECT_EQ(node.data.engine.get("kept").item->cas, kept.cas);
  EXPECT_EQ(node.data.value_of("late"), "queued at shutdown");
  EXPECT_EQ(node.data.engine.get("late").item->cas, late.cas);
  EXPECT_EQ(node.data.value_of("removed"), "<NotFound>");
  EXPECT_TRUE(node.data.engine.get_meta("removed").deleted);
  EXPECT_EQ(node.data.vbuckets()[5].high_seqno(), high_seqno);
  EXPECT_EQ(node.stats()["ep_warmup_value_count"], "2");
  EXPECT_EQ(node.stats()["ep_warmup_key_count"], "3") << "the tombstone's too";
  EXPECT_GT(node.data.set("fresh", "v", 5).seqno, high_seqno);
}

TEST_F(PersistenceTest, AnEvictedValueComesBackThroughTheBgFetcher) {
  Node node(clock_, std::make_unique<TestStore>(), executor_);
  executor_.run_ready();
  node.data.set("k", "value", 3);
  executor_.run_ready();  // the flusher
  ASSERT_GT(node.data.engine.paging().evict(node.data.engine.mem_used()), 0u);
  ASSERT_EQ(node.data.value_of("k"), "<NotResident>");
  bool told = false;
  node.persistence.bg_fetcher().fetch("k", 3, [&told] { told = true; });
  executor_.run_ready();
  EXPECT_TRUE(told);
  EXPECT_EQ(node.data.value_of("k"), "value");
  EXPECT_EQ(node.stats()["ep_bg_fetched"], "1");
}

TEST(BucketPersistence, AnEphemeralBucketIsAlwaysWarmAndCannotBeMadePersistent) {
  Bucket bucket("b", Config{}, cluster::CollectionsManifest::default_only(), Node::kOwner);
  EXPECT_TRUE(bucket.warm());
  EXPECT_EQ(bucket.persistence(), nullptr);
  EXPECT_THROW(bucket.make_persistent(std::make_unique<TestStore>()), std::logic_error);
}

TEST(BucketPersistence, APersistentBucketIsColdUntilWarmedUp) {
  ManualClock clock;
  executor::ManualExecutor executor(clock);
  Bucket bucket("b", persistent_config(), cluster::CollectionsManifest::default_only(), Node::kOwner, clock);
  bucket.make_persistent(std::make_unique<TestStore>());
  ASSERT_NE(bucket.persistence(), nullptr);
  EXPECT_FALSE(bucket.warm());
  bucket.persistence()->start(executor, bucket.executor_owner());
  executor.run_ready();
  EXPECT_TRUE(bucket.warm());
  EXPECT_EQ(bucket.vbucket(700)->id(), 700) << "items are filed under their vbucket's id";
}

}  // namespace
}  // namespace tern::engine
