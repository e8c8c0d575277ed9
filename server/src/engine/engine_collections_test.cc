// The engine under a collections manifest: keys of a dropped collection refused and purged,
// and maxTTL (the bucket's and each collection's) applied to writes.
#include <gtest/gtest.h>

#include <string>

#include "cluster/collections_manifest.h"
#include "engine/collection_hooks.h"
#include "engine/collection_test_keys.h"
#include "engine/engine_fixture.h"
#include "engine/paging_hooks.h"
#include "engine/persistence_hooks.h"
#include "engine/persistent_engine_fixture.h"

namespace tern::engine {
namespace {

class EngineCollectionsTest : public EngineTest {
 protected:
  EngineCollectionsTest() {
    with_a_ = manifest_with_a_and_b();
    without_a_ = *with_a_.without_collection("s", "a").manifest;
    engine_.collections().set_manifest(&with_a_);
  }

  size_t purge_all() {
    size_t removed = 0;
    for (size_t shard = 0; shard < engine_.paging().shard_count(); ++shard) {
      removed += engine_.collections().purge_dropped_collections(shard);
    }
    return removed;
  }

  cluster::CollectionsManifest with_a_ = cluster::CollectionsManifest::default_only();
  cluster::CollectionsManifest without_a_ = cluster::CollectionsManifest::default_only();
};

TEST_F(EngineCollectionsTest, AGoneCollectionsKeysAreRefused) {
  const std::string a_key = key_in(kCollectionA, "k");
  ASSERT_EQ(set(a_key, "v").status, Status::Success);
  EXPECT_TRUE(engine_.collections().has_collection_of(a_key));
  engine_.collections().set_manifest(&without_a_);
  EXPECT_FALSE(engine_.collections().has_collection_of(a_key));
  EXPECT_EQ(set(a_key, "v2").status, Status::UnknownCollection);
  EXPECT_EQ(set(key_in(kCollectionA, "new"), "v").status, Status::UnknownCollection);
  EXPECT_EQ(engine_.remove(a_key, 0).status, Status::UnknownCollection);
  EXPECT_EQ(engine_.arithmetic(a_key, true, 1, 0, 0, 0).status, Status::UnknownCollection);
  EXPECT_EQ(engine_.touch(a_key, 10).status, Status::UnknownCollection);
  // The other collections carry on.
  EXPECT_EQ(set(key_in(kCollectionB, "k"), "v").status, Status::Success);
  EXPECT_EQ(set("default-key", "v").status, Status::Success);
  EXPECT_TRUE(engine_.collections().has_collection_of("default-key"));
}

TEST_F(EngineCollectionsTest, PurgeRemovesOnlyTheGoneCollectionAndItsAccounting) {
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(set(key_in(kCollectionB, "b" + std::to_string(i)), "value").status, Status::Success);
  }
  const Stats before_a = engine_.stats();
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(set(key_in(kCollectionA, "a" + std::to_string(i)), "value").status, Status::Success);
  }
  for (int i = 0; i < 5; ++i) {  // tombstones are the collection's too
    ASSERT_EQ(engine_.remove(key_in(kCollectionA, "a" + std::to_string(i)), 0).status,
              Status::Success);
  }
  ASSERT_EQ(engine_.stats().curr_items, 95u);
  EXPECT_EQ(purge_all(), 0u) << "nothing is gone yet";

  engine_.collections().set_manifest(&without_a_);
  EXPECT_EQ(purge_all(), 50u);  // 45 documents and 5 tombstones
  const Stats after = engine_.stats();
  EXPECT_EQ(after.curr_items, 50u);
  EXPECT_EQ(after.mem_used, before_a.mem_used);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(value_of(key_in(kCollectionB, "b" + std::to_string(i))), "value");
    EXPECT_EQ(engine_.get_meta(key_in(kCollectionA, "a" + std::to_string(i))).status,
              Status::NotFound);
  }
  EXPECT_EQ(purge_all(), 0u);
}

TEST_F(EngineCollectionsTest, TheDefaultCollectionCanGoToo) {
  ASSERT_EQ(set("plain", "v").status, Status::Success);
  ASSERT_EQ(set(std::string("\0\0zero", 6), "v").status, Status::Success);  // a _default key
  ASSERT_EQ(set(key_in(kCollectionB, "b"), "v").status, Status::Success);
  const cluster::CollectionsManifest no_default =
      *with_a_.without_collection("_default", "_default").manifest;
  engine_.collections().set_manifest(&no_default);
  EXPECT_EQ(set("plain", "v2").status, Status::UnknownCollection);
  EXPECT_EQ(purge_all(), 2u);
  EXPECT_EQ(value_of(key_in(kCollectionB, "b")), "v");
  EXPECT_EQ(engine_.stats().curr_items, 1u);
}

TEST(EngineCollectionsPersistentTest, ADurableWriteOfAGoneCollectionIsDroppedNotCommitted) {
  ManualClock clock;
  PersistentEngine data(clock);
  const cluster::CollectionsManifest with_a = manifest_with_a_and_b();
  const cluster::CollectionsManifest without_a = *with_a.without_collection("s", "a").manifest;
  data.engine.collections().set_manifest(&with_a);
  const std::string committed = key_in(kCollectionA, "committed");
  const std::string swept = key_in(kCollectionA, "swept");
  const MutationResult first = data.set(committed, "v", 0, 0, /*prepare=*/true);
  const MutationResult second = data.set(swept, "v", 0, 0, /*prepare=*/true);
  ASSERT_EQ(first.status, Status::Success);
  ASSERT_EQ(data.engine.persistence().prepared_count(), 2u);

  data.engine.collections().set_manifest(&without_a);
  // Its commit after the drop publishes nothing.
  EXPECT_FALSE(data.engine.persistence().commit_prepared(committed, first.cas));
  EXPECT_EQ(data.engine.persistence().prepared_count(), 1u);
  // The purge drops the other.
  for (size_t shard = 0; shard < data.engine.paging().shard_count(); ++shard) {
    data.engine.collections().purge_dropped_collections(shard);
  }
  EXPECT_EQ(data.engine.persistence().prepared_count(), 0u);
  EXPECT_FALSE(data.engine.persistence().commit_prepared(swept, second.cas));
  EXPECT_EQ(data.engine.get_meta(committed).status, Status::NotFound);
  EXPECT_EQ(data.engine.get_meta(swept).status, Status::NotFound);
  EXPECT_EQ(data.engine.stats().curr_items, 0u);
}

// maxTTL, as Couchbase applies it: a write with no expiry gets now + maxTTL, a longer
// expiry is cut to it, a shorter one stands; a collection's own maxTTL wins over the bucket's.
class MaxTtlTest : public EngineTest {
 protected:
  static Config with_bucket_max_ttl() {
    Config config = small_config();
    config.max_ttl_seconds = 100;
    return config;
  }
  MaxTtlTest() : EngineTest(with_bucket_max_ttl()), manifest_(manifest_with_a_and_b(10)) {
    engine_.collections().set_manifest(&manifest_);
  }

  // Seconds from now until `key` expires (GET_META's absolute expiry); -1: never.
  int64_t ttl_of(const std::string& key) {
    const MetaResult meta = engine_.get_meta(key);
    EXPECT_EQ(meta.status, Status::Success) << key;
    if (meta.expiry == 0) return -1;
    return int64_t{meta.expiry} - clock_.unix_seconds();
  }

  cluster::CollectionsManifest manifest_;
};

TEST_F(MaxTtlTest, TheBucketsMaxTtlBoundsEveryWrite) {
  const std::string key = key_in(kCollectionA, "k");  // collection a has no maxTTL of its own
  ASSERT_EQ(set(key, "v", /*expiry=*/0).status, Status::Success);
  EXPECT_EQ(ttl_of(key), 100);
  ASSERT_EQ(set(key, "v", 1000).status, Status::Success);
  EXPECT_EQ(ttl_of(key), 100);
  ASSERT_EQ(set(key, "v", 50).status, Status::Success);
  EXPECT_EQ(ttl_of(key), 50);
  // An absolute expiry past the limit too.
  ASSERT_EQ(set(key, "v", static_cast<uint32_t>(clock_.unix_seconds() + 5000)).status,
            Status::Success);
  EXPECT_EQ(ttl_of(key), 100);
  EXPECT_EQ(set("default-key", "v", 0).status, Status::Success);
  EXPECT_EQ(ttl_of("default-key"), 100);
  // And it does expire then.
  clock_.advance_ms(100 * 1000);
  EXPECT_EQ(value_of("default-key"), kMissing);
}

TEST_F(MaxTtlTest, ACollectionsMaxTtlWinsOverTheBuckets) {
  const std::string key = key_in(kCollectionB, "k");  // maxTTL 10
  ASSERT_EQ(set(key, "v", 0).status, Status::Success);
  EXPECT_EQ(ttl_of(key), 10);
  ASSERT_EQ(set(key, "v", 50).status, Status::Success);
  EXPECT_EQ(ttl_of(key), 10);
  ASSERT_EQ(set(key, "v", 5).status, Status::Success);
  EXPECT_EQ(ttl_of(key), 5);
}

TEST_F(MaxTtlTest, TouchArithmeticAndDocumentWritesAreBoundToo) {
  const std::string key = key_in(kCollectionB, "k");
  ASSERT_EQ(set(key, "v", 5).status, Status::Success);
  ASSERT_EQ(engine_.touch(key, 0).status, Status::Success);
  EXPECT_EQ(ttl_of(key), 10);
  ASSERT_EQ(engine_.get_and_touch(key, 3000).status, Status::Success);
  EXPECT_EQ(ttl_of(key), 10);

  const std::string counter = key_in(kCollectionB, "counter");
  ASSERT_EQ(engine_.arithmetic(counter, true, 1, 7, /*expiry=*/0, 0).status, Status::Success);
  EXPECT_EQ(ttl_of(counter), 10);

  const std::string document = key_in(kCollectionB, "document");
  ASSERT_EQ(engine_.write_document(document, {.value = "{}", .expiry = 0}).status, Status::Success);
  EXPECT_EQ(ttl_of(document), 10);
}

TEST_F(MaxTtlTest, PreserveTtlKeepsTheDocumentsExpiry) {
  const std::string key = key_in(kCollectionA, "k");
  ASSERT_EQ(set(key, "v", 30).status, Status::Success);
  clock_.advance_ms(10 * 1000);
  ASSERT_EQ(engine_.store(StoreMode::Set, key, "v2", 0, 0, 0, 0, {.preserve_ttl = true}).status,
            Status::Success);
  EXPECT_EQ(ttl_of(key), 20);
}

TEST(MaxTtlOffTest, NoMaxTtlLeavesExpiriesAlone) {
  ManualClock clock;
  Engine engine(small_config(), clock);
  const cluster::CollectionsManifest manifest = manifest_with_a_and_b();
  engine.collections().set_manifest(&manifest);
  ASSERT_EQ(engine.store(StoreMode::Set, key_in(kCollectionB, "k"), "v", 0, 0, 0, 0).status,
            Status::Success);
  EXPECT_EQ(engine.get_meta(key_in(kCollectionB, "k")).expiry, 0u);
}

}  // namespace
}  // namespace tern::engine
