#pragma once
// What makes a bucket persistent: its store, and the tasks that keep the store and memory
// in step (the flusher, warmup, the durability monitor), wired together. A Bucket owns one
// when it is of type couchbase; an ephemeral bucket has none.
//
// Wiring: the engine's dirty listener wakes the flusher (asynchronously); after each batch
// the flusher tells the durability monitor, which commits and completes the writes it covers.

#include <memory>
#include <span>

#include "common/clock.h"
#include "engine/durability_monitor.h"
#include "engine/engine.h"
#include "engine/flusher.h"
#include "engine/vbucket.h"
#include "engine/warmup.h"
#include "executor/executor.h"
#include "storage/store.h"

namespace tern::engine {

class Persistence {
 public:
  // `engine` must have Config::persistent set. All must outlive this object.
  Persistence(Engine& engine, std::span<VBucket> vbuckets, std::unique_ptr<storage::Store> store,
              const Clock& clock);

  // Schedules warmup (Reader), the flusher (Writer, sleeping until woken) and the durability
  // timeout task (NonIO) as `owner`'s tasks, and connects the engine's dirty listener to an
  // asynchronous wake of the flusher. Call once.
  void start(executor::Executor& executor, executor::OwnerId owner);

  bool warm() const { return warmup_->done(); }

  storage::Store& store() { return *store_; }
  Flusher& flusher() { return *flusher_; }
  Warmup& warmup() { return *warmup_; }
  DurabilityMonitor& durability() { return durability_; }

  // A clean shutdown: once the executor has stopped the bucket's tasks (unregister), writes
  // everything still queued, so nothing acknowledged is lost.
  void flush_before_exit();

 private:
  std::unique_ptr<storage::Store> store_;
  std::shared_ptr<Flusher> flusher_;
  std::shared_ptr<Warmup> warmup_;
  DurabilityMonitor durability_;
};

}  // namespace tern::engine
