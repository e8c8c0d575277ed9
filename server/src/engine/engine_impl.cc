#include "engine/engine_impl.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "cluster/vbucket_of.h"
#include "engine/stored_item.h"

namespace tern::engine {
namespace {

constexpr uint32_t kMaxRelativeExpiry = 30 * 24 * 60 * 60;

size_t round_up_to_power_of_two(size_t n) { return std::bit_ceil(std::max<size_t>(n, 1)); }

}  // namespace

EngineImpl::EngineImpl(const Config& config, const Clock& clock_in)
    : clock(clock_in),
      shard_count(
          std::min<size_t>(round_up_to_power_of_two(config.shard_count), cluster::kVBucketCount)),
      shard_bits(static_cast<unsigned>(std::countr_zero(shard_count))),
      memory_quota(config.memory_quota_bytes),
      high_watermark(config.memory_quota_bytes * config.high_watermark_percent / 100),
      low_watermark(config.memory_quota_bytes * config.low_watermark_percent / 100),
      max_ttl_seconds(config.max_ttl_seconds),
      evict_when_full(config.evict_when_full),
      persistent(config.persistent),
      full_eviction(config.persistent && config.full_eviction),
      tombstone_ms(int64_t{config.metadata_purge_seconds} * 1000),
      origin_ms(clock_in.steady_ms()),
      shards(new Shard[shard_count]),
      last_pressure_signal_ms(std::numeric_limits<int64_t>::min() / 2) {
  for (size_t i = 0; i < shard_count; ++i) {
    shards[i].index = i;
    MutexLock lock(shards[i].mutex);  // uncontended: no other thread has the engine yet
    shards[i].keys_on_disk = KeyFilter(config.bloom_filter_fp_rate);
  }
}

size_t EngineImpl::apply_flush(Shard& shard, int64_t now, uint64_t word) {
  const int64_t deadline = origin_ms + static_cast<int64_t>(word >> kFlushSequenceBits);
  if (now < deadline) return 0;
  size_t dropped = 0;
  {
    HashTable flushed;
    flushed.swap(shard.table);
    dropped = flushed.size();
    shard.applied_flush = word;
    // The changes not yet taken for the disk were made before the flush: they go with it
    // (the durable writes pending among them are taken again: Engine::flush).
    std::vector<ItemPtr> changes;
    if (persistent) {
      changes.swap(shard.dirty);
      dirty_count.fetch_sub(changes.size(), std::memory_order_relaxed);
      shard.flush_untaken = true;
      unqueue(changes);
    }
    mem_used.fetch_sub(shard.bytes, std::memory_order_relaxed);
    shard.bytes = 0;
    shard.tombstones = 0;
    shard.non_resident = 0;
    // What the flush dropped stays on disk until the flusher clears it, and under full
    // eviction reads as absent until then (no CAS issued from now on is below this one).
    shard.evicted_documents = 0;
    shard.flushed_below_cas = next_cas(shard);
    shard.purge_cursor = 0;
    shard.mutex.unlock();  // the dropped items go without the lock held
  }
  shard.mutex.lock();
  return dropped;
}

size_t EngineImpl::find_entry(Shard& shard, uint64_t hash, std::string_view key, int64_t now,
                              ItemPtr& graveyard, bool& wake_flusher) {
  const size_t index = shard.table.find(hash, key);
  if (index == HashTable::npos || !is_expired(*shard.table.at(index).item, now)) return index;
  purge_slot(shard, index, now, graveyard, wake_flusher);
  // An expiry in a persistent bucket may have left a tombstone in its place.
  return persistent ? shard.table.find(hash, key) : HashTable::npos;
}

size_t EngineImpl::remove_slot(Shard& shard, size_t index, ItemPtr& removed) {
  const Item& item = *shard.table.at(index).item;
  const size_t charge = item_charge(item);
  shard.bytes -= charge;
  if (item.deleted) --shard.tombstones;
  if (!item.resident) --shard.non_resident;
  mem_used.fetch_sub(charge, std::memory_order_relaxed);
  removed = shard.table.erase(index);
  hold_if_queued(*removed);
  return charge;
}

size_t EngineImpl::purge_slot(Shard& shard, size_t index, int64_t now, ItemPtr& removed,
                              bool& wake_flusher) {
  const Item& item = *shard.table.at(index).item;
  // A key with a durable write pending needs no tombstone: that write, queued after the
  // document was, replaces it on disk anyway (and a tombstone numbered after the write
  // would wrongly land on disk over it).
  if (persistent && !item.deleted &&
      (shard.prepared.empty() || !shard.prepared.contains(item.key()))) {
    shard.counters.add(Counter::expired_items);
    return expire_to_tombstone(shard, index, now, removed, wake_flusher);
  }
  const size_t charge = remove_slot(shard, index, removed);
  if (removed->deleted) return 0;
  shard.counters.add(Counter::expired_items);
  return charge;
}

size_t EngineImpl::expire_to_tombstone(Shard& shard, size_t index, int64_t now, ItemPtr& removed,
                                       bool& wake_flusher) {
  Slot& slot = shard.table.at(index);
  const Item& document = *slot.item;
  // The steps that can fail come first.
  MutableItemPtr tombstone = make_tombstone(document, tombstone_deadline(now));
  reserve_dirty(shard);
  tombstone->cas = next_cas(shard);
  tombstone->rev_seqno = document.rev_seqno + 1;
  tombstone->vbucket = document.vbucket;
  if (document.vbucket < vbuckets.size()) {
    tombstone->seqno = vbuckets[document.vbucket].record_mutation();
  }
  if (queue_dirty(shard, tombstone)) wake_flusher = true;
  if (tombstone_ms == 0) {  // the tombstone is the queue's alone
    hold_if_queued(*tombstone);
    return remove_slot(shard, index, removed);
  }
  // The tombstone keeps at most the document's key and attributes: it never costs more.
  const size_t freed = item_charge(document) - item_charge(*tombstone);
  shard.bytes -= freed;
  mem_used.fetch_sub(freed, std::memory_order_relaxed);
  ++shard.tombstones;
  if (!document.resident) --shard.non_resident;
  tombstone->inherit_last_use(document);
  removed = std::move(slot.item);
  slot.item = std::move(tombstone);
  hold_if_queued(*removed);
  return freed;
}

uint32_t EngineImpl::unix_seconds_at(int64_t steady_ms, int64_t now) const {
  if (steady_ms == 0) return 0;
  const int64_t delta_ms = steady_ms - now;
  const int64_t delta_seconds = (delta_ms + (delta_ms >= 0 ? 500 : -500)) / 1000;
  return static_cast<uint32_t>(std::max<int64_t>(1, clock.unix_seconds() + delta_seconds));
}

void EngineImpl::signal_pressure(int64_t now) {
  int64_t last = last_pressure_signal_ms.load(std::memory_order_relaxed);
  if (now - last < PagingHooks::kPressureIntervalMs) return;
  if (!last_pressure_signal_ms.compare_exchange_strong(last, now)) return;
  std::function<void()> listener;
  {
    MutexLock guard(listener_mutex);
    listener = pressure_listener;
  }
  if (listener) listener();
}

void EngineImpl::notify_dirty() {
  std::function<void()> listener;
  {
    MutexLock guard(listener_mutex);
    listener = dirty_listener;
  }
  if (listener) listener();
}

Engine::Engine(Config config, const Clock& clock)
    : config_(config), impl_(std::make_unique<EngineImpl>(config, clock)) {
  config_.shard_count = impl_->shard_count;
}

Engine::~Engine() = default;

PersistenceHooks& Engine::persistence() { return impl_->persistence_hooks; }
const PersistenceHooks& Engine::persistence() const { return impl_->persistence_hooks; }
PagingHooks& Engine::paging() { return impl_->paging_hooks; }
const PagingHooks& Engine::paging() const { return impl_->paging_hooks; }
CollectionHooks& Engine::collections() { return impl_->collection_hooks; }
const CollectionHooks& Engine::collections() const { return impl_->collection_hooks; }

int64_t Engine::expiry_deadline_ms(uint32_t expiry) const {
  if (expiry == 0) return 0;
  const int64_t now = impl_->clock.steady_ms();
  const int64_t seconds_left = expiry <= kMaxRelativeExpiry
                                   ? int64_t{expiry}
                                   : int64_t{expiry} - impl_->clock.unix_seconds();
  // Already past: any non-zero deadline not after now.
  if (seconds_left <= 0) return now == 0 ? -1 : now;
  return now + seconds_left * 1000;
}

size_t PagingHooks::shard_count() const { return impl_->shard_count; }

size_t PagingHooks::shard_capacity(size_t shard) const {
  if (shard >= impl_->shard_count) return 0;
  Shard& target = impl_->shards[shard];
  MutexLock lock(target.mutex);
  return target.table.capacity();
}

}  // namespace tern::engine
