#pragma once
// Engine internals (EngineImpl: the shards and the state they share), for the files that
// implement the engine's interfaces. Engine's key-value operations: engine.cc (the commands),
// engine_documents.cc (the read-modify-write of whole documents), mutation.h (the one path
// every mutation takes). engine_impl.cc: construction, lookup, expiry and accounting
// primitives. engine_maintenance.cc: flush, stats and memory, and PagingHooks (purge and
// eviction). persistence_hooks.cc: PersistenceHooks, the flusher's, warmup's, fetches' and
// durability's. collection_hooks.cc: CollectionHooks.

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cluster/collections_manifest.h"
#include "cluster/vbucket_of.h"
#include "common/mutex.h"
#include "engine/collection_hooks.h"
#include "engine/collection_key.h"
#include "engine/engine.h"
#include "engine/hash_table.h"
#include "engine/key_filter.h"
#include "engine/paging_hooks.h"
#include "engine/persistence_hooks.h"
#include "engine/stored_item.h"
#include "engine/vbucket.h"

namespace tern::engine {

// The per-shard counters: the TERN_ENGINE_COUNTER lines of stats.def, named as their Stats
// members. Count is their number, and names no counter where one is optional.
enum class Counter : size_t {
#define TERN_ENGINE_COUNTER(member, ...) member,
#include "metrics/stats.def"
  Count
};

// Statistics of one shard: written only under the shard's mutex (so a plain load and store
// suffice, no read-modify-write), read by stats() from any thread.
class ShardCounters {
 public:
  void add(Counter counter, uint64_t n = 1) {
    auto& value = values_[static_cast<size_t>(counter)];
    value.store(value.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  uint64_t get(Counter counter) const {
    return values_[static_cast<size_t>(counter)].load(std::memory_order_relaxed);
  }

 private:
  std::array<std::atomic<uint64_t>, static_cast<size_t>(Counter::Count)> values_{};
};

// A pass of eviction's hand over the shards, evicting the items last used before a moment
// (EngineImpl::evict). A moment rather than an idle time, so that a sweep that lasts takes
// no more recently used items than it took when it began.
struct EvictionSweep {
  bool active = false;
  int64_t used_before_ms = 0;  // on the engine's steady clock
  size_t shard = 0;            // where the hand is: a shard...
  size_t slot = 0;             // ...and the next slot in it
  size_t shards_left = 0;      // the shards it has still to pass, this one included
};

// One vbucket's documents (with the default shard count: Config::shard_count), and what the
// engine keeps per vbucket beside them, all under one lock: as kv_engine's VBucket owns its
// HashTable and checkpoints. A mutation numbers its change on its key's vbucket (as the
// dispatcher files it) while it holds this lock, so `dirty` is in seqno order. Cache-line aligned
// so that threads working on neighbouring shards do not false-share.
struct alignas(64) Shard {
  Mutex mutex;
  HashTable table TERN_GUARDED_BY(mutex);
  uint64_t next_cas_sequence TERN_GUARDED_BY(mutex) = 1;
  uint64_t applied_flush TERN_GUARDED_BY(mutex) = 0;  // the flush word this shard has applied
  uint64_t bytes TERN_GUARDED_BY(mutex) = 0;          // charges of the items in `table`
  size_t tombstones TERN_GUARDED_BY(mutex) = 0;  // the items in `table` that are tombstones
  // The items in `table` whose value is evicted (Item::resident).
  size_t non_resident TERN_GUARDED_BY(mutex) = 0;
  // Full eviction: live documents of this shard's keys that are on disk only (evicted whole,
  // or left there by warmup). Counted in curr_items; a fetch that brings one back uncounts it.
  size_t evicted_documents TERN_GUARDED_BY(mutex) = 0;
  // Full eviction: the keys of this shard that left memory while the disk kept them (evicted
  // whole, or left on disk by warmup). A key missing from memory that the filter rules out is
  // absent on disk too (or only expired or removed there), so its miss needs no fetch. Keys
  // are never taken out: one that is back in memory is found there first, and one the disk
  // no longer holds costs a read that finds nothing. Only rebuild_key_filters() starts afresh.
  KeyFilter keys_on_disk TERN_GUARDED_BY(mutex);
  // Set while rebuild_key_filters() reads the disk: the filter taking this shard's place, which
  // remember_on_disk() fills too, so that a key leaving memory meanwhile is in both.
  std::unique_ptr<KeyFilter> keys_on_disk_rebuild TERN_GUARDED_BY(mutex);
  // Full eviction: what the disk still holds of a flush until the flusher clears it
  // (Engine::flush) reads as absent: the records of this shard's keys with a CAS below this.
  uint64_t flushed_below_cas TERN_GUARDED_BY(mutex) = 0;
  // Persistent buckets: a flush was applied to this shard and no take_dirty() has reported
  // it yet, so a durable write that commits now is queued again (Engine::flush).
  bool flush_untaken TERN_GUARDED_BY(mutex) = false;
  size_t purge_cursor TERN_GUARDED_BY(mutex) = 0;
  size_t sample_cursor TERN_GUARDED_BY(mutex) = 0;  // where eviction sampling resumes
  // Its position in the engine, part of every CAS this shard issues: set before any thread
  // shares the shard, then only read.
  size_t index = 0;
  // Persistent buckets only (Config::persistent); both stay empty in an ephemeral one.
  // The changes published or prepared since the flusher last took them, in the order they
  // were numbered.
  std::vector<ItemPtr> dirty TERN_GUARDED_BY(mutex);
  // Durable writes held aside until committed (MutationOptions::prepare), by key: a view of
  // the prepared item's own key bytes, which the entry keeps alive.
  std::unordered_map<std::string_view, ItemPtr> prepared TERN_GUARDED_BY(mutex);
  ShardCounters counters;  // written under mutex, read by anyone (ShardCounters)
};

struct EngineImpl {
  EngineImpl(const Config& config, const Clock& clock);

  // The shard holding `key`: its vbucket's (vbucket_of_key), folded onto the shard count.
  // With the default kVBucketCount shards, shard v is vbucket v's index.
  Shard& shard_for(std::string_view key) { return shards[vbucket_of_key(key) & (shard_count - 1)]; }
  // Unique across the engine: the shard's sequence number tagged with the shard's index.
  // A hybrid logical clock, as Couchbase's CAS is: the wall clock in nanoseconds (without
  // the shard bits) unless the shard has already issued that or more, then one more. Never
  // below cas_floor, so that it stays above every CAS issued before a restart. Clients read
  // time from it: the transactions of every SDK stamp an attempt's start with its CAS
  // (${Mutation.CAS}) and judge it expired against $vbucket.HLC.now, so a CAS that lags the
  // wall clock makes a live attempt look abandoned to their cleanup.
  uint64_t next_cas(Shard& shard) TERN_REQUIRES(shard.mutex) {
    const uint64_t floor = cas_floor.load(std::memory_order_relaxed);
    const uint64_t physical = static_cast<uint64_t>(std::max<int64_t>(0, clock.unix_nanoseconds())) >> shard_bits;
    shard.next_cas_sequence = std::max({shard.next_cas_sequence, floor, physical});
    return (shard.next_cas_sequence++ << shard_bits) | shard.index;
  }
  // Makes every CAS issued from now on greater than `cas`, whatever shard count issued it
  // (its sequence is at most cas >> shard_bits).
  void raise_cas_floor(uint64_t cas) {
    const uint64_t floor = (cas >> shard_bits) + 1;
    uint64_t current = cas_floor.load(std::memory_order_relaxed);
    while (current < floor &&
           !cas_floor.compare_exchange_weak(current, floor, std::memory_order_relaxed)) {
    }
  }
  static bool is_expired(const Item& item, int64_t now) { return is_due(item.expiry_ms, now); }
  // Whether a deadline (Item::expiry_ms: 0 for never) has come.
  static bool is_due(int64_t expiry_ms, int64_t now) { return expiry_ms != 0 && expiry_ms <= now; }
  static bool is_locked(const Slot& slot, int64_t now) { return slot.item->locked_at(now); }

  // Applies a flush whose time has come to `shard` and returns the items it dropped. The
  // shard's lock is held on entry and exit but released while the dropped items are destroyed.
  size_t settle_flush(Shard& shard, int64_t now) TERN_REQUIRES(shard.mutex) {
    const uint64_t word = flush_word.load(std::memory_order_acquire);
    return word == shard.applied_flush ? 0 : apply_flush(shard, now, word);
  }
  size_t apply_flush(Shard& shard, int64_t now, uint64_t word) TERN_REQUIRES(shard.mutex);

  // The index of the slot holding `key`'s live item or tombstone, or HashTable::npos. An
  // expired item or a tombstone due for purging found on the way is purged (purge_slot) into
  // `graveyard` so the caller can destroy it after unlocking.
  size_t find_entry(Shard& shard, uint64_t hash, std::string_view key, int64_t now,
                    ItemPtr& graveyard, bool& wake_flusher) TERN_REQUIRES(shard.mutex);

  // Removes the item or tombstone at `index` into `removed`, settles the memory,
  // tombstone and residency accounting and returns the bytes it was charged.
  size_t remove_slot(Shard& shard, size_t index, ItemPtr& removed) TERN_REQUIRES(shard.mutex);

  // Removes the expired item or tombstone at `index` (as remove_slot). An expired item is
  // counted in the stats and the bytes it freed returned; a tombstone's purge returns 0 and
  // is counted nowhere, as a tombstone was never an item. In a persistent bucket an expired
  // document is replaced by a tombstone queued for the flusher (see expire_to_tombstone);
  // wake_flusher is then set when the caller must call notify_dirty() after unlocking.
  size_t purge_slot(Shard& shard, size_t index, int64_t now, ItemPtr& removed,
                    bool& wake_flusher) TERN_REQUIRES(shard.mutex);

  // Persistent buckets: the expiry of the document at `index` as a change of its own: a
  // tombstone numbered on the document's vbucket and queued for the flusher, so that the
  // disk forgets the document too. It takes the document's slot while tombstones are kept;
  // with none kept it is only queued. Returns the bytes freed. May throw std::bad_alloc,
  // changing nothing.
  size_t expire_to_tombstone(Shard& shard, size_t index, int64_t now, ItemPtr& removed,
                             bool& wake_flusher) TERN_REQUIRES(shard.mutex);

  // The absolute Unix time, in seconds, of a steady-clock time in ms (0 stays 0).
  uint32_t unix_seconds_at(int64_t steady_ms, int64_t now) const;

  // Tells the pressure listener, at most once per interval, when memory is over the high
  // watermark. Call with no shard lock held.
  void signal_pressure_if_needed(uint64_t mem_used_now, int64_t now) {
    if (mem_used_now > high_watermark) signal_pressure(now);
  }
  void signal_pressure(int64_t now);

  // Evicts least recently used unlocked items until bytes_to_free are freed or nothing
  // more can be (or memory to do it cannot be allocated); returns the bytes freed. Never
  // throws. Call with no shard lock held. In a persistent bucket only values go (value
  // eviction): see eviction_gain(). While memory is above the low watermark, calls share
  // one sweep, which takes the least recently used items of the band between the watermarks
  // rather than those of each call's bytes (engine_maintenance.cc).
  size_t evict(size_t bytes_to_free);

  // Persistent buckets: whether the disk holds `item`, told by its seqno: the flusher's
  // persisted seqnos are exact (flusher.h). Every copy of the item keeps its seqno, so a
  // copy made before the flush (a lock's) is on disk as soon as the item is. A change that
  // named no vbucket has no seqno, and is never known to be on disk.
  bool on_disk(const Item& item) const {
    return item.seqno != 0 && item.vbucket < vbuckets.size() &&
           item.seqno <= vbuckets[item.vbucket].persisted_seqno();
  }

  // The bytes evicting the item in `slot` would free now, or 0 when it may not be evicted.
  // A locked item never is. An ephemeral bucket drops whole items. A persistent one only
  // evicts what is already on disk, and nothing of a key with a durable write pending: the
  // disk may then hold the prepared write, which a fetch would take for the document. Under
  // value eviction it replaces a live, resident document by its non-resident copy
  // (make_non_resident); under full eviction it drops documents and tombstones whole, and
  // absent markers (which are never on disk) at any time.
  size_t eviction_gain(const Shard& shard, const Slot& slot, int64_t now) const
      TERN_REQUIRES(shard.mutex);

  // Charges `delta` bytes to the quota (a negative delta releases them). A growth sets
  // mem_after to the bytes it would use, for signal_pressure_if_needed(), refused or not.
  // One that would pass the quota is refused unless `forced`: then nothing is charged,
  // `shortfall` is what was missing, and it returns false. A growth that stands raises
  // mem_used_highwat.
  bool charge(int64_t delta, bool forced, uint64_t& mem_after, size_t& shortfall) {
    if (delta <= 0) {
      mem_used.fetch_sub(static_cast<uint64_t>(-delta), std::memory_order_relaxed);
      return true;
    }
    const uint64_t after = mem_used.fetch_add(delta, std::memory_order_relaxed) + delta;
    mem_after = after;
    if (after > memory_quota && !forced) {
      mem_used.fetch_sub(delta, std::memory_order_relaxed);
      shortfall = static_cast<size_t>(after - memory_quota);
      return false;
    }
    raise_mem_used_highwat(after);
    return true;
  }

  // Relaxed: the mark is a statistic, read by nothing that orders other memory by it. The
  // load alone is the common case once memory stops growing.
  void raise_mem_used_highwat(uint64_t used) {
    uint64_t mark = mem_used_highwat.load(std::memory_order_relaxed);
    while (used > mark &&
           !mem_used_highwat.compare_exchange_weak(mark, used, std::memory_order_relaxed)) {
    }
  }

  // Full eviction: `key` of `shard` leaves memory while the disk keeps it (Shard::keys_on_disk).
  // Call before the key's slot goes: it may throw std::bad_alloc, and then nothing changed.
  static void remember_on_disk(Shard& shard, std::string_view key) TERN_REQUIRES(shard.mutex) {
    shard.keys_on_disk.add(key);
    if (shard.keys_on_disk_rebuild) shard.keys_on_disk_rebuild->add(key);
  }

  // The dirty queues. Make room with reserve_dirty() before changing anything (it may throw
  // std::bad_alloc); queue_dirty() then cannot fail. It returns whether the queues were
  // empty since the last take: the caller must then call notify_dirty() once it has
  // released the shard's lock.
  static void reserve_dirty(Shard& shard) TERN_REQUIRES(shard.mutex) {
    if (shard.dirty.size() == shard.dirty.capacity()) {
      shard.dirty.reserve(std::max<size_t>(16, shard.dirty.capacity() * 2));
    }
  }
  bool queue_dirty(Shard& shard, ItemPtr item) TERN_REQUIRES(shard.mutex) {
    // The flusher writes the whole record: a non-resident copy would store an empty value.
    assert(item->resident);
    item->mark_queued();
    shard.dirty.push_back(std::move(item));
    dirty_count.fetch_add(1, std::memory_order_relaxed);
    return !dirty_pending.load(std::memory_order_relaxed) &&
           !dirty_pending.exchange(true, std::memory_order_acq_rel);
  }
  void notify_dirty();

  // Persistent buckets: `item` left the index (or a prepared write was dropped without
  // entering it). If the flusher still needs it, it is charged as held until the flusher
  // is done with it (PersistenceHooks::flushed), so that the quota bounds all the engine holds: the
  // charge is forced, as the memory is in use already.
  void hold_if_queued(const Item& item) {
    if (!persistent || !item.hold()) return;
    mem_used.fetch_add(item_charge(item), std::memory_order_relaxed);
  }
  // The flusher is done with `items` (written, or dropped by a flush): releases what those
  // charged as held.
  void unqueue(std::span<const ItemPtr> items) {
    size_t released = 0;
    for (const ItemPtr& item : items) {
      if (item->unqueue()) released += item_charge(*item);
    }
    if (released != 0) mem_used.fetch_sub(released, std::memory_order_relaxed);
  }

  // When a tombstone made now may be purged: Config::metadata_purge_seconds from now; with
  // none, already (a persistent bucket still makes one, to write to disk, and keeps none).
  int64_t tombstone_deadline(int64_t now) const {
    return tombstone_ms > 0 ? now + tombstone_ms : (now == 0 ? -1 : now);
  }

  const Clock& clock;
  const size_t shard_count;
  const unsigned shard_bits;
  // Set at construction and by Engine::set_memory_quota() while requests run; an x86 load of
  // an atomic costs what a plain one does.
  std::atomic<uint64_t> memory_quota;
  std::atomic<uint64_t> high_watermark;
  std::atomic<uint64_t> low_watermark;
  std::atomic<uint32_t> max_ttl_seconds;  // Config::max_ttl_seconds, changeable likewise
  const bool evict_when_full;
  const bool persistent;
  const bool full_eviction;  // Config::full_eviction (only with persistent)
  const int64_t tombstone_ms;  // how long a tombstone is kept; 0: a remove keeps none
  const int64_t origin_ms;  // the steady clock at construction; flush words count from it
  std::unique_ptr<Shard[]> shards;
  std::span<VBucket> vbuckets;  // set once before serving (set_vbuckets); may stay empty

  std::atomic<uint64_t> mem_used{0};
  // The most mem_used has held after a charge that stood, since the engine was made: what a
  // sampler of mem_used would miss between two samples. A refused charge, undone at once,
  // does not count. Concurrent charges may fold another's refused bytes in (an overstatement,
  // never an understatement).
  std::atomic<uint64_t> mem_used_highwat{0};

  // The latest flush: its deadline (ms since origin_ms) in the high bits, a sequence
  // number in the low bits so that every flush is distinct. 0: never flushed.
  std::atomic<uint64_t> flush_word{0};
  // Serialises flush() callers, and in a persistent bucket each flush with take_dirty().
  Mutex flush_mutex;
  uint64_t flush_sequence TERN_GUARDED_BY(flush_mutex) = 0;
  // The flushes so far, and the latest no take_dirty() has reported.
  uint64_t flushes TERN_GUARDED_BY(flush_mutex) = 0;
  uint64_t flush_untaken TERN_GUARDED_BY(flush_mutex) = 0;
  std::atomic<uint64_t> cmd_flush{0};
  // Mutations refused OutOfMemory (mutate(): after the eviction they were allowed).
  std::atomic<uint64_t> oom_errors{0};

  // Eviction's sweep (engine_maintenance.cc): where its hand is and the moment it evicts the
  // items last used before, shared by the calls that evict while memory is above the low
  // watermark.
  Mutex sweep_mutex;
  EvictionSweep sweep TERN_GUARDED_BY(sweep_mutex);
  std::atomic<size_t> evict_start{0};  // the shard the next sweep starts at

  std::atomic<int64_t> last_pressure_signal_ms;
  Mutex listener_mutex;
  std::function<void()> pressure_listener TERN_GUARDED_BY(listener_mutex);
  std::function<void()> dirty_listener TERN_GUARDED_BY(listener_mutex);

  // The lowest sequence a shard may put in a CAS, besides the wall clock (next_cas): warmup
  // raises it past every CAS on disk (raise_cas_floor), whatever shard count wrote it, in case
  // the clock went back across a restart, so that no CAS a client may hold repeats.
  std::atomic<uint64_t> cas_floor{0};
  std::atomic<size_t> dirty_count{0};
  // Set by the change that finds the queues empty since the last take (it tells the dirty
  // listener); cleared by take_dirty().
  std::atomic<bool> dirty_pending{false};
  std::atomic<size_t> prepared_count{0};

  // Set for good for vbucket v once a document filed under v is installed in another shard
  // than v's (an ephemeral bucket files a document under the vbucket its request named, as
  // Couchbase does, and memcached clients name vbucket 0 for every key), so that v's shard no
  // longer holds all of v's documents: then for_each_live_item_of_vbucket(v) visits every
  // shard. Never set where requests are filed by their key's vbucket (every persistent
  // bucket, and the official SDKs' requests); memcached clients set it for vbucket 0 alone.
  std::array<std::atomic<bool>, cluster::kVBucketCount> filed_off_shard{};
  void note_filing(const Shard& shard, const Item& item) {
    if (item.vbucket >= filed_off_shard.size() ||
        (item.vbucket & (shard_count - 1)) == shard.index) {
      return;  // a vbucket past the map is visited whole anyway
    }
    std::atomic<bool>& filed = filed_off_shard[item.vbucket];
    if (!filed.load(std::memory_order_relaxed)) filed.store(true, std::memory_order_release);
  }
  // Whether vbucket's documents may lie outside its shard.
  bool vbucket_spread(uint16_t vbucket) const {
    return vbucket >= filed_off_shard.size() ||
           filed_off_shard[vbucket].load(std::memory_order_acquire);
  }

  // The bucket's manifest (CollectionHooks::set_manifest); null: keys are not told apart.
  std::atomic<const cluster::CollectionsManifest*> manifest{nullptr};
  // Whether `key` is gone: its collection is not in the manifest. One load of a null pointer
  // when no manifest is set.
  bool collection_gone(std::string_view key) const {
    const cluster::CollectionsManifest* current = manifest.load(std::memory_order_acquire);
    if (current == nullptr) return false;
    const std::optional<uint32_t> collection = collection_of_key(key);
    return collection && !current->has_collection(*collection);
  }

  // The engine's other jobs (Engine::persistence() and the others): views of this state.
  PersistenceHooks persistence_hooks{*this};
  PagingHooks paging_hooks{*this};
  CollectionHooks collection_hooks{*this};
};

inline constexpr unsigned kFlushSequenceBits = 20;

// The tombstone a removal leaves of `document`: its key, flags and system extended
// attributes (xattr::system_section), deleted, to be purged at purge_at_ms. `bare`, if
// given, is an empty-valued item built beforehand, used when there are no attributes to
// keep. Numbering it is the caller's.
MutableItemPtr make_tombstone(const Item& document, int64_t purge_at_ms,
                              MutableItemPtr bare = nullptr);

// One single-key operation's hold on its shard: the lock taken, a due flush settled and the
// key looked up. Whatever it removed on the way is destroyed after the lock is released.
//
// It holds the shard's lock from construction to destruction, but which shard is known only at
// run time, so the thread-safety analysis cannot name the lock it takes: a caller that reads or
// changes the shard says `Shard& shard = access.shard(); shard.mutex.assert_held();`, which
// tells the analysis what this object guarantees.
class KeyAccess {
 public:
  KeyAccess(EngineImpl& impl, std::string_view key) TERN_NO_THREAD_SAFETY_ANALYSIS;
  ~KeyAccess() TERN_NO_THREAD_SAFETY_ANALYSIS;
  KeyAccess(const KeyAccess&) = delete;
  KeyAccess& operator=(const KeyAccess&) = delete;

  Shard& shard() { return shard_; }
  EngineImpl& impl() { return impl_; }
  uint64_t hash() const { return hash_; }
  int64_t now() const { return now_; }
  // The slot of the key's item, tombstone or absent marker, or HashTable::npos.
  size_t index() const { return index_; }
  // The slot holding the key's live item, or null (absent, or only a tombstone).
  Slot* slot() {
    Slot* found = entry();
    return found && !found->item->deleted ? found : nullptr;
  }
  // The slot holding the key's live item or its tombstone, or null. An absent marker is
  // not an entry: to every operation the key is absent.
  Slot* entry() {
    Slot* found = occupant();
    return found && !found->item->absent ? found : nullptr;
  }
  // The slot the key takes in the table, whatever holds it (an absent marker too): what a
  // change replaces and what the memory accounting charges for.
  Slot* occupant() {
    shard_.mutex.assert_held();
    return index_ == HashTable::npos ? nullptr : &shard_.table.at(index_);
  }
  // Full eviction: nothing of the key is in memory, so only the disk knows what it holds.
  // Never while a durable write of the key is pending: the disk may hold the prepared
  // write, and the committed state is in memory (nothing of such a key is evicted) or, when
  // nothing of it is there, absent.
  bool on_disk_only() const {
    shard_.mutex.assert_held();
    return impl_.full_eviction && index_ == HashTable::npos &&
           shard_.keys_on_disk.may_contain(key_) &&
           (shard_.prepared.empty() || !shard_.prepared.contains(key_));
  }

 private:
  EngineImpl& impl_;
  const std::string_view key_;
  const uint64_t hash_;
  Shard& shard_;
  const int64_t now_;
  ItemPtr graveyard_;  // a member: destroyed after the destructor's unlock
  size_t index_;
  bool wake_flusher_ = false;  // the lookup queued an expiry's tombstone: tell the listener
};

}  // namespace tern::engine
