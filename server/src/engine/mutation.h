#pragma once
// The one path every mutation takes (engine.cc, engine_documents.cc): look the key up under
// its shard's lock, enforce the lock and CAS rules, let the mutation decide its change from
// what the key holds, then charge the memory, number the change and publish it (queuing it
// for the flusher in a persistent bucket), all under the lock so that it is seen whole or
// not at all. Committing a prepared durable write (persistence_hooks.cc) publishes through
// the same install().

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "engine/engine_impl.h"
#include "engine/stored_item.h"
#include "engine/vbucket.h"
#include "protocol/datatype.h"

namespace tern::engine {

// What a mutation wants done with the key, decided under the shard lock.
struct Change {
  Status status = Status::Success;  // anything else aborts the mutation with this status
  MutableItemPtr item;              // the item to publish; null removes the current one
  bool stores_value = true;         // counts towards total_items
  bool new_revision = true;         // the item is a new revision of the key (not just a lock)
  int64_t lock_until_ms = 0;        // publish the item locked until then
  // Called with the item's value bytes once its CAS and seqno are set, before anyone can see
  // it (DocumentWrite::before_publish). Only for an item make_item() built.
  const std::function<void(std::span<char>, uint64_t, uint64_t)>* before_publish = nullptr;
};

inline Change publish(MutableItemPtr item) { return Change{Status::Success, std::move(item)}; }

inline Change fail(Status status) {
  Change change;
  change.status = status;
  return change;
}

// The outcome of a mutation.
struct Applied {
  Status status = Status::Success;
  uint64_t cas = 0;
  uint64_t seqno = 0;  // 0 when the mutation named no vbucket
  ItemPtr item;        // the item published, if any
};

inline Applied rejected(Status status) {
  Applied applied;
  applied.status = status;
  return applied;
}

// How much of the current document's value a mutation computes its change from.
enum class ValueUse : uint8_t {
  None,        // only its metadata
  Whole,       // all of it (the body or the item returned)
  Attributes,  // its extended attributes, when it has any (xattr/blob.h)
};

// Whether `use` of `current` needs a value that is evicted (Item::resident false).
inline bool needs_evicted_value(ValueUse use, const Item* current) {
  if (!current || current->resident || use == ValueUse::None) return false;
  return use == ValueUse::Whole || (current->datatype & protocol::datatype::kXattr) != 0;
}

// What a mutation asks of mutate(), besides how to decide its change.
struct MutationRequest {
  std::string_view key;
  // 0 accepts whatever the key holds. Otherwise the current document must have this CAS:
  // NotFound when there is none, CasMismatch when it has another.
  uint64_t cas = 0;
  Counter command = Counter::Count;  // counts the attempt (Count: nothing)
  VBucket* vbucket = nullptr;        // numbers a published change (MutationOptions::vbucket)
  // The key's tombstone is its current document, for the CAS rule and for the decision
  // (write_document). Otherwise a tombstone is absent, as for every other operation.
  bool include_deleted = false;
  // Hold the change aside until commit_prepared() (MutationOptions::prepare). Only a
  // persistent bucket does; an ephemeral one publishes at once, as nothing would commit it.
  bool prepare = false;
  // A current document whose value this needs but is evicted answers NotResident, before
  // anything is counted or changed: the caller fetches the value and retries, and the retry
  // is what counts. So does every mutation of a key on disk only (full eviction): what it
  // replaces decides its revision, its extended attributes and the item counts.
  ValueUse reads_value = ValueUse::None;
};

// Freed beyond a full write's shortfall, so that the next writes do not each evict inline.
inline constexpr size_t kInlineEvictionSlack = 64 * 1024;

// Gives a change's item the CAS and seqno the mutation took (and, for a new revision, the
// revision after `entry`'s: the key's live item or tombstone, if any), then lets
// before_publish write them into its value: the last step before anyone can see it.
inline void number_item(Item& item, const Change& change, uint64_t cas, const VBucket* vbucket,
                        uint64_t seqno, const Slot* entry) {
  item.cas = cas;
  if (vbucket) {
    item.seqno = seqno;
    item.vbucket = vbucket->id();
  }
  if (change.new_revision) item.rev_seqno = (entry ? entry->item->rev_seqno : 0) + 1;
  if (change.before_publish && *change.before_publish) {
    (*change.before_publish)(unpublished_value(item), cas, seqno);
  }
}

// Puts a numbered, charged change in the key's place (`access`'s occupant, or a new slot
// that HashTable::reserve_one() made room for): the item replaces the key's live item,
// tombstone or absent marker, or, when it is not to be inserted (null, or published already
// expired), the occupant goes. Whatever it replaced is moved to `replaced`, to be destroyed
// after unlocking. The shard's tombstone count follows; memory is the caller's to charge.
inline void install(Shard& shard, KeyAccess& access, Slot* occupant, ItemPtr item, bool insert,
                    int64_t lock_until_ms, int64_t now, ItemPtr& replaced)
    TERN_REQUIRES(shard.mutex) {
  const size_t tombstones_before = occupant && occupant->item->deleted ? 1 : 0;
  const size_t non_resident_before = occupant && !occupant->item->resident ? 1 : 0;
  if (!insert) {
    if (occupant) {
      replaced = shard.table.erase(access.index());
      access.impl().hold_if_queued(*replaced);
      shard.tombstones -= tombstones_before;
      shard.non_resident -= non_resident_before;
    }
    return;
  }
  const size_t tombstones_after = item->deleted ? 1 : 0;
  access.impl().note_filing(shard, *item);
  shard.non_resident += (item->resident ? 0 : 1) - non_resident_before;
  if (occupant) {
    replaced = std::move(occupant->item);
    occupant->item = std::move(item);
    access.impl().hold_if_queued(*replaced);
  } else {
    occupant = &shard.table.insert(access.hash(), std::move(item));
  }
  occupant->item->set_lock(lock_until_ms, now);
  shard.tombstones += tombstones_after - tombstones_before;
}

// One attempt at a mutation. A change computed from an evicted value answers NotResident
// (MutationRequest::reads_value). A key with a prepared durable write refuses every mutation
// (SyncWriteInProgress). A locked document accepts only its lock's CAS (else Locked); then
// the CAS rule of MutationRequest::cas; then `decide(current, counters, now)` computes the
// change from the current document (a null ItemPtr when there is none). The change takes
// the place of the key's tombstone, if it has one, and its revision follows the
// tombstone's. A change that publishes or removes anything takes the vbucket's next seqno.
// In a persistent bucket every new revision is also queued for the flusher (a lock is not
// one: it changes nothing on disk), and a prepared one is held aside rather than published.
// On OutOfMemory, `shortfall` is how many bytes the change lacked.
template <class Decide>
Applied mutate_once(EngineImpl& impl, const MutationRequest& request, Decide& decide,
                    size_t& shortfall) {
  static const ItemPtr kAbsent;
  ItemPtr replaced;  // destroyed after the lock is released
  uint64_t mem_after = 0;
  int64_t now = 0;
  bool wake_flusher = false;
  Applied applied = [&]() -> Applied {
    KeyAccess access(impl, request.key);
    now = access.now();
    Shard& shard = access.shard();
    shard.mutex.assert_held();  // KeyAccess holds it
    ShardCounters& counters = shard.counters;
    Slot* slot = access.slot();    // the live item's
    Slot* entry = access.entry();  // the live item's or the tombstone's
    Slot* occupant = access.occupant();  // the entry's, or the key's absent marker
    Slot* found = request.include_deleted ? entry : slot;
    const ItemPtr& current = found ? found->item : kAbsent;
    const uint64_t cas = request.cas;
    // The collection was dropped after the request checked the manifest: the purge may
    // have passed this key already, so nothing of it may come back.
    if (impl.collection_gone(request.key)) return rejected(Status::UnknownCollection);
    if (needs_evicted_value(request.reads_value, current.get()) || access.on_disk_only()) {
      return rejected(Status::NotResident);
    }
    if (request.command != Counter::Count) counters.add(request.command);
    if (!shard.prepared.empty() && shard.prepared.contains(request.key)) {
      return rejected(Status::SyncWriteInProgress);
    }

    if (slot && EngineImpl::is_locked(*slot, now) && cas != slot->item->cas) {
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

    // The steps that can fail (bad_alloc) come before anything is charged or stored, so
    // that a failure leaves items and memory as they were (the attempt above stays counted,
    // as any failed command's does).
    const bool dirty = impl.persistent && change.item && change.new_revision;
    if (dirty) EngineImpl::reserve_dirty(shard);
    if (request.prepare && dirty) {
      // Held aside, and charged as such: the quota bounds prepared writes too. Committing
      // moves the charge to the index (PersistenceHooks::commit_prepared).
      const size_t held = item_charge(*change.item);
      if (!impl.charge(static_cast<int64_t>(held), false, mem_after, shortfall)) {
        return rejected(Status::OutOfMemory);
      }
      try {
        shard.prepared.emplace(change.item->key(), change.item);
      } catch (...) {
        impl.mem_used.fetch_sub(held, std::memory_order_relaxed);
        throw;
      }
      if (cas != 0) counters.add(Counter::cas_hits);
      const uint64_t new_cas = impl.next_cas(shard);
      const uint64_t seqno = request.vbucket ? request.vbucket->record_mutation() : 0;
      number_item(*change.item, change, new_cas, request.vbucket, seqno, entry);
      impl.prepared_count.fetch_add(1, std::memory_order_relaxed);
      wake_flusher = impl.queue_dirty(shard, change.item);
      return {Status::Success, new_cas, seqno, nullptr};
    }
    // An item published already expired (a past absolute expiry) just removes the old one
    // (and goes to disk as it is, where warmup will not load it).
    const bool insert = change.item && !EngineImpl::is_expired(*change.item, now);
    if (insert && !occupant) shard.table.reserve_one();
    const int64_t delta = static_cast<int64_t>(insert ? item_charge(*change.item) : 0) -
                          static_cast<int64_t>(occupant ? item_charge(*occupant->item) : 0);
    if (!impl.charge(delta, false, mem_after, shortfall)) {
      return rejected(Status::OutOfMemory);
    }
    shard.bytes += delta;

    // Nothing below fails: the change is numbered and published.
    if (cas != 0) counters.add(Counter::cas_hits);
    if (change.item && change.stores_value) counters.add(Counter::total_items);
    const uint64_t new_cas = impl.next_cas(shard);
    const uint64_t seqno = request.vbucket ? request.vbucket->record_mutation() : 0;
    if (change.item) number_item(*change.item, change, new_cas, request.vbucket, seqno, entry);
    if (dirty) wake_flusher = impl.queue_dirty(shard, change.item);
    if (dirty && !insert) impl.hold_if_queued(*change.item);  // the queue's alone
    ItemPtr published = insert ? change.item : nullptr;
    install(shard, access, occupant, published, insert, change.lock_until_ms, now, replaced);
    return {Status::Success, new_cas, seqno, std::move(published)};
  }();
  impl.signal_pressure_if_needed(mem_after, now);
  if (wake_flusher) impl.notify_dirty();
  return applied;
}

// The one path every mutation takes. A change that does not fit in the quota evicts what it
// lacks (outside any shard lock) and is retried once, when the engine is set to; `decide`
// is then called again, so it must compute its change afresh each time.
template <class Decide>
Applied mutate(EngineImpl& impl, const MutationRequest& request, Decide&& decide) {
  size_t shortfall = 0;
  Applied applied = mutate_once(impl, request, decide, shortfall);
  if (applied.status == Status::OutOfMemory && impl.evict_when_full &&
      impl.evict(shortfall + kInlineEvictionSlack) >= shortfall) {
    MutationRequest retry = request;
    retry.command = Counter::Count;  // the attempt is counted once
    applied = mutate_once(impl, retry, decide, shortfall);
  }
  if (applied.status == Status::OutOfMemory) {
    impl.oom_errors.fetch_add(1, std::memory_order_relaxed);
  }
  return applied;
}

}  // namespace tern::engine
