#include "engine/hash_table.h"

#include <new>
#include <utility>

namespace tern::engine {
namespace {
constexpr size_t kInitialCapacity = 8;
}  // namespace

HashTable::HashTable(KeyHasher hasher) : slots_(kInitialCapacity), hasher_(hasher) {}

size_t HashTable::home_of(const Slot& slot) const { return home(hasher_(slot.item->key())); }

void HashTable::reserve_one() {
  // Keep the load factor at most 3/4 so probe sequences stay short.
  if ((size_ + 1) * 4 > slots_.size() * 3) grow();
}

Slot& HashTable::insert(uint64_t hash, ItemPtr item) {
  reserve_one();
  size_t i = home(hash);
  while (slots_[i].item) i = next(i);
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
  for (size_t j = next(hole); slots_[j].item; j = next(j)) {
    const size_t j_home = home_of(slots_[j]);
    // Slot j may fill the hole unless its home lies cyclically in (hole, j].
    const bool home_after_hole =
        hole <= j ? (j_home > hole && j_home <= j) : (j_home > hole || j_home <= j);
    if (home_after_hole) continue;
    slots_[hole] = std::move(slots_[j]);
    hole = j;
  }
  return removed;
}

void HashTable::grow() {
  if (fail_growth_for_testing.load(std::memory_order_relaxed)) throw std::bad_alloc();
  // By 3/2 from a power of two and by 4/3 back to the next one (8, 12, 16, 24, ...): a
  // table of n items then holds between 1.33n and 2n slots, where doubling would hold
  // between 1.33n and 2.67n. At 1M items in 1,024 shards that is 12 MiB of index, not 16.
  const size_t size = slots_.size();
  const bool power_of_two = (size & (size - 1)) == 0;
  std::vector<Slot> old(power_of_two ? size / 2 * 3 : size / 3 * 4);
  old.swap(slots_);
  for (Slot& slot : old) {
    if (!slot.item) continue;
    size_t i = home_of(slot);
    while (slots_[i].item) i = next(i);
    slots_[i] = std::move(slot);
  }
}

}  // namespace tern::engine
