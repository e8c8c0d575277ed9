// A bucket's live scopes and collections: changes, their listener, and readers that never
// lock while a writer changes the manifest.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "engine/bucket.h"

namespace tern::engine {
namespace {

class BucketManifestTest : public ::testing::Test {
 protected:
  BucketManifestTest()
      : bucket_("b", Config{.shard_count = 4}, cluster::CollectionsManifest::default_only(), 1,
                clock_) {}

  ManualClock clock_;
  Bucket bucket_;
};

TEST_F(BucketManifestTest, ChangesPublishAndAnswerTheNewUid) {
  EXPECT_EQ(bucket_.create_scope("app").uid, 1u);
  const ManifestChange created = bucket_.create_collection("app", "users", 60);
  EXPECT_EQ(created.error, ManifestError::None);
  EXPECT_EQ(created.uid, 2u);
  const cluster::CollectionsManifest& manifest = bucket_.manifest();
  EXPECT_EQ(manifest.uid(), 2u);
  const auto users = manifest.collection_id("app.users");
  ASSERT_TRUE(users.has_value());
  EXPECT_EQ(manifest.collection(*users)->max_ttl, 60u);
  EXPECT_EQ(bucket_.create_collection("app", "orders", std::nullopt).uid, 3u);
  EXPECT_EQ(bucket_.manifest().collection(*bucket_.manifest().collection_id("app.orders"))->max_ttl,
            0u);

  EXPECT_EQ(bucket_.drop_collection("app", "users").uid, 4u);
  EXPECT_FALSE(bucket_.manifest().has_collection(*users));
  // The manifest read before the change is still there, unchanged.
  EXPECT_EQ(manifest.uid(), 2u);
  EXPECT_TRUE(manifest.has_collection(*users));

  // A new collection of the same name is another collection.
  EXPECT_EQ(bucket_.create_collection("app", "users", std::nullopt).uid, 5u);
  EXPECT_NE(bucket_.manifest().collection_id("app.users"), users);
  EXPECT_EQ(bucket_.drop_scope("app").uid, 6u);
  EXPECT_EQ(bucket_.manifest().scope_id("app"), std::nullopt);
}

TEST_F(BucketManifestTest, RefusalsChangeNothing) {
  ASSERT_EQ(bucket_.create_scope("app").error, ManifestError::None);
  const cluster::CollectionsManifest* before = &bucket_.manifest();
  const std::vector<std::pair<ManifestChange, ManifestError>> cases = {
      {bucket_.create_scope("app"), ManifestError::ScopeExists},
      {bucket_.create_scope("_app"), ManifestError::InvalidName},
      {bucket_.drop_scope("_default"), ManifestError::DefaultScopeUndroppable},
      {bucket_.drop_scope("nowhere"), ManifestError::ScopeNotFound},
      {bucket_.create_collection("nowhere", "c", std::nullopt), ManifestError::ScopeNotFound},
      {bucket_.create_collection("app", "c d", std::nullopt), ManifestError::InvalidName},
      {bucket_.create_collection("app", "c", 0x80000000u), ManifestError::InvalidMaxTtl},
      {bucket_.drop_collection("app", "c"), ManifestError::CollectionNotFound},
  };
  for (const auto& [change, error] : cases) {
    EXPECT_EQ(change.error, error) << cluster::manifest_error_name(change.error);
    EXPECT_EQ(change.uid, 1u);  // the current manifest's
  }
  EXPECT_EQ(&bucket_.manifest(), before);
}

TEST_F(BucketManifestTest, ListenerSeesEachChangePublished) {
  std::vector<uint64_t> seen;
  bucket_.set_manifest_listener(
      [&seen](Bucket& bucket) { seen.push_back(bucket.manifest().uid()); });
  bucket_.create_scope("app");
  bucket_.create_scope("app");  // refused: not told
  bucket_.create_collection("app", "c", std::nullopt);
  bucket_.drop_collection("app", "c");
  bucket_.drop_scope("app");
  EXPECT_EQ(seen, (std::vector<uint64_t>{1, 2, 3, 4}));
  // A replacement at start-up is the caller's to record: not told.
  bucket_.replace_manifest(cluster::CollectionsManifest(9, {cluster::Scope{"_default", 0, {}}}));
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_EQ(bucket_.manifest().uid(), 9u);
}

TEST_F(BucketManifestTest, ReplacedManifestKeepsItsNextIds) {
  bucket_.replace_manifest(cluster::CollectionsManifest(
      7, {cluster::Scope{"_default", 0, {{"_default", 0}}}, cluster::Scope{"s", 8, {{"c", 8}}}},
      /*next_scope_id=*/20, /*next_collection_id=*/30));
  EXPECT_EQ(bucket_.create_collection("s", "d", std::nullopt).uid, 8u);
  EXPECT_EQ(bucket_.manifest().collection_id("s.d"), 30u);
  EXPECT_EQ(bucket_.create_scope("t").uid, 9u);
  EXPECT_EQ(bucket_.manifest().scope_id("t"), 20u);
}

// Readers run while a writer creates and drops: each read sees a whole manifest whose uid
// never goes back. Short enough for ThreadSanitizer, which checks that readers and the writer
// share the manifests without a data race.
TEST_F(BucketManifestTest, ReadersNeverLockWhileAWriterChanges) {
  constexpr int kChanges = 200;
  std::atomic<bool> done{false};
  std::atomic<int> bad_reads{0};
  std::atomic<int> reading{0};  // readers that have read once
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      uint64_t last_uid = 0;
      bool first = true;
      while (!done.load(std::memory_order_acquire)) {
        const cluster::CollectionsManifest& manifest = bucket_.manifest();
        // Even uids from 2 have collection "c" in scope "app" (just created), others do not.
        const bool has = manifest.collection_id("app.c").has_value();
        const bool expected = manifest.uid() >= 2 && manifest.uid() % 2 == 0;
        if (manifest.uid() < last_uid || has != expected) {
          bad_reads.fetch_add(1);
        }
        last_uid = manifest.uid();
        if (std::exchange(first, false)) reading.fetch_add(1);
      }
    });
  }
  // The changes start once both readers are reading, so that they overlap.
  while (reading.load() < 2) std::this_thread::yield();
  ASSERT_EQ(bucket_.create_scope("app").uid, 1u);
  for (int i = 0; i < kChanges; ++i) {
    ASSERT_EQ(bucket_.create_collection("app", "c", std::nullopt).error, ManifestError::None);
    ASSERT_EQ(bucket_.drop_collection("app", "c").error, ManifestError::None);
  }
  done.store(true, std::memory_order_release);
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(bad_reads.load(), 0);
  EXPECT_EQ(bucket_.manifest().uid(), 1u + 2 * kChanges);
  // Every collection got its own id.
  EXPECT_EQ(bucket_.manifest().next_collection_id(),
            cluster::CollectionsManifest::kFirstUserId + kChanges);
}

}  // namespace
}  // namespace tern::engine
