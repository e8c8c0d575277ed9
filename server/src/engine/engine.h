#pragma once
// The key-value engine: a sharded hash table with memcached/Couchbase semantics.
// Every method is thread-safe and either applies its whole change or none of it; one that
// cannot allocate throws std::bad_alloc and applies none: items and memory accounting stay
// exact, and the attempt is counted in the command stats (cmd_set, ...) like any failed one.
//
// Expiry values follow the protocol: 0 never expires, up to 30 days (2,592,000 s) is
// relative to now, larger is an absolute Unix time (one already in the past expires at once).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "common/clock.h"
#include "engine/item.h"
#include "protocol/status.h"

namespace tern::engine {

using protocol::Status;

struct Config {
  size_t memory_quota_bytes = 1024ull * 1024 * 1024;
  size_t max_item_size = 20ull * 1024 * 1024;  // value bytes
  size_t shard_count = 256;                    // rounded up to a power of two
  uint32_t default_lock_seconds = 15;
  uint32_t max_lock_seconds = 30;
  // Memory pressure: above the high watermark the pressure listener is woken; a pager
  // should then evict down to the low watermark. Percentages of memory_quota_bytes.
  uint32_t high_watermark_percent = 85;
  uint32_t low_watermark_percent = 75;
  // A write that does not fit evicts what it needs inline, then retries once, so writes keep
  // succeeding even when the pager falls behind. Off: such a write fails with Enomem.
  bool evict_when_full = true;
};

struct GetResult {
  Status status = Status::KeyEnoent;
  ItemPtr item;  // set when status is Success
};

struct MutationResult {
  Status status = Status::Success;
  uint64_t cas = 0;  // the new CAS when status is Success
};

struct ArithmeticResult {
  Status status = Status::Success;
  uint64_t cas = 0;
  uint64_t value = 0;  // the counter after the operation
};

enum class StoreMode { Set, Add, Replace };
enum class ConcatMode { Append, Prepend };

struct Stats {
  uint64_t curr_items = 0;
  uint64_t total_items = 0;  // items ever stored
  uint64_t mem_used = 0;     // bytes accounted to items (keys, values, overhead)
  uint64_t mem_quota = 0;
  uint64_t get_hits = 0;
  uint64_t get_misses = 0;
  uint64_t cmd_get = 0;
  uint64_t cmd_set = 0;
  uint64_t cmd_touch = 0;
  uint64_t touch_hits = 0;
  uint64_t touch_misses = 0;
  uint64_t delete_hits = 0;
  uint64_t delete_misses = 0;
  uint64_t incr_hits = 0;
  uint64_t incr_misses = 0;
  uint64_t decr_hits = 0;
  uint64_t decr_misses = 0;
  uint64_t cas_hits = 0;
  uint64_t cas_misses = 0;  // CAS given for a key that does not exist
  uint64_t cas_badval = 0;  // CAS mismatch
  uint64_t cmd_flush = 0;
  uint64_t evictions = 0;
  uint64_t expired_items = 0;  // removed because their expiry passed (lazily or by a pager)
  uint64_t reclaimed_bytes = 0;
};

class Engine {
 public:
  explicit Engine(Config config, const Clock& clock = SystemClock::instance());
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const Config& config() const { return config_; }

  // KeyEnoent on a miss or an expired item. A locked item is still readable, but its CAS
  // reads as kLockedCas (as Couchbase does) so that only the lock holder can mutate it.
  GetResult get(std::string_view key);

  // Get and set a new expiry (GAT). Locked: Locked.
  GetResult get_and_touch(std::string_view key, uint32_t expiry);

  // Locks the item for lock_seconds (0 = default; capped at the maximum) and returns it with
  // a fresh CAS that unlocks it. Already locked: Locked (Couchbase answers Locked, older
  // servers Etmpfail; we answer Locked).
  GetResult get_locked(std::string_view key, uint32_t lock_seconds);

  // Unlocks with the CAS from get_locked; the item keeps that CAS. Wrong CAS: Locked
  // (Couchbase 7 answers Locked; older servers answered Etmpfail). Not locked (or the lock
  // expired): NotLocked. Missing: KeyEnoent.
  Status unlock(std::string_view key, uint64_t cas);

  // SET/ADD/REPLACE. cas != 0 requires a match (KeyEexists on mismatch, KeyEnoent if
  // absent). Add on an existing key: KeyEexists. Replace on a missing key: KeyEnoent. A
  // locked item accepts only a mutation carrying its lock CAS (else Locked), which unlocks
  // it. Value over max_item_size: E2big. Over the quota with nothing evictable: Enomem.
  MutationResult store(StoreMode mode, std::string_view key, std::string_view value,
                       uint32_t flags, uint32_t expiry, uint8_t datatype, uint64_t cas);

  // DELETE, with the same CAS and lock rules as store.
  MutationResult remove(std::string_view key, uint64_t cas);

  // INCREMENT/DECREMENT. A missing key is created with `initial` (flags 0, raw datatype)
  // unless expiry is 0xffffffff (then KeyEnoent); an existing item keeps its expiry. A value
  // memcached would not read as a number (counter_value.h): DeltaBadval. Increment wraps at
  // 2^64; decrement stops at 0.
  ArithmeticResult arithmetic(std::string_view key, bool increment, uint64_t delta,
                              uint64_t initial, uint32_t expiry, uint64_t cas);

  // APPEND/PREPEND: missing key NotStored; keeps flags, expiry and datatype.
  MutationResult concat(ConcatMode mode, std::string_view key, std::string_view value,
                        uint64_t cas);

  // TOUCH: new expiry, keeps the value; returns the new CAS. Locked: Locked.
  MutationResult touch(std::string_view key, uint32_t expiry);

  // FLUSH: invalidates every item stored before now + delay_seconds (0 = now). A later
  // flush replaces a pending one.
  void flush(uint32_t delay_seconds);

  Stats stats() const;

  // The steady-clock deadline (ms) for a protocol expiry value; 0 for never.
  int64_t expiry_deadline_ms(uint32_t expiry) const;

  // --- Hooks for background tasks (expiry pager, item pager). ---

  size_t shard_count() const;

  // Slots in one shard's table now (a sweep covers the shard after this many visits).
  size_t shard_capacity(size_t shard) const;

  // Removes expired and flushed items from one shard, advancing over at most max_visits
  // slots and resuming where the previous call on that shard stopped, so shard_capacity()
  // visits sweep the whole shard. Returns the items removed.
  size_t purge_expired(size_t shard, size_t max_visits);

  // Frees at least bytes_to_free bytes if it can by evicting the least recently used
  // unlocked items (approximate LRU). Returns the bytes freed.
  size_t evict(size_t bytes_to_free);

  // Bytes accounted to items now (keys, values and per-item overhead).
  uint64_t mem_used() const;
  uint64_t high_watermark_bytes() const;
  uint64_t low_watermark_bytes() const;

  // Called when mem_used passes the high watermark (or a write fails for lack of memory),
  // at most once per kPressureIntervalMs while the pressure lasts. It runs on the writing
  // thread with no engine lock held, so it must be quick: wake a pager, do not evict inline.
  void set_memory_pressure_listener(std::function<void()> listener);
  static constexpr int64_t kPressureIntervalMs = 10;

  // The CAS a plain GET reports for a locked item.
  static constexpr uint64_t kLockedCas = ~uint64_t{0};

  struct Impl;  // opaque: defined in engine_impl.h for the engine's own files

 private:
  Config config_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::engine
