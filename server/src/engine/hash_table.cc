#include "engine/hash_table.h"

#include <new>
#include <utility>

namespace tern::engine {
namespace {
constexpr size_t kInitialCapacity = 8;
}  // namespace

HashTable::HashTable(KeyHasher hasher) : slots_(kInitialCapacity), hasher_(hasher) {}

size_t HashTable::home_of(const Slot& slot) const { return hasher_(slot.item->key()) & mask(); }

void HashTable::reserve_one() {
  // Keep the load factor at most 3/4 so probe sequences stay short.
  if ((size_ + 1) * 4 > slots_.size() * 3) grow();
}

Slot& HashTable::insert(uint64_t hash, ItemPtr item) {
  reserve_one();
  size_t i = hash & mask();
  while (slots_[i].item) i = (i + 1) & mask();
  Slot& slot = slots_[i];
  slot.item.set(hash, std::move(item));
  ++size_;
  return slot;
}

ItemPtr HashTable::erase(size_t index) {
  ItemPtr removed = std::move(slots_[index].item);
  --size_;
  // Backward-shift deletion: pull later members of the probe run into the hole, so lookups
  // never need tombstones.
  size_t hole = index;
  for (size_t j = (hole + 1) & mask(); slots_[j].item; j = (j + 1) & mask()) {
    const size_t home = home_of(slots_[j]);
    // Slot j may fill the hole unless its home lies cyclically in (hole, j].
    const bool home_after_hole =
        hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (home_after_hole) continue;
    slots_[hole] = std::move(slots_[j]);
    hole = j;
  }
  return removed;
}

void HashTable::grow() {
  if (fail_growth_for_testing.load(std::memory_order_relaxed)) throw std::bad_alloc();
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  for (Slot& slot : old) {
    if (!slot.item) continue;
    size_t i = home_of(slot);
    while (slots_[i].item) i = (i + 1) & mask();
    slots_[i] = std::move(slot);
  }
}

}  // namespace tern::engine
