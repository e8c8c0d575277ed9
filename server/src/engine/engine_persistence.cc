// The engine's side of a persistent bucket: the dirty queues the flusher drains, the
// durable writes held aside until the disk has them, and warmup's insert of what the disk
// held. Mutations fill the queues and the prepared tables in mutate_once (mutation.h).

#include <iterator>

#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/mutation.h"
#include "engine/stored_item.h"

namespace tern::engine {

void Engine::take_dirty(std::vector<ItemPtr>& out) {
  // Cleared before taking: a change queued after a shard was taken finds the flag clear and
  // tells the listener, so no change waits for a wake-up that never comes. (One queued
  // between the two steps and taken anyway costs the flusher one empty run.)
  impl_->dirty_pending.store(false, std::memory_order_seq_cst);
  for (size_t s = 0; s < impl_->shard_count; ++s) {
    Shard& shard = impl_->shards[s];
    std::lock_guard guard(shard.mutex);
    if (shard.dirty.empty()) continue;
    out.insert(out.end(), std::make_move_iterator(shard.dirty.begin()),
               std::make_move_iterator(shard.dirty.end()));
    impl_->dirty_count.fetch_sub(shard.dirty.size(), std::memory_order_relaxed);
    shard.dirty.clear();  // keeps its capacity for the next batch
  }
}

size_t Engine::dirty_count() const {
  return impl_->dirty_count.load(std::memory_order_relaxed);
}

void Engine::set_dirty_listener(std::function<void()> listener) {
  std::lock_guard guard(impl_->listener_mutex);
  impl_->dirty_listener = std::move(listener);
}

bool Engine::commit_prepared(std::string_view key, uint64_t cas) {
  ItemPtr replaced;  // destroyed after the lock is released
  uint64_t mem_after = 0;
  int64_t now = 0;
  {
    KeyAccess access(*impl_, key);
    now = access.now();
    Shard& shard = access.shard();
    auto prepared = shard.prepared.find(key);
    if (prepared == shard.prepared.end() || prepared->second->cas != cas) return false;
    ItemPtr item = prepared->second;
    Slot* entry = access.entry();
    // A write prepared with an expiry that has passed since commits as a removal.
    const bool insert = !Impl::is_expired(*item, now);
    if (insert && !entry) shard.table.reserve_one();  // the one step that can fail
    const int64_t delta = static_cast<int64_t>(insert ? item_charge(*item) : 0) -
                          static_cast<int64_t>(entry ? item_charge(*entry->item) : 0);
    size_t shortfall = 0;
    impl_->charge(delta, /*forced=*/true, mem_after, shortfall);
    shard.bytes += delta;
    if (!item->deleted) shard.counters.add(Counter::total_items);
    shard.prepared.erase(prepared);
    impl_->prepared_count.fetch_sub(1, std::memory_order_relaxed);
    install(shard, access, entry, std::move(item), insert, 0, now, replaced);
  }
  impl_->signal_pressure_if_needed(mem_after, now);
  return true;
}

size_t Engine::prepared_count() const {
  return impl_->prepared_count.load(std::memory_order_relaxed);
}

void Engine::set_vbuckets(std::span<VBucket> vbuckets) { impl_->vbuckets = vbuckets; }

bool Engine::restore(std::shared_ptr<Item> item) {
  // Whatever shard count wrote it, a CAS's sequence is at most cas >> shard_bits, so new
  // CAS values from this floor on are all greater.
  const uint64_t floor = (item->cas >> impl_->shard_bits) + 1;
  uint64_t current = impl_->cas_floor.load(std::memory_order_relaxed);
  while (current < floor &&
         !impl_->cas_floor.compare_exchange_weak(current, floor, std::memory_order_relaxed)) {
  }
  KeyAccess access(*impl_, item->key());
  // An expired document (or a tombstone due for purging) is as good as absent.
  if (Impl::is_expired(*item, access.now())) return true;
  if (access.entry()) return true;
  const size_t charge = item_charge(*item);
  if (impl_->mem_used.load(std::memory_order_relaxed) + charge > impl_->low_watermark) {
    return false;
  }
  Shard& shard = access.shard();
  shard.table.reserve_one();  // may throw, before anything is charged
  impl_->mem_used.fetch_add(charge, std::memory_order_relaxed);
  shard.bytes += charge;
  if (item->deleted) ++shard.tombstones;
  item->persisted.store(true, std::memory_order_relaxed);
  Slot& slot = shard.table.insert(access.hash(), std::move(item));
  slot.last_access_ms = access.now();
  return true;
}

}  // namespace tern::engine
