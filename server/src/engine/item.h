#pragma once
// A stored document. Items are immutable once published: a mutation publishes a new item,
// so a reader holding an ItemPtr can keep using it after the key changes or goes away.
//
// An item is one allocation: a 56-byte header (its reference count and metadata), then the
// key and the value, as kv_engine's StoredValue and memcached's item are. The count is
// intrusive, so an ItemPtr is one pointer and a GET's lookup reads one line of index and
// one of item (hash_table.h). An item that only changes metadata (touch, lock) instead
// holds a reference to the item whose bytes it shares (stored_item.h: remeta_item).
//
// Two fields are not metadata but the index's view of the key, kept here so that an index
// slot is one word: when it was last used (eviction's recency signal) and whether it is
// locked. They change while the item is published, so only the holder of the lock of the
// shard whose index holds the item may touch them (locked_at, touch_access, set_lock).

#include <atomic>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common/document_meta.h"

namespace tern::engine {

class Item;

// A counted reference to an Item (or const Item): one pointer, copied with a relaxed
// increment and released with an acquire-release decrement, as shared_ptr does.
template <class T>
class RefPtr {
 public:
  RefPtr() = default;
  RefPtr(std::nullptr_t) {}  // NOLINT: as shared_ptr converts from nullptr
  RefPtr(const RefPtr& other) : item_(other.item_) { retain(); }
  RefPtr(RefPtr&& other) noexcept : item_(std::exchange(other.item_, nullptr)) {}
  // From a reference to a non-const item.
  template <class U>
    requires(!std::is_same_v<U, T> && std::is_convertible_v<U*, T*>)
  RefPtr(const RefPtr<U>& other) : item_(other.get()) {  // NOLINT: as shared_ptr converts
    retain();
  }
  template <class U>
    requires(!std::is_same_v<U, T> && std::is_convertible_v<U*, T*>)
  RefPtr(RefPtr<U>&& other) noexcept : item_(other.release()) {}  // NOLINT
  ~RefPtr() { reset(); }

  RefPtr& operator=(RefPtr other) noexcept {
    std::swap(item_, other.item_);
    return *this;
  }

  // Takes over a reference the caller owns (one counted for it, not yet released).
  static RefPtr adopt(T* item) {
    RefPtr ref;
    ref.item_ = item;
    return ref;
  }
  // A new reference to `item` (or null).
  static RefPtr share(T* item) {
    RefPtr ref = adopt(item);
    ref.retain();
    return ref;
  }
  // Gives up the reference without releasing it: the caller owns it now.
  T* release() { return std::exchange(item_, nullptr); }

  void reset();
  T* get() const { return item_; }
  T& operator*() const { return *item_; }
  T* operator->() const { return item_; }
  explicit operator bool() const { return item_ != nullptr; }
  friend bool operator==(const RefPtr& a, std::nullptr_t) { return a.item_ == nullptr; }
  friend bool operator==(const RefPtr& a, const RefPtr& b) { return a.item_ == b.item_; }

 private:
  void retain() const;
  T* item_ = nullptr;
};

class Item : public DocumentMeta {
 public:
  Item(const Item&) = delete;
  Item& operator=(const Item&) = delete;

  std::string_view key() const { return {bytes(), key_size_}; }
  std::string_view value() const { return {bytes() + key_size_, value_size_}; }

  // The metadata (DocumentMeta's, and these) is set by whoever builds the item, before it
  // is published. A tombstone (deleted) keeps as its value only the system extended
  // attributes the document had (xattr/blob.h), so that GET_META can report it deleted and
  // sub-document requests that ask for deleted documents can read and change those
  // attributes. Every other operation treats a tombstone as absent.
  //
  // Absolute expiry on the engine's steady clock, in ms; 0 means never. For a tombstone:
  // when it may be purged (its deletion time plus Config::metadata_purge_seconds).
  int64_t expiry_ms = 0;
  // False for a document whose value was evicted (persistent buckets, value eviction): the
  // item keeps the key and metadata, value() is empty, and the value is on disk. Whether an
  // item is on disk is not kept here but told by its seqno (EngineImpl::on_disk), so that
  // every copy of it (a lock's, a fetched one) knows as soon as the flusher is done.
  bool resident : 1 = true;
  // Full eviction (Config::full_eviction): not a document but a marker that the disk holds
  // no record of the key either, left by a background fetch so that the next operations
  // need not read the disk again. Also `deleted`, and hidden from every operation, which
  // treat the key as absent; the key's next change takes its place. Never on disk.
  bool absent : 1 = false;

 private:
  bool shares_bytes_ : 1 = false;  // the bytes are the owner's (remeta_item)
  // The index's view (see the file comment): set while the key is locked. A byte of its own,
  // not a bit beside the others: it changes while readers without the lock read those.
  mutable bool locked_ = false;
  uint8_t key_size_;  // at most 255: a key is at most 250 bytes and a collection prefix
  // The dirty queue's view (QueueState): changed by the shard that queues the item and by
  // the flusher, so atomic.
  mutable std::atomic<uint8_t> queue_state_{0};
  // The low 32 bits of the engine's steady clock (ms): when the key was last used or, while
  // locked_, until when it stays locked. Compared only as a difference, which a wrap of the
  // clock's low bits does not disturb: ages up to 49 days, lock deadlines up to 24 ahead.
  mutable uint32_t clock_ms_ = 0;

 public:
  // The index's view; the caller holds the lock of the shard whose index holds the item.
  bool locked_at(int64_t now_ms) const {
    return locked_ && static_cast<int32_t>(clock_ms_ - static_cast<uint32_t>(now_ms)) > 0;
  }
  // Marks the key used at `now_ms`; a lock keeps its deadline (a locked item is never
  // evicted, and its deadline then serves as its last use).
  void touch_access(int64_t now_ms) const {
    if (!locked_) clock_ms_ = static_cast<uint32_t>(now_ms);
  }
  // Locks the key until `deadline_ms` (at most 24 days ahead), or with 0 unlocks it, marking
  // it used at `now_ms`.
  void set_lock(int64_t deadline_ms, int64_t now_ms) const {
    locked_ = deadline_ms != 0;
    clock_ms_ = static_cast<uint32_t>(locked_ ? deadline_ms : now_ms);
  }
  // How long ago, in ms, the key was last used (modulo 2^32: 49 days); 0 while it is locked.
  uint32_t idle_ms(int64_t now_ms) const {
    return locked_ ? 0 : static_cast<uint32_t>(now_ms) - clock_ms_;
  }
  // Takes over when `other` was last used, unlocked: for an item that takes another's place
  // in the index but not its lock (a tombstone). A lock's deadline counts as a use.
  void inherit_last_use(const Item& other) const {
    locked_ = false;
    clock_ms_ = other.clock_ms_;
  }
  // Takes over `other`'s index view: for an item that takes another's place in the index
  // without being a use of the key (a non-resident copy, a fetched value).
  void inherit_index_view(const Item& other) const {
    locked_ = other.locked_;
    clock_ms_ = other.clock_ms_;
  }

  // Persistent buckets: where the item stands with the flusher, and whether the quota counts
  // it in its own right. An item in the index is charged there; one the flusher still needs
  // after it left the index (replaced, removed, a prepared write that never entered it) is
  // held by the dirty queue alone, and charged as held until the flusher is done with it.
  enum class QueueState : uint8_t {
    kNotQueued,  // never queued, or a copy that the queue does not hold
    kQueued,     // the flusher has it to write
    kHeld,       // queued and out of the index: charged as held
    kDone,       // the flusher is done with it
  };
  // Queued for the flusher (again). An item already charged as held stays so.
  void mark_queued() const {
    auto state = queue_state_.load(std::memory_order_relaxed);
    while (state != static_cast<uint8_t>(QueueState::kHeld) &&
           !queue_state_.compare_exchange_weak(state, static_cast<uint8_t>(QueueState::kQueued),
                                               std::memory_order_relaxed)) {
    }
  }
  // Left the index: returns true when the flusher still needs it, which the caller then
  // charges as held.
  bool hold() const {
    auto queued = static_cast<uint8_t>(QueueState::kQueued);
    return queue_state_.compare_exchange_strong(queued, static_cast<uint8_t>(QueueState::kHeld),
                                                std::memory_order_relaxed);
  }
  // The flusher is done with it: returns true when it was charged as held, which the
  // caller then releases.
  bool unqueue() const {
    return queue_state_.exchange(static_cast<uint8_t>(QueueState::kDone),
                                 std::memory_order_relaxed) ==
           static_cast<uint8_t>(QueueState::kHeld);
  }

 private:
  friend class ItemFactory;
  template <class T>
  friend class RefPtr;

  Item(uint8_t key_size, uint32_t value_size, bool shares_bytes)
      : shares_bytes_(shares_bytes), key_size_(key_size), value_size_(value_size) {}
  ~Item() = default;

  const char* bytes() const;
  char* inline_bytes() { return reinterpret_cast<char*>(this + 1); }
  const char* inline_bytes() const { return reinterpret_cast<const char*>(this + 1); }
  static void release(const Item* item);

  mutable std::atomic<uint32_t> refs_{1};
  uint32_t value_size_;
};
static_assert(sizeof(Item) == 56, "an item's header: a 32-byte value still fits a 112-byte block");

using ItemPtr = RefPtr<const Item>;
using MutableItemPtr = RefPtr<Item>;

template <class T>
void RefPtr<T>::retain() const {
  if (item_) item_->refs_.fetch_add(1, std::memory_order_relaxed);
}

template <class T>
void RefPtr<T>::reset() {
  if (T* item = std::exchange(item_, nullptr)) Item::release(item);
}

}  // namespace tern::engine
