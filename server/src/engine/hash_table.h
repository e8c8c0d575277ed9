#pragma once
// One shard's index: an open-addressing (linear probing) table of item slots. Not
// thread-safe; the shard's mutex guards it. Items live in the slots themselves, so the
// table costs no allocation per item.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/item.h"

namespace tern::engine {

struct Slot {
  ItemPtr item;  // null when the slot is free
  uint64_t hash = 0;
  int64_t lock_deadline_ms = 0;  // locked while the clock reads less than this
  int64_t last_access_ms = 0;    // the recency signal eviction uses
};

class HashTable {
 public:
  static constexpr size_t npos = ~size_t{0};

  HashTable();

  // The index of the slot holding `key`, or npos.
  size_t find(uint64_t hash, std::string_view key) const;

  // Makes room for one more item, growing the table if it needs to, so that the next
  // insert() allocates nothing and cannot throw. Growing invalidates indexes. Throws
  // std::bad_alloc if the bigger table cannot be allocated, leaving the table as it was.
  void reserve_one();

  // Stores an item whose key is absent and returns its slot. Invalidates indexes. Grows
  // the table as reserve_one() does, with the same failure.
  Slot& insert(uint64_t hash, ItemPtr item);

  // Frees the slot at `index` and returns its item. Later slots may move into `index`, so a
  // scan that erases should look at the same index again.
  ItemPtr erase(size_t index);

  Slot& at(size_t index) { return slots_[index]; }
  const Slot& at(size_t index) const { return slots_[index]; }
  size_t capacity() const { return slots_.size(); }
  size_t size() const { return size_; }
  void swap(HashTable& other) noexcept {
    slots_.swap(other.slots_);
    std::swap(size_, other.size_);
  }

  // Test seam: while this is set, every table that tries to grow fails as if the
  // allocation had (std::bad_alloc), so tests can reach the failure path.
  static inline std::atomic<bool> fail_growth_for_testing{false};

 private:
  void grow();
  size_t mask() const { return slots_.size() - 1; }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace tern::engine
