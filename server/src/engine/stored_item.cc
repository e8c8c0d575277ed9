#include "engine/stored_item.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

#include "engine/hash_table.h"

namespace tern::engine {

// The one place that builds items: it alone may call Item's constructor.
class ItemFactory {
 public:
  // An item with room for `key` and `value_size` bytes of value after its header.
  static MutableItemPtr inline_item(std::string_view key, size_t value_size) {
    if (key.size() > kMaxItemKeySize) {
      throw std::length_error("item key of " + std::to_string(key.size()) +
                              " bytes: the limit is " + std::to_string(kMaxItemKeySize));
    }
    if (value_size > std::numeric_limits<uint32_t>::max()) {
      throw std::length_error("item value of " + std::to_string(value_size) +
                              " bytes: the limit is 4 GiB");
    }
    void* block = ::operator new(sizeof(Item) + key.size() + value_size);
    auto* item = new (block) Item(static_cast<uint8_t>(key.size()),
                                  static_cast<uint32_t>(value_size), /*shares_bytes=*/false);
    if (!key.empty()) std::memcpy(item->inline_bytes(), key.data(), key.size());
    return MutableItemPtr::adopt(item);
  }

  // An item whose key and value are `owner`'s, which it keeps alive.
  static MutableItemPtr sharing(const ItemPtr& owner) {
    void* block = ::operator new(sizeof(Item) + sizeof(ItemPtr));
    auto* item = new (block) Item(owner->key_size_, owner->value_size_, /*shares_bytes=*/true);
    new (item->inline_bytes()) ItemPtr(owner);
    return MutableItemPtr::adopt(item);
  }

  // The item whose bytes `item` reads: itself, or the one it shares them with.
  static const ItemPtr& owner_of(const Item& item) {
    assert(item.shares_bytes_);
    return *std::launder(reinterpret_cast<const ItemPtr*>(item.inline_bytes()));
  }

  static char* value_bytes(Item& item) { return item.inline_bytes() + item.key_size_; }
  static bool shares_bytes(const Item& item) { return item.shares_bytes_; }
};

const char* Item::bytes() const {
  return shares_bytes_ ? ItemFactory::owner_of(*this)->inline_bytes() : inline_bytes();
}

void Item::release(const Item* item) {
  if (item->refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  auto* last = const_cast<Item*>(item);  // no one else refers to it any more
  if (last->shares_bytes_) {
    std::launder(reinterpret_cast<ItemPtr*>(last->inline_bytes()))->~ItemPtr();
  }
  last->~Item();
  ::operator delete(static_cast<void*>(last));
}

void copy_metadata(const Item& from, Item& to) {
  static_cast<DocumentMeta&>(to) = from;
  to.expiry_ms = from.expiry_ms;
  to.resident = from.resident;
}

MutableItemPtr make_item(std::string_view key,
                         std::initializer_list<std::string_view> value_parts) {
  size_t value_size = 0;
  for (std::string_view part : value_parts) value_size += part.size();
  MutableItemPtr item = ItemFactory::inline_item(key, value_size);
  char* out = ItemFactory::value_bytes(*item);
  for (std::string_view part : value_parts) {
    if (part.empty()) continue;
    std::memcpy(out, part.data(), part.size());
    out += part.size();
  }
  return item;
}

std::span<char> unpublished_value(Item& item) {
  assert(!ItemFactory::shares_bytes(item));
  return {ItemFactory::value_bytes(item), item.value().size()};
}

MutableItemPtr remeta_item(const ItemPtr& base) {
  // Share the original bytes, never a chain of sharers.
  MutableItemPtr item =
      ItemFactory::sharing(ItemFactory::shares_bytes(*base) ? ItemFactory::owner_of(*base) : base);
  copy_metadata(*base, *item);
  return item;
}

MutableItemPtr make_non_resident(const Item& document) {
  if (fail_non_resident_for_testing.load(std::memory_order_relaxed)) throw std::bad_alloc();
  // The key alone: the value's bytes are what eviction frees.
  MutableItemPtr item = make_item(document.key(), {});
  copy_metadata(document, *item);
  item->resident = false;
  item->inherit_index_view(document);
  return item;
}

MutableItemPtr make_absent_marker(std::string_view key) {
  MutableItemPtr marker = make_item(key, {});
  marker->deleted = true;
  marker->absent = true;
  return marker;
}

size_t item_charge(size_t key_size, size_t value_size) {
  // The item's heap block: its header, key and value, the allocator's 8-byte header, and on
  // average half of glibc's 16-byte granule lost to rounding up (a mean, so that the charge
  // stays linear: evicting a value frees exactly its size). Then its index slot, one word,
  // at the table's average load of 2/3 (hash_table.h).
  constexpr size_t kHeapHeader = 8;
  constexpr size_t kMeanRounding = 8;
  constexpr size_t kSlotShare = sizeof(Slot) * 3 / 2;
  return sizeof(Item) + kHeapHeader + kMeanRounding + kSlotShare + key_size + value_size;
}

}  // namespace tern::engine
