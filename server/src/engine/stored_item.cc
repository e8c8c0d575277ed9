#include "engine/stored_item.h"

#include "engine/hash_table.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <new>

namespace tern::engine {
namespace {

// Where the key and value bytes of an item go: filled in by TrailingAllocator when
// allocate_shared asks it for the control block, read by the item's constructor.
struct TrailingBytes {
  size_t size = 0;
  char* data = nullptr;
};

// Allocates the block allocate_shared asks for plus TrailingBytes::size bytes after it, so
// the reference count, the item and its bytes share one allocation.
template <class T>
struct TrailingAllocator {
  using value_type = T;
  TrailingBytes* trailing;

  explicit TrailingAllocator(TrailingBytes* t) : trailing(t) {}
  template <class U>
  TrailingAllocator(const TrailingAllocator<U>& other) : trailing(other.trailing) {}

  T* allocate(size_t n) {
    const size_t head = n * sizeof(T);
    char* block = static_cast<char*>(::operator new(head + trailing->size));
    trailing->data = block + head;
    return reinterpret_cast<T*>(block);
  }
  // `trailing` may dangle by now; the block's size is not needed to free it.
  void deallocate(T* p, size_t) { ::operator delete(static_cast<void*>(p)); }

  template <class U>
  bool operator==(const TrailingAllocator<U>&) const { return true; }
};

class InlineItem final : public Item {
 public:
  InlineItem(const TrailingBytes& bytes, size_t key_size)
      : key_size_(static_cast<uint16_t>(key_size)),
        value_size_(static_cast<uint32_t>(bytes.size - key_size)),
        data_(bytes.data) {}
  std::string_view key() const override { return {data_, key_size_}; }
  std::string_view value() const override { return {data_ + key_size_, value_size_}; }

 private:
  // The sizes first: they fit in the tail padding Item leaves after its last byte-sized
  // fields, which keeps the item (with the pointer) in one cache line.
  uint16_t key_size_;  // keys are at most 250 bytes plus a collection prefix (the commands
                       // check), values far below 4 GiB
  uint32_t value_size_;
  const char* data_;
};
// 8 bytes for Item::rev_seqno and 8 for Item::seqno; Item::vbucket, deleted, resident and
// the 16-bit key size fit in what was padding.
static_assert(sizeof(InlineItem) == 64);

class RemetaItem final : public Item {
 public:
  explicit RemetaItem(ItemPtr bytes_owner) : bytes_owner_(std::move(bytes_owner)) {}
  std::string_view key() const override { return bytes_owner_->key(); }
  std::string_view value() const override { return bytes_owner_->value(); }
  const ItemPtr& bytes_owner() const { return bytes_owner_; }

 private:
  ItemPtr bytes_owner_;
};

}  // namespace

std::shared_ptr<Item> make_item(std::string_view key,
                                std::initializer_list<std::string_view> value_parts) {
  TrailingBytes bytes;
  bytes.size = key.size();
  for (std::string_view part : value_parts) bytes.size += part.size();
  auto item = std::allocate_shared<InlineItem>(TrailingAllocator<InlineItem>(&bytes), bytes,
                                               key.size());
  char* out = bytes.data;
  if (!key.empty()) std::memcpy(out, key.data(), key.size());
  out += key.size();
  for (std::string_view part : value_parts) {
    if (part.empty()) continue;
    std::memcpy(out, part.data(), part.size());
    out += part.size();
  }
  return item;
}

std::span<char> unpublished_value(Item& item) {
  assert(dynamic_cast<InlineItem*>(&item) != nullptr);
  const std::string_view value = item.value();
  // make_item's bytes live in the item's own allocation, which is not const.
  return {const_cast<char*>(value.data()), value.size()};
}

std::shared_ptr<Item> remeta_item(const ItemPtr& base) {
  // Share the original bytes, never a chain of wrappers.
  const auto* wrapper = dynamic_cast<const RemetaItem*>(base.get());
  auto item = std::make_shared<RemetaItem>(wrapper ? wrapper->bytes_owner() : base);
  item->flags = base->flags;
  item->datatype = base->datatype;
  item->cas = base->cas;
  item->expiry_ms = base->expiry_ms;
  item->deleted = base->deleted;
  item->rev_seqno = base->rev_seqno;
  item->seqno = base->seqno;
  item->vbucket = base->vbucket;
  item->resident = base->resident;
  return item;
}

std::shared_ptr<Item> make_non_resident(const Item& document) {
  if (fail_non_resident_for_testing.load(std::memory_order_relaxed)) throw std::bad_alloc();
  // An InlineItem of the key alone: the value's bytes are what eviction frees.
  auto item = make_item(document.key(), {});
  item->flags = document.flags;
  item->datatype = document.datatype;
  item->cas = document.cas;
  item->expiry_ms = document.expiry_ms;
  item->deleted = document.deleted;
  item->rev_seqno = document.rev_seqno;
  item->seqno = document.seqno;
  item->vbucket = document.vbucket;
  item->resident = false;
  return item;
}

std::shared_ptr<Item> make_absent_marker(std::string_view key) {
  auto marker = make_item(key, {});
  marker->deleted = true;
  marker->absent = true;
  return marker;
}

size_t item_charge(size_t key_size, size_t value_size) {
  // The item with its reference-count block (two counts, a vtable pointer, the allocator),
  // the heap's own header, and a hash-table slot at the table's average load (~2/3).
  constexpr size_t kControlBlock = 2 * sizeof(int) + 2 * sizeof(void*);
  constexpr size_t kHeapHeader = 16;
  constexpr size_t kOverhead =
      sizeof(InlineItem) + kControlBlock + kHeapHeader + sizeof(Slot) * 3 / 2;
  return key_size + value_size + kOverhead;
}

}  // namespace tern::engine
