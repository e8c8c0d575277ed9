// A dropped collection's documents purged by the bucket's background task (CollectionPurger)
// from memory and from the real store, and kept out by warmup after a restart, a crash or a
// power failure in the middle of the purge (the manifest without the collection having been
// saved first, as the node's state file does).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cluster/collections_manifest.h"
#include "common/clock.h"
#include "engine/bucket.h"
#include "engine/collection_hooks.h"
#include "engine/collection_key.h"
#include "engine/collection_test_keys.h"
#include "engine/engine_fixture.h"
#include "engine/live_collections_store.h"
#include "engine/paging_hooks.h"
#include "executor/manual_executor.h"
#include "storage/power_loss_file_system.h"
#include "storage/store_rocksdb.h"
#include "storage/temp_dir.h"

namespace tern::engine {
namespace {

constexpr executor::OwnerId kOwner = 31;
constexpr int kKeys = 40;

std::string key_name(char collection, int i) {
  return std::string(1, collection) + std::to_string(i);
}

// Runs the executor until no task is due (the purger yields between slices).
void drain(executor::ManualExecutor& executor) {
  while (executor.run_ready() > 0) {
  }
}

// One start of a bucket, ephemeral or on a RocksDB store in `dir`, its tasks on `executor`.
std::unique_ptr<Bucket> start_bucket(ManualClock& clock, executor::ManualExecutor& executor,
                                     cluster::CollectionsManifest manifest, Config config,
                                     std::unique_ptr<storage::Store> store = nullptr) {
  config.shard_count = 4;
  config.persistent = store != nullptr;
  auto bucket = std::make_unique<Bucket>("b", config, std::move(manifest), kOwner, clock);
  if (store) {
    bucket->make_persistent(std::move(store));
    bucket->persistence()->start(executor, kOwner);
  }
  bucket->start_collection_purger(executor);
  drain(executor);  // warmup
  EXPECT_TRUE(bucket->warm());
  return bucket;
}

// Writes kKeys documents in each of collections a, b and _default, on the vbuckets the
// dispatcher would file them under, and lets the flusher write them.
void write_documents(Bucket& bucket, executor::ManualExecutor& executor) {
  for (const auto& [collection, letter] :
       std::map<uint32_t, char>{{kCollectionA, 'a'}, {kCollectionB, 'b'}, {0, 'd'}}) {
    for (int i = 0; i < kKeys; ++i) {
      const std::string key = key_in(collection, key_name(letter, i));
      const MutationResult stored =
          bucket.documents().store(StoreMode::Set, key, "value of " + key_name(letter, i), 0, 0, 0,
                                   0, {.vbucket = bucket.vbucket(static_cast<uint16_t>(i % 16))});
      ASSERT_EQ(stored.status, Status::Success);
    }
  }
  drain(executor);
}

// Every document of b and _default is there, with its value.
void expect_others_whole(Bucket& bucket) {
  for (const auto& [collection, letter] : std::map<uint32_t, char>{{kCollectionB, 'b'}, {0, 'd'}}) {
    for (int i = 0; i < kKeys; ++i) {
      const GetResult got = bucket.documents().get(key_in(collection, key_name(letter, i)));
      ASSERT_EQ(got.status, Status::Success) << letter << i;
      EXPECT_EQ(got.item->value(), "value of " + key_name(letter, i));
    }
  }
}

// No key of collection a in memory.
void expect_a_gone_from_memory(Bucket& bucket) {
  for (int i = 0; i < kKeys; ++i) {
    EXPECT_EQ(bucket.documents().get_meta(key_in(kCollectionA, key_name('a', i))).status,
              Status::NotFound)
        << i;
  }
}

// The records the store in `dir` holds, by collection (read with the bucket closed).
std::map<uint32_t, int> records_by_collection(
    const std::string& dir, std::shared_ptr<rocksdb::FileSystem> file_system = nullptr) {
  auto store = storage::open_rocksdb_store(dir, {}, {.file_system = file_system});
  std::map<uint32_t, int> count;
  store->scan([&](const storage::Record& record) {
    ++count[collection_of_key(record.key).value_or(~0u)];
    return true;
  });
  return count;
}

TEST(CollectionPurgeTest, AnEphemeralBucketPurgesMemoryInTheBackground) {
  ManualClock clock;
  executor::ManualExecutor executor(clock);
  auto bucket = start_bucket(clock, executor, manifest_with_a_and_b(), small_config());
  const uint64_t empty_memory = bucket->documents().mem_used();
  write_documents(*bucket, executor);
  ASSERT_EQ(bucket->documents().stats().curr_items, 3u * kKeys);

  std::optional<uint64_t> items_when_told;
  bucket->set_manifest_listener(
      [&](Bucket& b) { items_when_told = b.documents().stats().curr_items; });
  ASSERT_EQ(bucket->drop_collection("s", "a").error, ManifestError::None);
  // The listener ran before the purge began; the drop itself purges nothing.
  EXPECT_EQ(items_when_told, 3u * kKeys);
  EXPECT_EQ(bucket->documents().stats().curr_items, 3u * kKeys);
  EXPECT_FALSE(bucket->collection_purger().idle());
  // Writes to it are refused at once, purge or not.
  EXPECT_EQ(bucket->documents()
                .store(StoreMode::Set, key_in(kCollectionA, "late"), "v", 0, 0, 0, 0)
                .status,
            Status::UnknownCollection);

  drain(executor);
  EXPECT_TRUE(bucket->collection_purger().idle());
  EXPECT_EQ(bucket->collection_purger().purges(), 1u);
  EXPECT_EQ(bucket->collection_purger().purged_items(), static_cast<uint64_t>(kKeys));
  EXPECT_EQ(bucket->documents().stats().curr_items, 2u * kKeys);
  expect_a_gone_from_memory(*bucket);
  expect_others_whole(*bucket);

  // A collection of the same name is a new, empty one.
  ASSERT_EQ(bucket->create_collection("s", "a", std::nullopt).error, ManifestError::None);
  const uint32_t new_a = *bucket->manifest().collection_id("s.a");
  EXPECT_NE(new_a, kCollectionA);
  EXPECT_EQ(bucket->documents().get(key_in(new_a, key_name('a', 0))).status, Status::NotFound);

  // Dropping the scope takes b; dropping _default takes the rest: memory is back to empty.
  ASSERT_EQ(bucket->drop_scope("s").error, ManifestError::None);
  ASSERT_EQ(bucket->drop_collection("_default", "_default").error, ManifestError::None);
  drain(executor);
  EXPECT_EQ(bucket->documents().stats().curr_items, 0u);
  EXPECT_EQ(bucket->documents().mem_used(), empty_memory);
  executor.unregister(kOwner);
}

// Writers keep writing to the collection while it is dropped and purged: whatever a writer
// did before the drop is swept, and nothing written after it stays, so the purge leaves no
// document of it and the item count is exactly the other collection's.
TEST(CollectionPurgeTest, WritesRacingTheDropLeaveNothingBehind) {
  ManualClock clock;
  executor::ManualExecutor executor(clock);
  auto bucket = start_bucket(clock, executor, manifest_with_a_and_b(), small_config());
  std::atomic<bool> stop{false};
  std::atomic<int> writing{0};
  std::atomic<uint64_t> b_written{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      bool first = true;
      for (int i = 0; !stop.load(); ++i) {
        const std::string name = std::to_string(w) + "-" + std::to_string(i % 500);
        bucket->documents().store(StoreMode::Set, key_in(kCollectionA, name), "v", 0, 0, 0, 0);
        if (i < 500 && bucket->documents()
                               .store(StoreMode::Set, key_in(kCollectionB, name), "v", 0, 0, 0, 0)
                               .status == Status::Success) {
          b_written.fetch_add(1);
        }
        if (std::exchange(first, false)) writing.fetch_add(1);
      }
    });
  }
  while (writing.load() < 2) std::this_thread::yield();
  ASSERT_EQ(bucket->drop_collection("s", "a").error, ManifestError::None);
  drain(executor);  // the purge, while the writers go on
  EXPECT_EQ(bucket->collection_purger().purges(), 1u);
  for (int w = 0; w < 2; ++w) {
    for (int i = 0; i < 500; ++i) {
      const std::string key = key_in(kCollectionA, std::to_string(w) + "-" + std::to_string(i));
      EXPECT_EQ(bucket->documents().get_meta(key).status, Status::NotFound) << key;
    }
  }
  stop.store(true);
  for (std::thread& writer : writers) writer.join();
  EXPECT_EQ(bucket->documents().stats().curr_items, b_written.load());
  executor.unregister(kOwner);
}

TEST(CollectionPurgeTest, DropsBeforeThePurgerStartsWaitForIt) {
  ManualClock clock;
  executor::ManualExecutor executor(clock);
  Config config = small_config();
  config.shard_count = 4;
  Bucket bucket("b", config, manifest_with_a_and_b(), kOwner, clock);
  ASSERT_EQ(
      bucket.documents().store(StoreMode::Set, key_in(kCollectionA, "k"), "v", 0, 0, 0, 0).status,
      Status::Success);
  ASSERT_EQ(bucket.drop_collection("s", "a").error, ManifestError::None);
  bucket.start_collection_purger(executor);
  drain(executor);
  EXPECT_EQ(bucket.documents().stats().curr_items, 0u);
  executor.unregister(kOwner);
}

class PersistentCollectionPurgeTest : public ::testing::Test {
 protected:
  std::unique_ptr<storage::Store> open_store() {
    return storage::open_rocksdb_store(store_dir_, {}, {.file_system = file_system_});
  }
  std::unique_ptr<Bucket> start(cluster::CollectionsManifest manifest,
                                Config config = small_config()) {
    return start_bucket(clock_, executor_, std::move(manifest), config, open_store());
  }
  // A clean stop: the bucket's tasks stopped, then what is queued written.
  void stop(std::unique_ptr<Bucket>& bucket) {
    executor_.unregister(kOwner);
    bucket->persistence()->flush_before_exit();
    bucket.reset();
  }
  std::map<uint32_t, int> on_disk() { return records_by_collection(store_dir_, file_system_); }

  ManualClock clock_;
  executor::ManualExecutor executor_{clock_};
  storage::TempDir dir_;
  std::string store_dir_ = dir_.sub("bucket");
  std::shared_ptr<storage::PowerLossFileSystem> file_system_ =
      std::make_shared<storage::PowerLossFileSystem>();
};

TEST_F(PersistentCollectionPurgeTest, TheDiskAndMemoryLoseTheCollectionAndNothingElse) {
  auto bucket = start(manifest_with_a_and_b());
  write_documents(*bucket, executor_);
  ASSERT_EQ(bucket->drop_collection("s", "a").error, ManifestError::None);
  drain(executor_);
  EXPECT_EQ(bucket->documents().stats().curr_items, 2u * kKeys);
  expect_a_gone_from_memory(*bucket);
  expect_others_whole(*bucket);
  const cluster::CollectionsManifest saved = bucket->manifest();
  stop(bucket);
  EXPECT_EQ(on_disk(), (std::map<uint32_t, int>{{0, kKeys}, {kCollectionB, kKeys}}));

  bucket = start(saved);
  EXPECT_EQ(bucket->documents().stats().curr_items, 2u * kKeys);
  expect_others_whole(*bucket);
  executor_.unregister(kOwner);
}

// What the flusher hands the store after a drop (a batch it took before) leaves the dropped
// collection out: were it written, it would land after the purge deleted the collection.
TEST_F(PersistentCollectionPurgeTest, TheStoreNoLongerWritesOrReadsADroppedCollection) {
  Engine engine(small_config(), clock_);
  const cluster::CollectionsManifest with_a = manifest_with_a_and_b();
  const cluster::CollectionsManifest without_a = *with_a.without_collection("s", "a").manifest;
  engine.collections().set_manifest(&with_a);
  const std::string a_key = key_in(kCollectionA, "k");
  const std::string b_key = key_in(kCollectionB, "k");
  {
    LiveCollectionsStore store(engine, open_store());
    const storage::Record before[] = {{{.cas = 1, .vbucket = 1}, a_key, "a"},
                                      {{.cas = 2, .vbucket = 1}, b_key, "b"}};
    store.write(before, {});
    ASSERT_TRUE(store.get(1, a_key).has_value());
    engine.collections().set_manifest(&without_a);
    EXPECT_FALSE(store.get(1, a_key).has_value());  // a background fetch finds nothing
    store.remove_ranges(collection_key_ranges(kCollectionA), {});  // the purge
    // A batch taken before the drop, written after the purge.
    const storage::Record after[] = {{{.cas = 3, .vbucket = 2}, a_key, "a2"},
                                     {{.cas = 4, .vbucket = 2}, b_key, "b2"}};
    store.write(after, {});
  }
  EXPECT_EQ(on_disk(), (std::map<uint32_t, int>{{kCollectionB, 2}}));
}

TEST_F(PersistentCollectionPurgeTest, FullEvictionStopsCountingTheDocumentsOnDiskOnly) {
  Config config = small_config();
  config.full_eviction = true;
  auto bucket = start(manifest_with_a_and_b(), config);
  write_documents(*bucket, executor_);
  // Everything is on disk: evict it all, keys too. They still count as items.
  bucket->documents().paging().evict(bucket->documents().mem_used());
  ASSERT_EQ(bucket->documents().stats().curr_items, 3u * kKeys);
  ASSERT_LT(bucket->documents().mem_used(), 100u);
  ASSERT_EQ(bucket->drop_collection("s", "a").error, ManifestError::None);
  drain(executor_);
  EXPECT_EQ(bucket->documents().stats().curr_items, 2u * kKeys);
  stop(bucket);
  EXPECT_EQ(on_disk(), (std::map<uint32_t, int>{{0, kKeys}, {kCollectionB, kKeys}}));
}

// A restart with the saved manifest, which no longer has the collection, while the disk still
// holds its records (the node stopped before the purge ran): warmup loads none of them, and
// deletes them. Were warmup to load what the manifest lacks, a's documents would be back.
TEST_F(PersistentCollectionPurgeTest, WarmupLeavesOutAndDeletesWhatTheManifestLacks) {
  auto bucket = start(manifest_with_a_and_b());
  write_documents(*bucket, executor_);
  const cluster::CollectionsManifest saved =
      *bucket->manifest().without_collection("s", "a").manifest;
  stop(bucket);
  ASSERT_EQ(on_disk()[kCollectionA], kKeys);

  bucket = start(saved);
  expect_a_gone_from_memory(*bucket);
  expect_others_whole(*bucket);
  EXPECT_EQ(bucket->documents().stats().curr_items, 2u * kKeys);
  const auto* store = dynamic_cast<LiveCollectionsStore*>(&bucket->persistence()->store());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->dropped_on_scan(), static_cast<uint64_t>(kKeys));
  stop(bucket);
  EXPECT_EQ(on_disk(), (std::map<uint32_t, int>{{0, kKeys}, {kCollectionB, kKeys}}));
}

// kill -9, or the power failing, in the middle of a drop: at each point of the purge's disk
// writes in turn. After the restart the collection is gone (none of its documents loaded, and
// its records deleted), and no other collection lost a document.
TEST_F(PersistentCollectionPurgeTest, APowerFailureMidPurgeNeverBringsTheCollectionBack) {
  bool records_survived_a_failure = false;
  for (uint64_t cut_at = 1; cut_at <= 4; ++cut_at) {
    SCOPED_TRACE("power cut at the purge's disk call " + std::to_string(cut_at));
    auto bucket = start(manifest_with_a_and_b());
    write_documents(*bucket, executor_);
    ASSERT_EQ(bucket->drop_collection("s", "a").error, ManifestError::None);
    // What the node's state file holds from now on.
    const cluster::CollectionsManifest saved = bucket->manifest();
    file_system_->cut_power_after(cut_at);
    drain(executor_);  // the purge; its disk work fails once the power is off
    // A crash: no clean stop.
    executor_.unregister(kOwner);
    bucket.reset();
    if (file_system_->power_is_on()) file_system_->cut_power();
    file_system_->lose_unsynced();
    file_system_->restore_power();
    const int a_records = on_disk()[kCollectionA];
    EXPECT_TRUE(a_records == 0 || a_records == kKeys) << "half purged: " << a_records;
    records_survived_a_failure = records_survived_a_failure || a_records == kKeys;

    bucket = start(saved);
    expect_a_gone_from_memory(*bucket);
    expect_others_whole(*bucket);
    EXPECT_EQ(bucket->documents().stats().curr_items, 2u * kKeys);
    stop(bucket);
    EXPECT_EQ(on_disk(), (std::map<uint32_t, int>{{0, kKeys}, {kCollectionB, kKeys}}));
    // The next round starts from an empty store.
    store_dir_ = dir_.sub("bucket-" + std::to_string(cut_at));
  }
  // At least one failure came before the purge's batch was on disk: warmup is what kept the
  // collection out then.
  EXPECT_TRUE(records_survived_a_failure);
}

}  // namespace
}  // namespace tern::engine
