#pragma once
// One shard's index: an open-addressing (linear probing) table of one-word slots. Not
// thread-safe; the shard's mutex guards it.
//
// A slot is the item's pointer with 16 bits of its key's hash in the pointer's unused high
// bits (user-space addresses on x86-64 and AArch64 fit in 48 bits), as kv_engine's tagged
// pointers do. The tag is bits 32-47 of the hash: the table picks the slot from the low 32 bits,
// so keys probed together share those and would tell each other apart less by them. A lookup
// compares tags within the index's cache line and reads an item only when its tag matches, so a hit
// costs one line of index and one of item, and a miss rarely more than the index line. The table
// keeps no hash per slot: growing and erasing hash the keys they move again (key_hash.h: a few ns
// for a short key), which reads their items.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/item.h"
#include "engine/key_hash.h"

namespace tern::engine {

// A slot's one word: an owned reference to an item, tagged. It reads as the item's pointer
// (->, *, bool) and converts to an ItemPtr, so callers rarely see the tag.
class TaggedItemPtr {
 public:
  TaggedItemPtr() = default;
  TaggedItemPtr(const TaggedItemPtr&) = delete;
  TaggedItemPtr& operator=(const TaggedItemPtr&) = delete;
  TaggedItemPtr(TaggedItemPtr&& other) noexcept : word_(std::exchange(other.word_, 0)) {}
  TaggedItemPtr& operator=(TaggedItemPtr&& other) noexcept {
    std::swap(word_, other.word_);
    return *this;
  }
  ~TaggedItemPtr() { drop(); }

  // Puts `item` in the slot with the tag of `hash`.
  void set(uint64_t hash, ItemPtr item) {
    drop();
    word_ = pack(item.release(), tag_of(hash));
  }
  // Replaces the item, keeping the tag: the new item must have the same key.
  TaggedItemPtr& operator=(ItemPtr item) {
    const uint64_t tag = word_ & kTagMask;
    drop();
    word_ = pack(item.release(), tag);
    return *this;
  }
  // Another reference to the item.
  operator ItemPtr() const& { return ItemPtr::share(get()); }  // NOLINT: reads as one
  // The slot's reference, leaving the slot free but tagged, so that the key's next item
  // can take its place (`replaced = std::move(slot.item); slot.item = next;`).
  operator ItemPtr() && {  // NOLINT
    const Item* item = get();
    word_ &= kTagMask;
    return ItemPtr::adopt(item);
  }

  const Item* get() const { return reinterpret_cast<const Item*>(word_ & ~kTagMask); }
  const Item& operator*() const { return *get(); }
  const Item* operator->() const { return get(); }
  explicit operator bool() const { return get() != nullptr; }
  bool tagged(uint64_t hash) const { return (word_ & kTagMask) == tag_of(hash); }

  static constexpr uint64_t tag_of(uint64_t hash) { return (hash << 16) & kTagMask; }

 private:
  static constexpr uint64_t kTagMask = 0xffffull << 48;
  void drop() {
    if (const Item* item = get()) ItemPtr::adopt(item).reset();
    word_ = 0;
  }
  static uint64_t pack(const Item* item, uint64_t tag) {
    const auto address = reinterpret_cast<uint64_t>(item);
    // An address beyond 48 bits would lose bits to the tag: a kernel with 5-level paging
    // gives one only to a process that asks for it (mmap with a high hint).
    if ((address & kTagMask) != 0) __builtin_trap();
    return item ? address | tag : 0;
  }
  uint64_t word_ = 0;
};
static_assert(sizeof(void*) == 8, "slots pack a tag into a 64-bit pointer");

struct Slot {
  TaggedItemPtr item;  // null when the slot is free
};
static_assert(sizeof(Slot) == 8);

class HashTable {
 public:
  static constexpr size_t npos = ~size_t{0};
  using KeyHasher = uint64_t (*)(std::string_view key);

  // Every `hash` the table is given must be `hasher(key)`: growing and erasing hash the keys
  // they move again. Tests pass a hasher that makes keys collide.
  explicit HashTable(KeyHasher hasher = hash_key);

  // The index of the slot holding `key` (whose hash is `hash`), or npos.
  size_t find(uint64_t hash, std::string_view key) const {
    for (size_t i = home(hash);; i = next(i)) {
      const TaggedItemPtr& slot = slots_[i].item;
      if (!slot) return npos;
      if (slot.tagged(hash) && slot->key() == key) return i;
    }
  }

  // Makes room for one more item, growing the table if it needs to, so that the next
  // insert() allocates nothing and cannot throw. Growing invalidates indexes. Throws
  // std::bad_alloc if the bigger table cannot be allocated, leaving the table as it was.
  void reserve_one();

  // Stores an item whose key (hashing to `hash`) is absent and returns its slot.
  // Invalidates indexes. Grows the table as reserve_one() does, with the same failure.
  Slot& insert(uint64_t hash, ItemPtr item);

  // Frees the slot at `index` and returns its item. Later slots may move into `index`, so a
  // scan that erases should look at the same index again.
  ItemPtr erase(size_t index);

  // The slot where the search for a key hashing to `hash` begins: the low 32 bits of the
  // hash scaled to the capacity (a multiply, as the capacity need not be a power of two).
  size_t home(uint64_t hash) const {
    return static_cast<size_t>((hash & 0xffffffffu) * slots_.size() >> 32);
  }

  Slot& at(size_t index) { return slots_[index]; }
  const Slot& at(size_t index) const { return slots_[index]; }
  size_t capacity() const { return slots_.size(); }
  size_t size() const { return size_; }
  void swap(HashTable& other) noexcept {
    slots_.swap(other.slots_);
    std::swap(size_, other.size_);
    std::swap(hasher_, other.hasher_);
  }

  // Test seam: while this is set, every table that tries to grow fails as if the
  // allocation had (std::bad_alloc), so tests can reach the failure path.
  static inline std::atomic<bool> fail_growth_for_testing{false};

 private:
  void grow();
  // The slot after `index`, wrapping around: a probe run may pass the table's end.
  size_t next(size_t index) const { return index + 1 == slots_.size() ? 0 : index + 1; }
  size_t home_of(const Slot& slot) const;

  std::vector<Slot> slots_;
  size_t size_ = 0;
  KeyHasher hasher_;
};

}  // namespace tern::engine
