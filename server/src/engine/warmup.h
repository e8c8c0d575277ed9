#pragma once
// Loads a persistent bucket from disk when ternd starts, as a task on the Reader pool: every
// vbucket's persisted high seqno first, then the documents and tombstones in key order, each
// as it was stored (PersistenceHooks::restore). Until it is done the bucket is not warm: its data
// commands answer Etmpfail, which SDKs retry. STAT shows the state and progress.
//
// Keys and metadata first, values while the quota allows: a document is loaded whole while
// that fits below the low watermark, else as its non-resident copy (metadata only; the
// value is fetched from disk when read: BgFetcher), while that fits below the high
// watermark (PersistenceHooks::restore). Under full eviction what does not fit below the low
// watermark stays on disk only, keys and all, and is fetched when a request needs it. Only when
// even metadata does not fit does it stop loading, and logs how many documents and tombstones
// stayed on disk only: those read as missing. A store that cannot be read (StoreError) ends the run
// with an error in the log, and the bucket stays not warm rather than serve part of its data. So
// does a cancel (the bucket stopping: Executor::unregister waits for the running task): the scan
// stops at the next record, so that stopping does not wait for the whole warmup.
//
// Last, each vbucket takes back its failover log, with a new history if the last run did not
// shut down cleanly (failover_logs_on_disk.h).
//
// Every record read raises the engine's CAS floor past its CAS, loaded or not, so that no CAS
// issued after the restart repeats one a client may hold (PersistenceHooks::raise_cas_floor).
//
// Records become items as a background fetch makes them (record_item.h).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "common/clock.h"
#include "engine/engine.h"
#include "engine/vbucket.h"
#include "executor/task.h"
#include "storage/store.h"

namespace tern::engine {

enum class WarmupState : uint8_t { Initialize, LoadingData, Done };
std::string_view warmup_state_name(WarmupState state);  // "initialize", "loading data", "done"

class Warmup final : public executor::Task {
 public:
  // `vbuckets` are the bucket's, indexed by id; `clock` times the run (duration_ms). All
  // must outlive the task.
  Warmup(Engine& engine, std::span<VBucket> vbuckets, storage::Store& store,
         executor::OwnerId owner, const Clock& clock = SystemClock::instance());

  // Loads everything in one run and ends (returns false).
  bool run() override;

  // Called once, on the Reader thread, when warmup is done (not when it fails or is
  // cancelled). Set before the task is scheduled.
  void set_done_listener(std::function<void()> listener) { done_listener_ = std::move(listener); }

  WarmupState state() const { return state_.load(std::memory_order_acquire); }
  bool done() const { return state() == WarmupState::Done; }
  // Documents loaded with their values (ep_warmup_value_count), and keys loaded with or
  // without (ep_warmup_key_count): documents and tombstones.
  uint64_t loaded_values() const { return loaded_.load(std::memory_order_relaxed); }
  uint64_t loaded_keys() const { return keys_.load(std::memory_order_relaxed); }
  // Records not loaded for lack of memory (or filed under no vbucket of the bucket).
  uint64_t skipped() const { return skipped_.load(std::memory_order_relaxed); }
  // Full eviction: records left on disk past the low watermark, read when needed.
  uint64_t on_disk_only() const { return on_disk_only_.load(std::memory_order_relaxed); }
  int64_t duration_ms() const { return duration_ms_.load(std::memory_order_relaxed); }

 private:
  // Loads every record and returns true, or false when the task was cancelled meanwhile;
  // throws StoreError when the store cannot be read.
  bool load();

  Engine& engine_;
  const std::span<VBucket> vbuckets_;
  std::function<void()> done_listener_;
  storage::Store& store_;
  const Clock& clock_;
  std::atomic<WarmupState> state_{WarmupState::Initialize};
  std::atomic<uint64_t> loaded_{0};
  std::atomic<uint64_t> keys_{0};
  std::atomic<uint64_t> skipped_{0};
  std::atomic<uint64_t> on_disk_only_{0};
  std::atomic<int64_t> duration_ms_{0};
};

}  // namespace tern::engine
