#pragma once
// How the engine builds items (item.h). A fresh item is one allocation: its header, then its
// key and value. An item that only changes metadata (touch, lock) shares the bytes of the
// item it replaces instead of copying them.

#include <atomic>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string_view>

#include "engine/item.h"

namespace tern::engine {

// A new item holding `key` and the concatenation of `value_parts` as its value. Metadata
// is zero; the caller fills it in before publishing the item. Throws std::length_error for
// a key longer than kMaxItemKeySize (the commands refuse longer ones first) or a value of
// 4 GiB or more, and std::bad_alloc.
inline constexpr size_t kMaxItemKeySize = 255;  // 250 bytes and a collection prefix
MutableItemPtr make_item(std::string_view key, std::initializer_list<std::string_view> value_parts);

// The value bytes of an item make_item() built, to overwrite in place before the item is
// published: until then no one else can see them. Never for a published item, nor for one
// remeta_item() built (its bytes are another item's).
std::span<char> unpublished_value(Item& item);

// Copies what describes the document (its DocumentMeta, expiry and residence) from one item
// to another, not yet published.
void copy_metadata(const Item& from, Item& to);

// A new item with the key and value bytes of `base`, and a copy of its metadata.
MutableItemPtr remeta_item(const ItemPtr& base);

// What value eviction leaves of a persisted document (Item::resident false): a new item
// with its key, a copy of its metadata (the disk holds the whole document) and of its index
// view (item.h), and an empty value. It costs the quota its key and the per-item overhead
// only.
MutableItemPtr make_non_resident(const Item& document);

// Full eviction's absent marker for `key` (Item::absent, and deleted): the key alone, no
// value, never expiring; it costs the quota what a non-resident copy does.
MutableItemPtr make_absent_marker(std::string_view key);

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
