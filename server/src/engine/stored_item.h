#pragma once
// The engine's concrete items. A fresh item lives in one allocation together with its key,
// its value and its reference count; an item that only changes metadata (touch, lock)
// shares the bytes of the item it replaces instead of copying them.

#include <atomic>
#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "engine/item.h"

namespace tern::engine {

// A new item holding `key` and the concatenation of `value_parts` as its value. Metadata
// is zero; the caller fills it in before publishing the item.
std::shared_ptr<Item> make_item(std::string_view key,
                                std::initializer_list<std::string_view> value_parts);

// The value bytes of an item make_item() built, to overwrite in place before the item is
// published: until then no one else can see them. Never for a published item, nor for one
// remeta_item() built (its bytes are another item's).
std::span<char> unpublished_value(Item& item);

// A new item with the key and value bytes of `base`, and a copy of its metadata.
std::shared_ptr<Item> remeta_item(const ItemPtr& base);

// What value eviction leaves of a persisted document (Item::resident false): a new item
// with its key and a copy of its metadata (the disk holds the whole document) and an empty
// value. It costs the quota its key and the per-item overhead only.
std::shared_ptr<Item> make_non_resident(const Item& document);

// Full eviction's absent marker for `key` (Item::absent, and deleted): the key alone, no
// value, never expiring; it costs the quota what a non-resident copy does.
std::shared_ptr<Item> make_absent_marker(std::string_view key);

// Test seam: while this is set, make_non_resident() fails as if the allocation had
// (std::bad_alloc), so tests can reach eviction's failure path.
inline std::atomic<bool> fail_non_resident_for_testing{false};

// The bytes an item with these sizes counts towards the memory quota: its key and value
// plus the allocation and hash-table overhead each item costs.
size_t item_charge(size_t key_size, size_t value_size);
inline size_t item_charge(const Item& item) {
  return item_charge(item.key().size(), item.value().size());
}

}  // namespace tern::engine
