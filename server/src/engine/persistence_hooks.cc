// The engine's side of a persistent bucket: the dirty queues the flusher drains, the
// durable writes held aside until the disk has them, and warmup's insert of what the disk
// held. Mutations fill the queues and the prepared tables in mutate_once (mutation.h).

#include <functional>
#include <iterator>
#include <utility>

#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/key_hash.h"
#include "engine/mutation.h"
#include "engine/record_item.h"
#include "engine/stored_item.h"
#include "storage/store.h"

namespace tern::engine {

uint64_t PersistenceHooks::take_dirty(std::vector<ItemPtr>& out) {
  // Never while a flush is applied to the shards (Engine::flush).
  MutexLock flush_guard(impl_->flush_mutex);
  // Cleared before taking: a change queued after a shard was taken finds the flag clear and
  // tells the listener, so no change waits for a wake-up that never comes. (One queued
  // between the two steps and taken anyway costs the flusher one empty run.)
  impl_->dirty_pending.store(false, std::memory_order_seq_cst);
  for (size_t s = 0; s < impl_->shard_count; ++s) {
    Shard& shard = impl_->shards[s];
    MutexLock guard(shard.mutex);
    if (!shard.dirty.empty()) {
      out.insert(out.end(), std::make_move_iterator(shard.dirty.begin()),
                 std::make_move_iterator(shard.dirty.end()));
      impl_->dirty_count.fetch_sub(shard.dirty.size(), std::memory_order_relaxed);
      shard.dirty.clear();  // keeps its capacity for the next batch
    }
    if (shard.flush_untaken) {
      // The durable writes that survived the flush, whether or not an earlier batch wrote
      // them: the store is cleared before this batch. (One queued since the flush is taken
      // twice, as the same item.) Each key's pending write comes after its queued changes.
      for (const auto& [key, item] : shard.prepared) out.push_back(item);
      shard.flush_untaken = false;
    }
  }
  return std::exchange(impl_->flush_untaken, 0);
}

void PersistenceHooks::flushed(std::span<const ItemPtr> items) { impl_->unqueue(items); }

size_t PersistenceHooks::dirty_count() const {
  return impl_->dirty_count.load(std::memory_order_relaxed);
}

void PersistenceHooks::set_dirty_listener(std::function<void()> listener) {
  MutexLock guard(impl_->listener_mutex);
  impl_->dirty_listener = std::move(listener);
}

bool PersistenceHooks::commit_prepared(std::string_view key, uint64_t cas) {
  ItemPtr replaced;  // destroyed after the lock is released
  uint64_t mem_after = 0;
  int64_t now = 0;
  bool wake_flusher = false;
  {
    KeyAccess access(*impl_, key);
    now = access.now();
    Shard& shard = access.shard();
    shard.mutex.assert_held();  // KeyAccess holds it
    auto prepared = shard.prepared.find(key);
    if (prepared == shard.prepared.end() || prepared->second->cas != cas) return false;
    ItemPtr item = prepared->second;
    const size_t prepared_charge = item_charge(*item);
    if (impl_->collection_gone(key)) {  // dropped with its collection, not committed
      impl_->mem_used.fetch_sub(prepared_charge, std::memory_order_relaxed);
      impl_->hold_if_queued(*item);
      shard.prepared.erase(prepared);
      impl_->prepared_count.fetch_sub(1, std::memory_order_relaxed);
      return false;
    }
    Slot* occupant = access.occupant();
    // A write prepared with an expiry that has passed since commits as a removal.
    const bool insert = !EngineImpl::is_expired(*item, now);
    if (insert && !occupant) shard.table.reserve_one();  // the steps that can fail
    // A flush the flusher has not taken yet clears the disk, and what an earlier batch wrote
    // of this write with it: it goes again, after the clear.
    if (shard.flush_untaken) EngineImpl::reserve_dirty(shard);
    // The prepared write's charge moves to the index (or, not inserted, is released).
    const int64_t table_delta = static_cast<int64_t>(insert ? prepared_charge : 0) -
                                static_cast<int64_t>(occupant ? item_charge(*occupant->item) : 0);
    size_t shortfall = 0;
    impl_->charge(table_delta - static_cast<int64_t>(prepared_charge), /*forced=*/true, mem_after,
                  shortfall);
    shard.bytes += table_delta;
    if (!insert) impl_->hold_if_queued(*item);
    if (!item->deleted) shard.counters.add(Counter::total_items);
    shard.prepared.erase(prepared);
    impl_->prepared_count.fetch_sub(1, std::memory_order_relaxed);
    if (shard.flush_untaken && impl_->queue_dirty(shard, item)) wake_flusher = true;
    install(shard, access, occupant, std::move(item), insert, 0, now, replaced);
  }
  impl_->signal_pressure_if_needed(mem_after, now);
  if (wake_flusher) impl_->notify_dirty();
  return true;
}

size_t PersistenceHooks::prepared_count() const {
  return impl_->prepared_count.load(std::memory_order_relaxed);
}

void PersistenceHooks::raise_cas_floor(uint64_t cas) { impl_->raise_cas_floor(cas); }

void PersistenceHooks::set_vbuckets(std::span<VBucket> vbuckets) { impl_->vbuckets = vbuckets; }

namespace {

// What restore() decides by before it has an item: the stored document's key, metadata and
// the charge its item would take.
struct RestoreCandidate {
  std::string_view key;
  uint64_t cas = 0;
  bool deleted = false;
  int64_t expiry_ms = 0;
  size_t charge = 0;
};

// PersistenceHooks::restore(), whose two forms differ only in where the item comes from:
// `build` makes it, once the record is to be loaded.
template <class Build>
PersistenceHooks::Restored restore_candidate(EngineImpl& impl, const RestoreCandidate& candidate,
                                             Build&& build) {
  using Restored = PersistenceHooks::Restored;
  // Before deciding: even a record that is not loaded was issued its CAS.
  impl.raise_cas_floor(candidate.cas);
  ItemPtr replaced;  // destroyed after the lock is released
  KeyAccess access(impl, candidate.key);
  // Dropped while warmup read it: the purge may have passed this key already.
  if (impl.collection_gone(candidate.key)) return Restored::Skipped;
  Shard& shard = access.shard();
  shard.mutex.assert_held();  // KeyAccess holds it
  // Warmup runs before any fetch could leave an absent marker; were one there, it is
  // replaced like anything else.
  Slot* entry = access.occupant();
  // The key was written through another vbucket too: the later write (higher CAS) wins.
  if (entry && entry->item->cas >= candidate.cas) return Restored::Skipped;
  // An expired document (or a tombstone due for purging) is as good as absent, and so is
  // what an older write of the key left.
  if (EngineImpl::is_due(candidate.expiry_ms, access.now())) {
    if (entry) impl.remove_slot(shard, access.index(), replaced);
    return Restored::Skipped;
  }
  const uint64_t used = impl.mem_used.load(std::memory_order_relaxed);
  const size_t charge_before = entry ? item_charge(*entry->item) : 0;
  const auto fits_below = [&](size_t charge, uint64_t limit) {
    return used + charge <= limit + charge_before;
  };
  // Values while they fit below the low watermark; past it, a document's metadata (its
  // non-resident copy, fetched back when read) and tombstones while they fit below the high
  // watermark. A newer write of a key already loaded always takes the older one's place:
  // that one must not be served.
  // Full eviction leaves on disk what does not fit below the low watermark, without building
  // its item; a newer write still removes what an older one left in memory.
  if (impl.full_eviction && !fits_below(candidate.charge, impl.low_watermark)) {
    EngineImpl::remember_on_disk(shard, candidate.key);  // first: it may throw, changing nothing
    if (entry) impl.remove_slot(shard, access.index(), replaced);
    if (!candidate.deleted) ++shard.evicted_documents;
    return Restored::OnDiskOnly;
  }
  MutableItemPtr loaded = build();
  Restored restored = Restored::Value;
  if (loaded->deleted) {
    restored = Restored::Metadata;
  } else if (!fits_below(candidate.charge, impl.low_watermark)) {
    loaded = make_non_resident(*loaded);
    restored = Restored::Metadata;
  }
  if (restored == Restored::Metadata && !entry &&
      !fits_below(item_charge(*loaded), impl.high_watermark)) {
    return Restored::Full;
  }
  if (!entry) shard.table.reserve_one();  // may throw, before anything is charged
  const int64_t delta =
      static_cast<int64_t>(item_charge(*loaded)) - static_cast<int64_t>(charge_before);
  uint64_t mem_after = 0;
  size_t shortfall = 0;
  impl.charge(delta, /*forced=*/true, mem_after, shortfall);
  shard.bytes += delta;
  install(shard, access, entry, std::move(loaded), /*insert=*/true, 0, access.now(), replaced);
  return restored;
}

}  // namespace

PersistenceHooks::Restored PersistenceHooks::restore(MutableItemPtr item) {
  const RestoreCandidate candidate{.key = item->key(),
                                   .cas = item->cas,
                                   .deleted = item->deleted,
                                   .expiry_ms = item->expiry_ms,
                                   .charge = item_charge(*item)};
  return restore_candidate(*impl_, candidate, [&] { return std::move(item); });
}

PersistenceHooks::Restored PersistenceHooks::restore(const storage::Record& record,
                                                     int64_t expiry_ms) {
  const RestoreCandidate candidate{.key = record.key,
                                   .cas = record.cas,
                                   .deleted = record.deleted,
                                   .expiry_ms = expiry_ms,
                                   .charge = item_charge(record.key.size(), record.value.size())};
  return restore_candidate(*impl_, candidate, [&] { return item_of_record(record, expiry_ms); });
}

bool PersistenceHooks::restore_value(std::string_view key, uint64_t cas, std::string_view value) {
  // Built before taking the shard lock, which then only has to swap it in.
  MutableItemPtr item = make_item(key, {value});
  ItemPtr replaced;  // destroyed after the lock is released
  uint64_t mem_after = 0;
  int64_t now = 0;
  {
    KeyAccess access(*impl_, key);
    now = access.now();
    Slot* slot = access.slot();
    if (!slot || slot->item->resident || slot->item->cas != cas) return false;
    const Item& copy = *slot->item;
    copy_metadata(copy, *item);
    item->resident = true;
    // Forced: the request that fetched it is about to read it; the pager evicts again.
    const int64_t delta =
        static_cast<int64_t>(item_charge(*item)) - static_cast<int64_t>(item_charge(copy));
    size_t shortfall = 0;
    impl_->charge(delta, /*forced=*/true, mem_after, shortfall);
    Shard& shard = access.shard();
    shard.mutex.assert_held();  // KeyAccess holds it
    shard.bytes += delta;
    --shard.non_resident;
    item->inherit_index_view(copy);
    item->touch_access(now);
    replaced = std::move(slot->item);
    slot->item = std::move(item);
  }
  impl_->signal_pressure_if_needed(mem_after, now);
  return true;
}

bool PersistenceHooks::on_disk_only(std::string_view key) {
  KeyAccess access(*impl_, key);
  return access.on_disk_only();
}

size_t PersistenceHooks::rebuild_key_filters(storage::Store& store) {
  if (!impl_->full_eviction) return 0;
  const auto for_each_shard = [&](const std::function<void(Shard&)>& change) {
    for (size_t s = 0; s < impl_->shard_count; ++s) {
      Shard& shard = impl_->shards[s];
      MutexLock lock(shard.mutex);
      change(shard);
    }
  };
  for_each_shard([](Shard& shard) TERN_REQUIRES(shard.mutex) {
    shard.keys_on_disk_rebuild = std::make_unique<KeyFilter>(
        shard.keys_on_disk.false_positive_rate(), shard.keys_on_disk.keys());
  });
  size_t added = 0;
  try {
    store.scan([&](const storage::Record& record) {
      const uint64_t hash = hash_key(record.key);
      Shard& shard = impl_->shard_for(record.key);
      MutexLock lock(shard.mutex);
      // A key in memory goes into the filter if it leaves (remember_on_disk), not before.
      if (shard.table.find(hash, record.key) == HashTable::npos) {
        shard.keys_on_disk_rebuild->add(record.key);
        ++added;
      }
      return true;
    });
  } catch (...) {
    for_each_shard([](Shard& shard)
                       TERN_REQUIRES(shard.mutex) { shard.keys_on_disk_rebuild.reset(); });
    throw;
  }
  for_each_shard([](Shard& shard) TERN_REQUIRES(shard.mutex) {
    shard.keys_on_disk = std::move(*shard.keys_on_disk_rebuild);
    shard.keys_on_disk_rebuild.reset();
  });
  return added;
}

void PersistenceHooks::size_key_filters(uint64_t keys_on_disk) {
  if (!impl_->full_eviction) return;
  // Room for 25% more: the estimate is rough (RocksDB's ran 19% low in a test), and the
  // shards' shares differ a little.
  const uint64_t per_shard = keys_on_disk / impl_->shard_count * 5 / 4;
  if (per_shard <= KeyFilter::kFirstCapacity) return;
  for (size_t s = 0; s < impl_->shard_count; ++s) {
    Shard& shard = impl_->shards[s];
    MutexLock lock(shard.mutex);
    if (!shard.keys_on_disk.empty()) continue;
    shard.keys_on_disk = KeyFilter(shard.keys_on_disk.false_positive_rate(), per_shard);
  }
}

bool PersistenceHooks::restore_fetched(std::string_view key, MutableItemPtr stored) {
  // Built before taking the shard lock, in case the record turns out to be as good as absent.
  const MutableItemPtr marker = make_absent_marker(key);
  ItemPtr discarded;  // destroyed after the lock is released
  ItemPtr expired;    // likewise
  uint64_t mem_after = 0;
  int64_t now = 0;
  bool wake_flusher = false;
  {
    KeyAccess access(*impl_, key);
    if (!access.on_disk_only() || impl_->collection_gone(key)) return false;
    now = access.now();
    Shard& shard = access.shard();
    shard.mutex.assert_held();  // KeyAccess holds it
    // What a flush dropped reads as absent, and so does a tombstone due for purging.
    if (stored && (stored->cas < shard.flushed_below_cas ||
                   (stored->deleted && EngineImpl::is_expired(*stored, now)))) {
      stored = nullptr;
    }
    const auto put = [&](MutableItemPtr item) TERN_REQUIRES(shard.mutex) {
      shard.table.reserve_one();  // the one step that can fail
      const int64_t charge = static_cast<int64_t>(item_charge(*item));
      size_t shortfall = 0;
      impl_->charge(charge, /*forced=*/true, mem_after, shortfall);
      shard.bytes += charge;
      install(shard, access, nullptr, std::move(item), /*insert=*/true, 0, now, discarded);
    };
    put(stored ? stored : marker);
    // The disk's document was counted while it was there only; from now on memory counts it.
    if (stored && !stored->deleted && shard.evicted_documents > 0) --shard.evicted_documents;
    // A document that expired on disk expires now, as one found in memory does: its tombstone
    // goes to disk too. With no tombstones kept that leaves the key nothing: it is absent.
    if (stored && !stored->deleted && EngineImpl::is_expired(*stored, now)) {
      impl_->purge_slot(shard, shard.table.find(access.hash(), key), now, expired, wake_flusher);
      if (shard.table.find(access.hash(), key) == HashTable::npos) put(marker);
    }
  }
  impl_->signal_pressure_if_needed(mem_after, now);
  if (wake_flusher) impl_->notify_dirty();
  return true;
}

std::optional<PersistenceHooks::Evicted> PersistenceHooks::evicted(std::string_view key) {
  KeyAccess access(*impl_, key);
  const Slot* slot = access.slot();
  if (!slot || slot->item->resident) return std::nullopt;
  return Evicted{slot->item->vbucket, slot->item->cas};
}

}  // namespace tern::engine
