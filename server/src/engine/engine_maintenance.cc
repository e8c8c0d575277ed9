// The engine's housekeeping: flush, expiry purge, eviction, memory and statistics.

#include <algorithm>
#include <limits>
#include <new>
#include <vector>

#include "engine/engine_impl.h"
#include "engine/stored_item.h"

namespace tern::engine {
namespace {

constexpr uint64_t kFlushSequenceMask = (uint64_t{1} << kFlushSequenceBits) - 1;
// Slots eviction looks at to estimate which access times are old: in all, and at least
// per shard (a line of index; a new table has as many slots).
constexpr size_t kEvictionSampleSlots = 8192;
constexpr size_t kEvictionSampleSlotsPerShard = 8;
// Slots eviction scans per acquisition of a shard's lock.
constexpr size_t kEvictionScanStep = 1024;
// A sweep older than this starts afresh: Item::idle_ms() counts up to 49 days.
constexpr int64_t kLongestSweepMs = int64_t{24} * 24 * 3600 * 1000;

struct AccessSample {
  uint32_t idle_ms;  // Item::idle_ms
  size_t gain;       // what evicting the item would free
};

// Samples evictable items across all shards and returns the idle time (Item::idle_ms) at or
// above which evicting every such item should free about `bytes_wanted`.
uint32_t estimate_eviction_cutoff(EngineImpl& impl, uint64_t bytes_wanted) {
  std::vector<AccessSample> samples;
  uint64_t sampled_bytes = 0;
  const size_t visits_per_shard =
      std::max(kEvictionSampleSlotsPerShard, kEvictionSampleSlots / impl.shard_count);
  for (size_t s = 0; s < impl.shard_count; ++s) {
    Shard& shard = impl.shards[s];
    MutexLock guard(shard.mutex);
    const int64_t now = impl.clock.steady_ms();
    const size_t capacity = shard.table.capacity();
    const size_t visits = std::min(capacity, visits_per_shard);
    size_t i = shard.sample_cursor % capacity;
    size_t read = 0;
    for (size_t v = 0; v < visits; ++v, i = (i + 1) % capacity) {
      const Slot& slot = shard.table.at(i);
      if (!slot.item) continue;
      ++read;
      // Every item counts towards the sample's share of memory, only evictable ones
      // towards what evicting frees.
      sampled_bytes += item_charge(*slot.item);
      const size_t gain = impl.eviction_gain(shard, slot, now);
      if (gain > 0) samples.push_back({slot.item->idle_ms(now), gain});
    }
    shard.sample_cursor = i;
    shard.counters.add(Counter::eviction_visits, read);
  }
  if (samples.empty()) return 0;
  // The longest idle first.
  std::sort(samples.begin(), samples.end(),
            [](const AccessSample& a, const AccessSample& b) { return a.idle_ms > b.idle_ms; });
  // Scale the wanted bytes to the sample: the sample's share of all memory.
  const uint64_t total = std::max<uint64_t>(impl.mem_used.load(std::memory_order_relaxed), 1);
  const double wanted_in_sample =
      static_cast<double>(bytes_wanted) * static_cast<double>(sampled_bytes) / total;
  double accumulated = 0;
  for (const AccessSample& sample : samples) {
    accumulated += sample.gain;
    if (accumulated >= wanted_in_sample) return sample.idle_ms;
  }
  return samples.back().idle_ms;
}

// Frees the evictable item at `index` (eviction_gain() > 0) into `evicted` and returns the
// bytes freed: an ephemeral bucket drops it, and so does full eviction (the disk has it);
// value eviction keeps its non-resident copy. Erasing may move a later item into `index`;
// `next` is where the scan goes on.
size_t evict_slot(EngineImpl& impl, Shard& shard, size_t index, std::vector<ItemPtr>& evicted,
                  size_t& next) TERN_REQUIRES(shard.mutex) {
  if (!impl.persistent || impl.full_eviction) {
    next = index;  // look at it again
    const Item& item = *shard.table.at(index).item;
    // An absent marker's key is not on disk: it may go without a trace.
    if (impl.full_eviction && !item.absent) EngineImpl::remember_on_disk(shard, item.key());
    const size_t charge = impl.remove_slot(shard, index, evicted.emplace_back());
    // A tombstone (or an absent marker) is not an item: dropping one frees memory but
    // evicts nothing.
    if (!evicted.back()->deleted) {
      // Full eviction: the document is on disk only now, and still counts as an item.
      if (impl.full_eviction) {
        ++shard.evicted_documents;
        shard.counters.add(Counter::num_value_ejects);
      } else {
        shard.counters.add(Counter::evictions);
      }
      shard.counters.add(Counter::reclaimed_bytes, charge);
    }
    return charge;
  }
  next = index + 1;
  Slot& slot = shard.table.at(index);
  MutableItemPtr copy = make_non_resident(*slot.item);  // may throw, changing nothing
  const size_t freed = item_charge(*slot.item) - item_charge(*copy);
  evicted.push_back(std::move(slot.item));
  slot.item = std::move(copy);
  impl.hold_if_queued(*evicted.back());
  ++shard.non_resident;
  shard.bytes -= freed;
  impl.mem_used.fetch_sub(freed, std::memory_order_relaxed);
  shard.counters.add(Counter::num_value_ejects);
  shard.counters.add(Counter::reclaimed_bytes, freed);
  return freed;
}

// Moves `sweep`'s hand on, evicting the items last used before its moment, until `freed`
// reaches `target` or the hand has passed every shard (then the sweep is over). Adds what each
// eviction frees as it goes, so that the count stays exact when one throws.
void sweep_on(EngineImpl& impl, EvictionSweep& sweep, size_t target, size_t& freed) {
  while (sweep.shards_left > 0 && freed < target) {
    Shard& shard = impl.shards[sweep.shard];
    // A large shard is passed in bounded steps so that its lock is never held for long; the
    // table may change between steps, which only makes the sweep more approximate.
    std::vector<ItemPtr> evicted;  // destroyed after the lock is released
    MutexLock lock(shard.mutex);
    const int64_t now = impl.clock.steady_ms();
    impl.settle_flush(shard, now);
    const auto min_idle_ms =
        static_cast<uint32_t>(std::clamp<int64_t>(now - sweep.used_before_ms, 0, kLongestSweepMs));
    const size_t capacity = shard.table.capacity();
    const size_t end = std::min(capacity, sweep.slot + kEvictionScanStep);
    size_t i = sweep.slot;
    size_t read = 0;
    while (i < end && freed < target) {
      const Slot& slot = shard.table.at(i);
      read += slot.item ? 1 : 0;
      if (!slot.item || slot.item->idle_ms(now) < min_idle_ms ||
          impl.eviction_gain(shard, slot, now) == 0) {
        ++i;
        continue;
      }
      freed += evict_slot(impl, shard, i, evicted, i);
    }
    shard.counters.add(Counter::eviction_visits, read);
    sweep.slot = i;
    if (i >= capacity) {
      sweep.slot = 0;
      sweep.shard = (sweep.shard + 1) & (impl.shard_count - 1);
      --sweep.shards_left;
    }
  }
  sweep.active = sweep.shards_left > 0;
}

}  // namespace

uint64_t Engine::flush(uint32_t delay_seconds) {
  if (impl_->persistent && delay_seconds != 0) return 0;
  const int64_t now = impl_->clock.steady_ms();
  const int64_t deadline =
      delay_seconds == 0 ? now : std::max(now, expiry_deadline_ms(delay_seconds));
  // Held until every shard has applied an immediate flush, so that no take_dirty() sees some
  // shards flushed and others not (a shard another thread reaches first applies it itself).
  MutexLock guard(impl_->flush_mutex);
  // Never 0, which means "never flushed".
  const uint64_t sequence = impl_->flush_sequence++ % kFlushSequenceMask + 1;
  const auto since_origin =
      static_cast<uint64_t>(std::max<int64_t>(0, deadline - impl_->origin_ms));
  impl_->flush_word.store((since_origin << kFlushSequenceBits) | sequence,
                          std::memory_order_release);
  const uint64_t number = ++impl_->flushes;
  if (impl_->persistent) impl_->flush_untaken = number;
  impl_->cmd_flush.fetch_add(1, std::memory_order_relaxed);
  if (delay_seconds != 0) return number;
  // An immediate flush frees the memory now rather than on each shard's next access.
  for (size_t s = 0; s < impl_->shard_count; ++s) {
    MutexLock lock(impl_->shards[s].mutex);
    impl_->settle_flush(impl_->shards[s], now);
  }
  return number;
}

size_t PagingHooks::purge_expired(size_t shard_index, size_t max_visits) {
  if (shard_index >= impl_->shard_count) return 0;
  Shard& shard = impl_->shards[shard_index];
  std::vector<ItemPtr> purged;  // destroyed after the lock is released
  bool wake_flusher = false;
  UniqueLock lock(shard.mutex);
  const int64_t now = impl_->clock.steady_ms();
  const size_t flushed = impl_->settle_flush(shard, now);
  const size_t capacity = shard.table.capacity();
  size_t i = shard.purge_cursor & (capacity - 1);
  // Only advancing counts as a visit, so `capacity` visits cover the whole shard; removals
  // are bounded by the items present.
  for (size_t visits = std::min(max_visits, capacity); visits > 0;) {
    const Slot& slot = shard.table.at(i);
    if (slot.item && EngineImpl::is_expired(*slot.item, now)) {
      // Erasing may move a later item into slot i, so look at i again (an expiry's
      // tombstone that took the slot is not due, and is passed over).
      const size_t charge = impl_->purge_slot(shard, i, now, purged.emplace_back(), wake_flusher);
      if (charge != 0) shard.counters.add(Counter::reclaimed_bytes, charge);
      continue;
    }
    i = (i + 1) & (capacity - 1);
    --visits;
  }
  shard.purge_cursor = i;
  lock.unlock();
  if (wake_flusher) impl_->notify_dirty();
  return flushed + purged.size();
}

size_t PagingHooks::evict(size_t bytes_to_free) { return impl_->evict(bytes_to_free); }

size_t EngineImpl::eviction_gain(const Shard& shard, const Slot& slot, int64_t now) const {
  const Item& item = *slot.item;
  if (is_locked(slot, now)) return 0;
  // A gone collection's key is the purge's: evicted whole, it would count as a document on
  // disk, which the purge may already have passed.
  if (collection_gone(item.key())) return 0;
  if (!persistent) return item_charge(item);
  if (!shard.prepared.empty() && shard.prepared.contains(item.key())) return 0;
  if (item.absent) return item_charge(item);
  // An expired document is the purge's, which leaves its tombstone; evicted, it would still
  // count as an item.
  if (!on_disk(item) || is_expired(item, now)) return 0;
  if (full_eviction) return item_charge(item);
  if (item.deleted || !item.resident) return 0;
  return item.value().size();  // the non-resident copy keeps the rest
}

// Why a sweep. The threshold a sample sets for what one call wants is met by that share of
// the items, wherever they are, so a call that wants a few KiB passes nearly every item to
// find them, each a cache miss. Under memory pressure the pager frees memory a slice at a
// time and writes that do not fit evict what they lack, so that cost was paid again and
// again. Above the low watermark the threshold is therefore set for at least the band between
// the watermarks, and the calls take turns moving one hand on until it has passed every
// shard: a pass frees a band's worth with one visit to each item, as kv_engine's item pager
// does. The items it takes are then the least recently used of the band, not of each call's
// bytes. Below the low watermark every call starts its own sweep for what it wants.
size_t EngineImpl::evict(size_t bytes_to_free) {
  size_t freed = 0;
  // Two sweeps guided by sampled access times, then a last one that takes anything
  // evictable rather than fail while there is memory to free.
  constexpr int kRounds = 3;
  try {
    for (int round = 0; round < kRounds && freed < bytes_to_free; ++round) {
      const uint64_t used = mem_used.load(std::memory_order_relaxed);
      const uint64_t low = low_watermark.load(std::memory_order_relaxed);
      const uint64_t high = high_watermark.load(std::memory_order_relaxed);
      const bool pressure = used > low;
      const bool last_round = round + 1 == kRounds;
      EvictionSweep turn;
      if (round == 0 && pressure) {
        MutexLock lock(sweep_mutex);
        turn = sweep;
      }
      if (!turn.active || clock.steady_ms() - turn.used_before_ms > kLongestSweepMs) {
        uint64_t share = bytes_to_free - freed;
        if (pressure) share = std::max({share, used - low, high > low ? high - low : 0});
        const uint32_t min_idle_ms = last_round ? 0 : estimate_eviction_cutoff(*this, share);
        turn = {.active = true,
                .used_before_ms = clock.steady_ms() - min_idle_ms,
                .shard = evict_start.fetch_add(1, std::memory_order_relaxed) & (shard_count - 1),
                .shards_left = shard_count};
      }
      sweep_on(*this, turn, bytes_to_free, freed);
      // The last round takes anything evictable, for this call alone.
      if (last_round) turn.active = false;
      MutexLock lock(sweep_mutex);
      sweep = turn;
    }
  } catch (const std::bad_alloc&) {
    // Each eviction allocates (the sample, a non-resident copy) before it changes anything,
    // so a failure leaves nothing half done and what was freed stays counted. Stop there
    // rather than throw: the item pager would end, and a write evicting inline answers
    // OutOfMemory as it would with nothing evictable.
  }
  return freed;
}

uint64_t Engine::mem_used() const { return impl_->mem_used.load(std::memory_order_relaxed); }
void Engine::set_memory_quota(size_t bytes) {
  impl_->memory_quota.store(bytes, std::memory_order_relaxed);
  impl_->high_watermark.store(bytes * config_.high_watermark_percent / 100,
                              std::memory_order_relaxed);
  impl_->low_watermark.store(bytes * config_.low_watermark_percent / 100,
                             std::memory_order_relaxed);
  // A smaller quota may leave memory above the new high watermark: wake the pager now
  // rather than at the next write.
  impl_->signal_pressure_if_needed(impl_->mem_used.load(std::memory_order_relaxed),
                                   impl_->clock.steady_ms());
}

void Engine::set_max_ttl(uint32_t seconds) {
  impl_->max_ttl_seconds.store(seconds, std::memory_order_relaxed);
}

uint32_t Engine::max_ttl() const {
  return impl_->max_ttl_seconds.load(std::memory_order_relaxed);
}

uint64_t Engine::high_watermark_bytes() const { return impl_->high_watermark; }
uint64_t Engine::low_watermark_bytes() const { return impl_->low_watermark; }

void PagingHooks::set_memory_pressure_listener(std::function<void()> listener) {
  MutexLock guard(impl_->listener_mutex);
  impl_->pressure_listener = std::move(listener);
}

Stats Engine::stats() const {
  Stats stats;
  uint64_t totals[static_cast<size_t>(Counter::Count)] = {};
  for (size_t s = 0; s < impl_->shard_count; ++s) {
    Shard& shard = impl_->shards[s];
    {
      MutexLock lock(shard.mutex);
      impl_->settle_flush(shard, impl_->clock.steady_ms());
      stats.curr_items += shard.table.size() - shard.tombstones + shard.evicted_documents;
      stats.num_non_resident += shard.non_resident + shard.evicted_documents;
      stats.bloom_filter_keys += shard.keys_on_disk.keys();
      stats.bloom_filter_memory += shard.keys_on_disk.bytes();
      if (shard.keys_on_disk_rebuild) stats.bloom_filter_memory += shard.keys_on_disk_rebuild->bytes();
    }
    for (size_t c = 0; c < static_cast<size_t>(Counter::Count); ++c) {
      totals[c] += shard.counters.get(static_cast<Counter>(c));
    }
  }
#define TERN_ENGINE_COUNTER(member, ...) \
  stats.member = totals[static_cast<size_t>(Counter::member)];
#include "metrics/stats.def"
  // The TERN_ENGINE_VALUE lines (curr_items, num_non_resident and the bloom filters' are summed above).
  stats.mem_used = mem_used();
  stats.mem_used_highwat = impl_->mem_used_highwat.load(std::memory_order_relaxed);
  stats.mem_quota = impl_->memory_quota;
  stats.cmd_flush = impl_->cmd_flush.load(std::memory_order_relaxed);
  stats.oom_errors = impl_->oom_errors.load(std::memory_order_relaxed);
  return stats;
}

}  // namespace tern::engine
