#include "engine/hash_table.h"

#include <gtest/gtest.h>

#include <map>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "engine/engine_fixture.h"
#include "engine/key_hash.h"
#include "engine/stored_item.h"

namespace tern::engine {
namespace {

ItemPtr item_for(const std::string& key) { return make_item(key, {"v"}); }

TEST(HashTableTest, FindsWhatWasInsertedAndNothingElse) {
  HashTable table;
  for (int i = 0; i < 100; ++i) {
    const std::string key = "k" + std::to_string(i);
    table.insert(hash_key(key), item_for(key));
  }
  EXPECT_EQ(table.size(), 100u);
  EXPECT_GE(table.capacity() * 3, table.size() * 4);
  for (int i = 0; i < 100; ++i) {
    const std::string key = "k" + std::to_string(i);
    const size_t index = table.find(hash_key(key), key);
    ASSERT_NE(index, HashTable::npos);
    EXPECT_EQ(table.at(index).item->key(), key);
  }
  EXPECT_EQ(table.find(hash_key("k100"), "k100"), HashTable::npos);
}

TEST(HashTableTest, FailedGrowthLeavesTheTableAsItWas) {
  HashTable table;
  const size_t initial_capacity = table.capacity();
  std::vector<std::string> keys;
  // Fill to the 3/4 load factor: one more insert must grow the table.
  while ((keys.size() + 1) * 4 <= initial_capacity * 3) {
    keys.push_back("k" + std::to_string(keys.size()));
    table.insert(hash_key(keys.back()), item_for(keys.back()));
  }
  {
    GrowthFailure failure;
    EXPECT_THROW(table.reserve_one(), std::bad_alloc);
    EXPECT_THROW(table.insert(hash_key("extra"), item_for("extra")), std::bad_alloc);
  }
  EXPECT_EQ(table.size(), keys.size());
  EXPECT_EQ(table.capacity(), initial_capacity);
  for (const std::string& key : keys) EXPECT_NE(table.find(hash_key(key), key), HashTable::npos);
  EXPECT_EQ(table.find(hash_key("extra"), "extra"), HashTable::npos);

  table.reserve_one();
  EXPECT_EQ(table.capacity(), initial_capacity / 2 * 3);
  table.insert(hash_key("extra"), item_for("extra"));
  EXPECT_NE(table.find(hash_key("extra"), "extra"), HashTable::npos);
}

// The table grows by 3/2 and 4/3 in turn, so that it holds between 4/3 and 2 slots per item
// (doubling would hold up to 8/3), and stays within its 3/4 load factor.
TEST(HashTableTest, GrowsByThreeHalvesAndFourThirdsInTurn) {
  HashTable table;
  std::vector<size_t> capacities = {table.capacity()};
  for (int i = 0; table.capacity() < 64; ++i) {
    const std::string key = "k" + std::to_string(i);
    table.insert(hash_key(key), item_for(key));
    if (table.capacity() != capacities.back()) {
      capacities.push_back(table.capacity());
      EXPECT_EQ(table.size() * 4, capacities[capacities.size() - 2] * 3 + 4)
          << "grew one item past a load of 3/4";
    }
  }
  EXPECT_EQ(capacities, (std::vector<size_t>{8, 12, 16, 24, 32, 48, 64}));
  for (size_t i = 0; i < table.size(); ++i) {
    const std::string key = "k" + std::to_string(i);
    EXPECT_NE(table.find(hash_key(key), key), HashTable::npos) << key;
  }
}

// Every key hashes to the same few home slots (a hash's low 32 bits scaled to the table:
// 5/32 to 8/32 of the way in, and the last slot), so probe runs are long and wrap around:
// erasing must keep every remaining key findable.
uint64_t colliding_hash(std::string_view key) {
  return hash_key(key) % 3 == 0 ? ~uint64_t{0} : ((hash_key(key) % 4) + 5) << 27;
}

TEST(HashTableTest, RandomEraseKeepsCollidingKeysFindable) {
  std::mt19937 random(7);
  HashTable table(colliding_hash);
  std::map<std::string, uint64_t> present;
  for (int round = 0; round < 4000; ++round) {
    const std::string key = "k" + std::to_string(random() % 200);
    const uint64_t hash = colliding_hash(key);
    const uint64_t stored_hash = present.count(key) ? present[key] : hash;
    const size_t index = table.find(stored_hash, key);
    ASSERT_EQ(index != HashTable::npos, present.count(key) == 1) << key;
    if (index == HashTable::npos) {
      table.insert(hash, item_for(key));
      present[key] = hash;
    } else {
      EXPECT_EQ(table.erase(index)->key(), key);
      present.erase(key);
    }
    ASSERT_EQ(table.size(), present.size());
  }
  for (const auto& [key, hash] : present) EXPECT_NE(table.find(hash, key), HashTable::npos);
}

TEST(KeyHashTest, SpreadsKeysEvenlyOverHighBits) {
  // 256 shards from the top 8 bits; each should get close to its share of 64k keys.
  std::vector<int> counts(256);
  for (int i = 0; i < 65536; ++i) ++counts[hash_key("user:" + std::to_string(i)) >> 56];
  for (int count : counts) {
    EXPECT_GT(count, 256 / 2);
    EXPECT_LT(count, 256 * 2);
  }
  EXPECT_NE(hash_key("a"), hash_key("b"));
  EXPECT_NE(hash_key(""), hash_key(std::string_view("\0", 1)));
  EXPECT_NE(hash_key("12345678"), hash_key("123456789"));
}

TEST(StoredItemTest, HoldsKeyAndConcatenatedValue) {
  auto item = make_item("key", {"ab", "", "cd"});
  EXPECT_EQ(item->key(), "key");
  EXPECT_EQ(item->value(), "abcd");
  EXPECT_EQ(item->cas, 0u);
}

// Pins the charge formula with numbers worked out by hand for a 64-bit target, so that a
// change to it, or to the structures it stands for, is a visible decision:
//   the item's header (item.h): flags 4, vbucket 2, datatype 1, the bits 1, locked 1, key
//     size 1 + 2 padding, last use 4, cas 8, expiry 8, revision seqno 8, seqno 8,
//     reference count 4, value size 4                                    =  56
//   the heap's header (glibc)                                            =   8
//   glibc's rounding up to 16 bytes, on average                          =   8
//   a Slot (one tagged pointer) = 8, at the table's average load of 2/3
//     costs 8 * 3 / 2                                                    =  12
// so every item costs its key and value plus 84 bytes (it was 164 with shared_ptr items and
// 40-byte slots).
TEST(StoredItemTest, ChargeIsKeyAndValuePlus84Bytes) {
  EXPECT_EQ(item_charge(0, 0), 84u);
  EXPECT_EQ(item_charge(5, 10), 99u);
  EXPECT_EQ(item_charge(250, 1024), 1358u);
  EXPECT_EQ(item_charge(*make_item("key", {"ab", "cd"})), 91u);
}

TEST(StoredItemTest, RemetaSharesBytesAndCopiesMetadata) {
  auto base = make_item("key", {"value"});
  base->flags = 3;
  base->cas = 9;
  base->expiry_ms = 1234;
  base->datatype = 1;
  base->rev_seqno = 4;
  base->seqno = 17;
  ItemPtr original = base;
  auto copy = remeta_item(original);
  auto copy_of_copy = remeta_item(copy);
  EXPECT_EQ(copy_of_copy->value().data(), original->value().data());
  EXPECT_EQ(copy_of_copy->key(), "key");
  EXPECT_EQ(copy->flags, 3u);
  EXPECT_EQ(copy->cas, 9u);
  EXPECT_EQ(copy->expiry_ms, 1234);
  EXPECT_EQ(copy->datatype, 1);
  EXPECT_EQ(copy->rev_seqno, 4u);
  EXPECT_EQ(copy->seqno, 17u);  // a touch or a lock keeps the seqno of the last mutation
  original.reset();
  base.reset();
  EXPECT_EQ(copy_of_copy->value(), "value");  // the bytes live as long as a user
}

}  // namespace
}  // namespace tern::engine
