// The key index the creates of a scan share, against a real bucket on a ManualClock: one pass
// serves every vbucket while nothing changes; a change to a vbucket makes the next create of
// that vbucket take a new pass (and only that vbucket's part was stale); a pending durable
// write keeps an index from being shared; an index serves for KeyIndexCache::kMaxAgeMs at most.
#include "scan/key_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/collection_key.h"
#include "engine/persistence_hooks.h"

namespace tern::scan {
namespace {

class KeyIndexTest : public ::testing::Test {
 protected:
  KeyIndexTest() {
    for (uint16_t vb = 0; vb < cluster::kVBucketCount; ++vb) {
      bucket_.vbucket(vb)->set_state(cluster::VBucketState::Active, 1000 + vb);
    }
  }

  // Returns the CAS.
  uint64_t store(const std::string& key, uint16_t vb, uint32_t collection = 0,
                 bool durable = false) {
    const engine::MutationResult stored = bucket_.documents().store(
        engine::StoreMode::Set, engine::stored_key_of(collection, key), "{}", 0, 0, 0, 0,
        {.vbucket = bucket_.vbucket(vb), .prepare = durable});
    EXPECT_EQ(stored.status, engine::Status::Success);
    return stored.cas;
  }

  std::vector<std::string> keys(const KeyIndex& index, uint16_t vb) {
    std::vector<std::string> out;
    for (const KeyIndex::Key& key : index.keys(vb)) out.push_back(key.stored);
    return out;
  }

  ManualClock clock_;
  engine::Bucket bucket_{"b", engine::Config{.persistent = true},
                         cluster::CollectionsManifest(
                             1, {{"_default", 0, {{"_default", 0}}}, {"s", 8, {{"c", 8}}}}),
                         1, clock_};
  KeyIndexCache cache_{clock_};
};

TEST_F(KeyIndexTest, OnePassServesEveryVBucketUntilOneChanges) {
  store("b", 3);
  store("a", 3);
  store("c", 4);
  store("a", 3, 8);  // another collection
  const auto first = cache_.index_for(bucket_, 0, 3);
  EXPECT_EQ(keys(*first, 3), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(keys(*first, 4), std::vector<std::string>{"c"});
  EXPECT_EQ(cache_.index_for(bucket_, 0, 4), first) << "nothing changed: the same pass";
  EXPECT_EQ(keys(*cache_.index_for(bucket_, 8, 3), 3),
            std::vector<std::string>{engine::stored_key_of(8, "a")});

  store("d", 4);
  EXPECT_EQ(cache_.index_for(bucket_, 0, 3), first) << "vbucket 3 did not change";
  const auto second = cache_.index_for(bucket_, 0, 4);
  EXPECT_NE(second, first);
  EXPECT_EQ(keys(*second, 4), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(cache_.index_for(bucket_, 0, 3), second);
}

TEST_F(KeyIndexTest, AnIndexServesForItsAgeAtMost) {
  store("a", 3);
  const auto first = cache_.index_for(bucket_, 0, 3);
  clock_.advance_ms(KeyIndexCache::kMaxAgeMs);
  EXPECT_EQ(cache_.index_for(bucket_, 0, 3), first);
  clock_.advance_ms(1);
  EXPECT_NE(cache_.index_for(bucket_, 0, 3), first);
  EXPECT_EQ(cache_.size(), 1u) << "the new one in the old one's place";
  clock_.advance_ms(KeyIndexCache::kMaxAgeMs + 1);
  cache_.drop_old();
  EXPECT_EQ(cache_.size(), 0u);
}

TEST_F(KeyIndexTest, APendingDurableWriteKeepsAnIndexToItsCreate) {
  store("a", 3);
  const uint64_t pending = store("pending", 5, 0, /*durable=*/true);
  const auto first = cache_.index_for(bucket_, 0, 3);
  EXPECT_FALSE(first->reusable());
  EXPECT_EQ(keys(*first, 5), std::vector<std::string>{}) << "not committed: not live";
  // Its commit moves no seqno: a kept index would never show it.
  ASSERT_TRUE(bucket_.documents().persistence().commit_prepared("pending", pending));
  EXPECT_EQ(keys(*cache_.index_for(bucket_, 0, 5), 5), std::vector<std::string>{"pending"});
}

}  // namespace
}  // namespace tern::scan
