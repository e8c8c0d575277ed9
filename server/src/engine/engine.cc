#include "engine/engine.h"

#include <algorithm>

#include "engine/counter_value.h"
#include "engine/engine_impl.h"
#include "engine/key_hash.h"
#include "engine/stored_item.h"

namespace tern::engine {
namespace {

constexpr uint32_t kNoCreateExpiry = 0xffffffff;

// What a mutation wants done with the live item, decided under the shard lock.
struct Change {
  Status status = Status::Success;  // anything else aborts the mutation with this status
  std::shared_ptr<Item> item;       // the item to publish; null removes the current one
  bool stores_value = true;         // counts towards total_items
  bool new_revision = true;         // the item is a new revision of the key (not just a lock)
  int64_t lock_until_ms = 0;        // publish the item locked until then
};

Change publish(std::shared_ptr<Item> item) { return Change{Status::Success, std::move(item)}; }
Change fail(Status status) {
  Change change;
  change.status = status;
  return change;
}

// The outcome of a mutation.
struct Applied {
  Status status = Status::Success;
  uint64_t cas = 0;
  ItemPtr item;  // the item published, if any
};

Applied rejected(Status status) {
  Applied applied;
  applied.status = status;
  return applied;
}

void copy_metadata(const Item& from, Item& to) {
  to.flags = from.flags;
  to.datatype = from.datatype;
  to.expiry_ms = from.expiry_ms;
}

// Freed beyond a full write's shortfall, so that the next writes do not each evict inline.
constexpr size_t kInlineEvictionSlack = 64 * 1024;

// One attempt at a mutation: look the key up, enforce the lock and CAS rules, let `decide`
// compute the change from the live item (null ItemPtr when absent, tombstone or not), then
// charge the memory and publish the change, all under the shard lock so it is seen whole or
// not at all. The change takes the place of the key's tombstone, if it has one, and its
// revision follows the tombstone's.
// `command` (unless Counter::Count) counts the attempt. On OutOfMemory, `shortfall` is how many
// bytes the change lacked.
template <class Decide>
Applied mutate_once(Engine::Impl& impl, std::string_view key, uint64_t cas, Counter command,
                    Decide& decide, size_t& shortfall) {
  static const ItemPtr kAbsent;
  ItemPtr replaced;  // destroyed after the lock is released
  uint64_t mem_after = 0;
  int64_t now = 0;
  Applied applied = [&]() -> Applied {
    KeyAccess access(impl, key);
    now = access.now();
    Shard& shard = access.shard();
    ShardCounters& counters = shard.counters;
    if (command != Counter::Count) counters.add(command);
    Slot* slot = access.slot();     // the live item's
    Slot* entry = access.entry();   // the live item's or the tombstone's
    const ItemPtr& current = slot ? slot->item : kAbsent;

    if (slot && Engine::Impl::is_locked(*slot, now) && cas != current->cas) {
      return rejected(Status::Locked);
    }
    if (cas != 0 && !current) {
      counters.add(Counter::cas_misses);
      return rejected(Status::NotFound);
    }
    if (cas != 0 && current->cas != cas) {
      counters.add(Counter::cas_badval);
      return rejected(Status::CasMismatch);
    }
    Change change = decide(current, counters, now);
    if (change.status != Status::Success) return rejected(change.status);

    // An item published already expired (a past absolute expiry) just removes the old one.
    const bool insert = change.item && !Engine::Impl::is_expired(*change.item, now);
    // Growing the table is the one step below that can fail (bad_alloc); take it before
    // anything is charged or stored, so that a failure leaves items and memory as they were
    // (the attempt above stays counted, as any failed command's does).
    if (insert && !entry) shard.table.reserve_one();
    const int64_t delta = static_cast<int64_t>(insert ? item_charge(*change.item) : 0) -
                          static_cast<int64_t>(entry ? item_charge(*entry->item) : 0);
    if (delta > 0) {
      mem_after = impl.mem_used.fetch_add(delta, std::memory_order_relaxed) + delta;
      if (mem_after > impl.memory_quota) {
        impl.mem_used.fetch_sub(delta, std::memory_order_relaxed);
        shortfall = static_cast<size_t>(mem_after - impl.memory_quota);
        return rejected(Status::OutOfMemory);
      }
    } else if (delta < 0) {
      impl.mem_used.fetch_sub(-delta, std::memory_order_relaxed);
    }
    shard.bytes += delta;

    if (cas != 0) counters.add(Counter::cas_hits);
    if (change.item && change.stores_value) counters.add(Counter::total_items);
    const uint64_t new_cas = impl.next_cas(shard);
    if (change.item) {
      change.item->cas = new_cas;
      if (change.new_revision) change.item->rev_seqno = (entry ? entry->item->rev_seqno : 0) + 1;
    }

    const size_t tombstones_before = entry && entry->item->deleted ? 1 : 0;
    if (insert) {
      if (entry) {
        replaced = std::move(entry->item);
        entry->item = change.item;
      } else {
        entry = &shard.table.insert(access.hash(), change.item);
      }
      entry->lock_deadline_ms = change.lock_until_ms;
      entry->last_access_ms = now;
      shard.tombstones += (change.item->deleted ? 1 : 0) - tombstones_before;
      return {Status::Success, new_cas, std::move(change.item)};
    }
    if (entry) {
      replaced = shard.table.erase(access.index());
      shard.tombstones -= tombstones_before;
    }
    return {Status::Success, new_cas, nullptr};
  }();
  impl.signal_pressure_if_needed(mem_after, now);
  return applied;
}

// The one path every mutation takes. A change that does not fit in the quota evicts what it
// lacks (outside any shard lock) and is retried once, when the engine is set to.
template <class Decide>
Applied mutate(Engine::Impl& impl, std::string_view key, uint64_t cas, Counter command,
               Decide&& decide) {
  size_t shortfall = 0;
  Applied applied = mutate_once(impl, key, cas, command, decide, shortfall);
  if (applied.status == Status::OutOfMemory && impl.evict_when_full &&
      impl.evict(shortfall + kInlineEvictionSlack) >= shortfall) {
    applied = mutate_once(impl, key, cas, Counter::Count, decide, shortfall);
  }
  return applied;
}

}  // namespace

KeyAccess::KeyAccess(Engine::Impl& impl, std::string_view key)
    : hash_(hash_key(key)),
      shard_(impl.shard_for(hash_)),
      now_(impl.clock.steady_ms()),
      lock_(shard_.mutex) {
  impl.settle_flush(shard_, lock_, now_);
  index_ = impl.find_entry(shard_, hash_, key, now_, graveyard_);
}

GetResult Engine::get(std::string_view key) {
  GetResult result;
  bool locked = false;
  {
    KeyAccess access(*impl_, key);
    ShardCounters& counters = access.shard().counters;
    counters.add(Counter::cmd_get);
    Slot* slot = access.slot();
    if (!slot) {
      counters.add(Counter::get_misses);
      return result;
    }
    counters.add(Counter::get_hits);
    slot->last_access_ms = access.now();
    locked = Impl::is_locked(*slot, access.now());
    result = {Status::Success, slot->item};
  }
  if (locked) {
    auto hidden = remeta_item(result.item);
    hidden->cas = kLockedCas;
    result.item = std::move(hidden);
  }
  return result;
}

GetResult Engine::get_and_touch(std::string_view key, uint32_t expiry) {
  const int64_t deadline = expiry_deadline_ms(expiry);
  // A deadline already past removes the item rather than publishing it, yet the touch
  // still answers with the item it touched.
  ItemPtr touched;
  Applied applied = mutate(*impl_, key, 0, Counter::cmd_touch,
                           [&](const ItemPtr& current, ShardCounters& counters, int64_t) {
                             if (!current) {
                               counters.add(Counter::touch_misses);
                               return fail(Status::NotFound);
                             }
                             counters.add(Counter::touch_hits);
                             auto item = remeta_item(current);
                             item->expiry_ms = deadline;
                             touched = item;
                             return Change{Status::Success, std::move(item), false};
                           });
  if (applied.status != Status::Success) return {applied.status, nullptr};
  return {applied.status, std::move(touched)};
}

MutationResult Engine::touch(std::string_view key, uint32_t expiry) {
  GetResult touched = get_and_touch(key, expiry);
  return {touched.status, touched.item ? touched.item->cas : 0};
}

GetResult Engine::get_locked(std::string_view key, uint32_t lock_seconds) {
  const uint32_t seconds = lock_seconds == 0
                               ? config_.default_lock_seconds
                               : std::min(lock_seconds, config_.max_lock_seconds);
  Applied applied = mutate(*impl_, key, 0, Counter::cmd_get,
                           [&](const ItemPtr& current, ShardCounters& counters, int64_t now) {
                             if (!current) {
                               counters.add(Counter::get_misses);
                               return fail(Status::NotFound);
                             }
                             counters.add(Counter::get_hits);
                             Change change{Status::Success, remeta_item(current), false};
                             change.new_revision = false;
                             change.lock_until_ms = now + int64_t{seconds} * 1000;
                             return change;
                           });
  return {applied.status, std::move(applied.item)};
}

Status Engine::unlock(std::string_view key, uint64_t cas) {
  KeyAccess access(*impl_, key);
  Slot* slot = access.slot();
  if (!slot) return Status::NotFound;
  if (!Impl::is_locked(*slot, access.now())) return Status::NotLocked;
  if (slot->item->cas != cas) return Status::Locked;
  slot->lock_deadline_ms = 0;
  return Status::Success;
}

MutationResult Engine::store(StoreMode mode, std::string_view key, std::string_view value,
                             uint32_t flags, uint32_t expiry, uint8_t datatype, uint64_t cas,
                             MutationOptions options) {
  if (value.size() > config_.max_item_size) return {Status::TooBig};
  // Built before taking the shard lock, which then only has to link it in.
  std::shared_ptr<Item> item = make_item(key, {value});
  item->flags = flags;
  item->datatype = datatype;
  const int64_t deadline = expiry_deadline_ms(expiry);
  Applied applied = mutate(*impl_, key, cas, Counter::cmd_set,
                           [&](const ItemPtr& current, ShardCounters&, int64_t) {
                             if (mode == StoreMode::Add && current) {
                               return fail(Status::Exists);
                             }
                             if (mode == StoreMode::Replace && !current) {
                               return fail(Status::NotFound);
                             }
                             // Set on every attempt: a retry may find the document gone.
                             item->expiry_ms = options.preserve_ttl && current
                                                   ? current->expiry_ms
                                                   : deadline;
                             return publish(item);
                           });
  return {applied.status, applied.cas};
}

MutationResult Engine::remove(std::string_view key, uint64_t cas, MutationOptions) {
  // Built before taking the shard lock, as store's item is; wasted on a miss.
  std::shared_ptr<Item> tombstone = impl_->tombstone_ms > 0 ? make_item(key, {}) : nullptr;
  Applied applied = mutate(*impl_, key, cas, Counter::Count,
                           [&](const ItemPtr& current, ShardCounters& counters, int64_t now) {
                             if (!current) {
                               counters.add(Counter::delete_misses);
                               return fail(Status::NotFound);
                             }
                             counters.add(Counter::delete_hits);
                             if (tombstone) {
                               tombstone->deleted = true;
                               tombstone->flags = current->flags;
                               tombstone->expiry_ms = now + impl_->tombstone_ms;
                             }
                             return Change{Status::Success, tombstone, false};
                           });
  return {applied.status, applied.cas};
}

MetaResult Engine::get_meta(std::string_view key) {
  KeyAccess access(*impl_, key);
  Slot* entry = access.entry();
  if (!entry) return {};
  const Item& item = *entry->item;
  MetaResult meta;
  meta.status = Status::Success;
  meta.deleted = item.deleted;
  meta.flags = item.flags;
  meta.rev_seqno = item.rev_seqno;
  meta.datatype = item.datatype;
  meta.cas = item.cas;
  if (item.deleted) {
    meta.expiry = impl_->unix_seconds_at(item.expiry_ms - impl_->tombstone_ms, access.now());
  } else {
    meta.expiry = impl_->unix_seconds_at(item.expiry_ms, access.now());
    if (Impl::is_locked(*entry, access.now())) meta.cas = kLockedCas;
  }
  return meta;
}

ArithmeticResult Engine::arithmetic(std::string_view key, bool increment, uint64_t delta,
                                    uint64_t initial, uint32_t expiry, uint64_t cas,
                                    MutationOptions) {
  const int64_t create_deadline = expiry == kNoCreateExpiry ? 0 : expiry_deadline_ms(expiry);
  const Counter hit = increment ? Counter::incr_hits : Counter::decr_hits;
  const Counter miss = increment ? Counter::incr_misses : Counter::decr_misses;
  uint64_t result = 0;
  char digits[20];
  Applied applied = mutate(
      *impl_, key, cas, Counter::Count,
      [&](const ItemPtr& current, ShardCounters& counters, int64_t) {
        if (!current) {
          counters.add(miss);
          if (expiry == kNoCreateExpiry) return fail(Status::NotFound);
          result = initial;
          auto item = make_item(key, {format_counter(result, digits)});
          item->expiry_ms = create_deadline;
          return publish(std::move(item));
        }
        const std::optional<uint64_t> value = parse_counter(current->value());
        if (!value) return fail(Status::NotANumber);
        counters.add(hit);
        result = apply_delta(*value, increment, delta);
        auto item = make_item(key, {format_counter(result, digits)});
        copy_metadata(*current, *item);
        return publish(std::move(item));
      });
  return {applied.status, applied.cas, applied.status == Status::Success ? result : 0};
}

MutationResult Engine::concat(ConcatMode mode, std::string_view key, std::string_view value,
                              uint64_t cas, MutationOptions) {
  Applied applied = mutate(
      *impl_, key, cas, Counter::cmd_set,
      [&](const ItemPtr& current, ShardCounters&, int64_t) {
        if (!current) return fail(Status::NotStored);
        if (current->value().size() + value.size() > config_.max_item_size) {
          return fail(Status::TooBig);
        }
        auto item = mode == ConcatMode::Append ? make_item(key, {current->value(), value})
                                               : make_item(key, {value, current->value()});
        copy_metadata(*current, *item);
        return publish(std::move(item));
      });
  return {applied.status, applied.cas};
}

}  // namespace tern::engine
