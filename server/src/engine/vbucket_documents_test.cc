// A vbucket's documents: the engine keeps each key with the vbucket its CRC names
// (vbucket_of_key), and for_each_live_item_of_vbucket() hands out the documents filed under one
// vbucket, whichever vbucket a request filed them under.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cluster/vbucket_of.h"
#include "common/clock.h"
#include "engine/collection_key.h"
#include "engine/engine.h"
#include "engine/vbucket.h"

namespace tern::engine {
namespace {

class VBucketDocumentsTest : public ::testing::TestWithParam<size_t> {
 protected:
  VBucketDocumentsTest()
      : engine_(Config{.shard_count = GetParam()}, clock_), vbuckets_(new VBucket[kCount]) {
    for (uint16_t id = 0; id < kCount; ++id) vbuckets_[id].set_id(id);
  }

  // Stores `key` filed under `vbucket`.
  void store(const std::string& key, uint16_t vbucket) {
    ASSERT_EQ(engine_.store(StoreMode::Set, key, "v", 0, 0, 0, 0, {.vbucket = &vbuckets_[vbucket]})
                  .status,
              Status::Success);
  }
  std::vector<std::string> keys_of(uint16_t vbucket) {
    std::vector<std::string> keys;
    engine_.for_each_live_item_of_vbucket(vbucket,
                                          [&](const Item& item) { keys.emplace_back(item.key()); });
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  static constexpr uint16_t kCount = cluster::kVBucketCount;
  ManualClock clock_;
  Engine engine_;
  std::unique_ptr<VBucket[]> vbuckets_;
};

INSTANTIATE_TEST_SUITE_P(ShardCounts, VBucketDocumentsTest,
                         ::testing::Values(size_t{1024}, size_t{4}),
                         [](const auto& info) { return std::to_string(info.param) + "Shards"; });

TEST_P(VBucketDocumentsTest, AVBucketHandsOutTheDocumentsFiledUnderIt) {
  // Filed as SDKs file them: under the vbucket the key's CRC names.
  std::vector<std::string> in_700;
  for (int i = 0; i < 3000; ++i) {
    const std::string key = "key" + std::to_string(i);
    const uint16_t vbucket = vbucket_of_key(key);
    store(key, vbucket);
    if (vbucket == 700) in_700.push_back(key);
  }
  ASSERT_FALSE(in_700.empty());
  std::sort(in_700.begin(), in_700.end());
  EXPECT_EQ(keys_of(700), in_700);
  EXPECT_EQ(vbucket_of_key("key1"), cluster::vbucket_of("key1", kCount));

  // A memcached client's key, sent on vbucket 0: filed there, kept with its CRC's vbucket.
  const std::string plain = in_700.front() + "-plain";
  const uint16_t crc_vbucket = vbucket_of_key(plain);
  ASSERT_NE(crc_vbucket, 0);
  store(plain, 0);
  const std::vector<std::string> in_0 = keys_of(0);
  EXPECT_NE(std::find(in_0.begin(), in_0.end(), plain), in_0.end());
  const std::vector<std::string> in_crc = keys_of(crc_vbucket);
  EXPECT_EQ(std::find(in_crc.begin(), in_crc.end(), plain), in_crc.end());
  EXPECT_EQ(keys_of(700), in_700) << "unchanged by a key filed elsewhere";
}

TEST_P(VBucketDocumentsTest, EachVBucketFindsWhatWasFiledUnderItFromAnotherShard) {
  // Keys whose CRCs name neither vbucket they are filed under (0 and 5), as memcached clients
  // and requests that name a vbucket of their own file them.
  std::vector<std::string> keys;
  for (int i = 0; keys.size() < 4; ++i) {
    const std::string key = "spread" + std::to_string(i);
    const uint16_t home = vbucket_of_key(key);
    if ((home & (GetParam() - 1)) != 0 && (home & (GetParam() - 1)) != (5 & (GetParam() - 1))) {
      keys.push_back(key);
    }
  }
  store(keys[0], 0);
  store(keys[1], 0);
  store(keys[2], 5);
  store(keys[3], 5);
  std::vector<std::string> under_0{keys[0], keys[1]};
  std::vector<std::string> under_5{keys[2], keys[3]};
  std::sort(under_0.begin(), under_0.end());
  std::sort(under_5.begin(), under_5.end());
  EXPECT_EQ(keys_of(0), under_0);
  EXPECT_EQ(keys_of(5), under_5);
  for (const std::string& key : keys) {
    const std::vector<std::string> at_home = keys_of(vbucket_of_key(key));
    EXPECT_EQ(std::find(at_home.begin(), at_home.end(), key), at_home.end()) << key;
  }
}

TEST_P(VBucketDocumentsTest, RemovedAndExpiredDocumentsAreNotHandedOut) {
  const std::string key = "gone";
  const uint16_t vbucket = vbucket_of_key(key);
  store(key, vbucket);
  ASSERT_EQ(engine_.remove(key, 0, {.vbucket = &vbuckets_[vbucket]}).status, Status::Success);
  ASSERT_EQ(engine_
                .store(StoreMode::Set, "brief", "v", 0, 10, 0, 0,
                       {.vbucket = &vbuckets_[vbucket_of_key("brief")]})
                .status,
            Status::Success);
  clock_.advance_seconds(11);
  EXPECT_TRUE(keys_of(vbucket).empty());
  EXPECT_TRUE(keys_of(vbucket_of_key("brief")).empty());
}

}  // namespace
}  // namespace tern::engine
