#pragma once
// What the background tasks that keep memory in bounds need of the engine: the expiry pager
// sweeps each shard for expired and flushed items, the item pager evicts when memory passes
// the high watermark (and is told when it does).
//
// One of the engine's jobs, an interface of its own (Engine::paging()) over the same documents
// and locks as the key-value operations (engine.h): every method is thread-safe, and the
// engine's rules (engine.h's top comment) hold for them too.

#include <cstddef>
#include <cstdint>
#include <functional>

#include "engine/engine.h"

namespace tern::engine {

class PagingHooks : private EngineJob {
 public:
  size_t shard_count() const;

  // Slots in one shard's table now (a sweep covers the shard after this many visits).
  size_t shard_capacity(size_t shard) const;

  // Removes expired and flushed items from one shard, advancing over at most max_visits
  // slots and resuming where the previous call on that shard stopped, so shard_capacity()
  // visits sweep the whole shard. Returns the items removed. In a persistent bucket an
  // expired document leaves a tombstone, queued for the disk like a remove's (one found
  // expired by any other operation does too).
  size_t purge_expired(size_t shard, size_t max_visits);

  // Frees at least bytes_to_free bytes if it can by evicting the least recently used
  // unlocked items (approximate LRU). Returns the bytes freed. An ephemeral bucket drops
  // whole items (STAT evictions); a persistent one evicts only what is on disk: values
  // (value eviction: persistence_hooks.h), or under full eviction whole documents, tombstones and
  // absent markers (Config::full_eviction; STAT ep_num_value_ejects, ep_num_non_resident), so
  // writes past the quota fail with OutOfMemory while nothing evictable is left.
  // Never throws: when what it needs to evict cannot be allocated it stops there and returns
  // what it freed until then.
  size_t evict(size_t bytes_to_free);

  // Called when mem_used passes the high watermark (or a write fails for lack of memory),
  // at most once per kPressureIntervalMs while the pressure lasts. It runs on the writing
  // thread with no engine lock held, so it must be quick: wake a pager, do not evict inline.
  void set_memory_pressure_listener(std::function<void()> listener);
  static constexpr int64_t kPressureIntervalMs = 10;

 private:
  friend struct EngineImpl;
  using EngineJob::EngineJob;
};

}  // namespace tern::engine
