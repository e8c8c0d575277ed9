// Items (item.h, stored_item.h) and the index's one-word slots (hash_table.h): reference
// counts, shared bytes and the index view (the quota charge is pinned in hash_table_test.cc).
// Built twice: into engine_tests, and alone into item_tests, which `make test-tsan` runs
// under ThreadSanitizer.

#include "engine/item.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/hash_table.h"
#include "engine/key_hash.h"
#include "engine/stored_item.h"

namespace tern::engine {
namespace {

TEST(ItemTest, HoldsItsKeyAndValueAfterItsHeader) {
  MutableItemPtr item = make_item("key", {"val", "", "ue"});
  EXPECT_EQ(item->key(), "key");
  EXPECT_EQ(item->value(), "value");
  const char* header = reinterpret_cast<const char*>(item.get());
  EXPECT_EQ(item->key().data(), header + sizeof(Item));
  EXPECT_EQ(item->value().data(), header + sizeof(Item) + 3);
  EXPECT_EQ(sizeof(Item), 56u);
  EXPECT_EQ(sizeof(ItemPtr), sizeof(void*));
}

TEST(ItemTest, RefusesAKeyLongerThanTheLimitNamingBoth) {
  EXPECT_NO_THROW(make_item(std::string(kMaxItemKeySize, 'k'), {}));
  try {
    make_item(std::string(kMaxItemKeySize + 1, 'k'), {});
    FAIL() << "a 256-byte key was accepted";
  } catch (const std::length_error& error) {
    EXPECT_STREQ(error.what(), "item key of 256 bytes: the limit is 255");
  }
}

TEST(ItemTest, ARemetaItemSharesTheOriginalBytesAndKeepsThemAlive) {
  MutableItemPtr original = make_item("k", {"value"});
  original->cas = 7;
  original->seqno = 3;
  MutableItemPtr first = remeta_item(original);
  MutableItemPtr second = remeta_item(first);  // shares the original's, not a chain
  EXPECT_EQ(first->cas, 7u);
  EXPECT_EQ(second->seqno, 3u);
  EXPECT_EQ(second->value().data(), original->value().data());
  const char* bytes = original->value().data();
  original.reset();
  first.reset();
  EXPECT_EQ(second->value(), "value");  // under ASan: the bytes were not freed
  EXPECT_EQ(second->value().data(), bytes);
}

TEST(ItemTest, ANonResidentCopyKeepsMetadataAndIndexViewButNotTheValue) {
  MutableItemPtr document = make_item("k", {"value"});
  document->cas = 9;
  document->set_lock(/*deadline_ms=*/5'000, /*now_ms=*/1'000);
  MutableItemPtr copy = make_non_resident(*document);
  EXPECT_EQ(copy->key(), "k");
  EXPECT_EQ(copy->value(), "");
  EXPECT_FALSE(copy->resident);
  EXPECT_EQ(copy->cas, 9u);
  EXPECT_TRUE(copy->locked_at(4'999));
  EXPECT_FALSE(copy->locked_at(5'000));
}

TEST(ItemTest, ReferenceCountsHoldUnderConcurrentCopies) {
  // Four threads copy and drop references to one item and to items sharing its bytes; the
  // last reference frees each exactly once (ASan and TSan check the frees and the counts).
  MutableItemPtr original = make_item("key", {std::string(100, 'v')});
  ItemPtr shared = original;
  original.reset();
  std::atomic<size_t> bytes_seen{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([shared, &bytes_seen] {
      size_t seen = 0;
      for (int i = 0; i < 20'000; ++i) {
        ItemPtr copy = shared;
        ItemPtr moved = std::move(copy);
        MutableItemPtr sharer = remeta_item(moved);
        seen += sharer->value().size();
      }
      bytes_seen += seen;
    });
  }
  shared.reset();  // the threads' copies are the last references now
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bytes_seen.load(), 4u * 20'000 * 100);
}

TEST(ItemTest, LockAndIdleTimeSurviveTheClockWrappingItsLowBits) {
  MutableItemPtr item = make_item("k", {});
  const int64_t before_wrap = (int64_t{1} << 32) - 10;  // the low 32 bits wrap in 10 ms
  item->set_lock(before_wrap + 30, before_wrap);
  EXPECT_TRUE(item->locked_at(before_wrap + 29));
  EXPECT_FALSE(item->locked_at(before_wrap + 30));
  EXPECT_EQ(item->idle_ms(before_wrap + 29), 0u);  // a locked item is never idle
  item->touch_access(before_wrap + 5);             // a read keeps the lock's deadline
  EXPECT_TRUE(item->locked_at(before_wrap + 20));
  item->set_lock(0, before_wrap + 40);  // unlocked, used at +40
  EXPECT_FALSE(item->locked_at(before_wrap + 40));
  EXPECT_EQ(item->idle_ms(before_wrap + 140), 100u);
  item->touch_access(before_wrap + 140);
  EXPECT_EQ(item->idle_ms(before_wrap + 145), 5u);
  const int64_t thirty_days = int64_t{30} * 24 * 3600 * 1000;  // past int32's 24.8 days
  EXPECT_EQ(item->idle_ms(before_wrap + 140 + thirty_days), uint32_t(thirty_days));
}

TEST(TaggedSlotTest, IsOneWordThatKeepsItsTagAcrossReplacement) {
  EXPECT_EQ(sizeof(Slot), 8u);
  const uint64_t hash = hash_key("k");
  Slot slot;
  EXPECT_FALSE(slot.item);
  slot.item.set(hash, make_item("k", {"1"}));
  EXPECT_TRUE(slot.item.tagged(hash));
  EXPECT_FALSE(slot.item.tagged(hash ^ (uint64_t{1} << 40)));  // a tag bit
  EXPECT_TRUE(slot.item.tagged(hash ^ (uint64_t{1} << 60)));   // a shard's bit: not the tag
  slot.item = make_item("k", {"2"});                           // the same key's next item
  EXPECT_TRUE(slot.item.tagged(hash));
  EXPECT_EQ(slot.item->value(), "2");
  const ItemPtr copy = slot.item;  // another reference: the slot keeps its own
  EXPECT_EQ(slot.item.get(), copy.get());
  ItemPtr taken = std::move(slot.item);  // the slot's reference: the slot is free
  EXPECT_FALSE(slot.item);
  EXPECT_EQ(taken->value(), "2");
  slot.item = make_item("k", {"3"});  // taken out, then replaced: the tag stays the key's
  EXPECT_TRUE(slot.item.tagged(hash));
}

TEST(TaggedSlotTest, ASlotWhoseTagDiffersIsPassedWithoutReadingItsKey) {
  HashTable table;
  const std::string key = "present";
  table.insert(hash_key(key), make_item(key, {"v"}));
  // The same key and home slot (the low bits), another tag (bits 32-47): a table that
  // compared keys alone would find it.
  const uint64_t tag_bits = uint64_t{0xffff} << 32;
  const uint64_t other = hash_key(key) ^ tag_bits;
  EXPECT_EQ(table.find(other, key), HashTable::npos);
  EXPECT_NE(table.find(hash_key(key), key), HashTable::npos);
}

TEST(TaggedSlotTest, EraseAndGrowthRehashFromTheKeys) {
  HashTable table;
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; ++i) {
    keys.push_back("key" + std::to_string(i));
    table.insert(hash_key(keys.back()), make_item(keys.back(), {}));
  }
  for (size_t i = 0; i < keys.size(); i += 2) {
    table.erase(table.find(hash_key(keys[i]), keys[i]));
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(table.find(hash_key(keys[i]), keys[i]) != HashTable::npos, i % 2 == 1) << keys[i];
  }
}

}  // namespace
}  // namespace tern::engine
