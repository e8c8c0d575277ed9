#pragma once
// Reads evicted values, and under full eviction whole keys, back from disk for the requests
// that need them, as a task on the Reader pool, so that no worker thread ever waits for the
// disk. A request that met a non-resident document or a key on disk only
// (Status::NotResident) queues a fetch and parks; one run of the task serves every fetch
// queued, and reads a key asked for by several requests once. What it read goes back into
// memory (PersistenceHooks::restore_value, PersistenceHooks::restore_fetched) before the requests
// are told, so that they find it when they retry.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "engine/engine.h"
#include "executor/executor.h"
#include "executor/task.h"
#include "storage/store.h"

namespace tern::engine {

class BgFetcher {
 public:
  // Both must outlive the fetcher. Its task must be stopped before it goes (the executor's
  // unregister of the owner, or the executor's end).
  BgFetcher(Engine& engine, storage::Store& store);
  ~BgFetcher();

  // Schedules the task (Reader, sleeping until woken) as `owner`'s. Call once, before fetch().
  void start(executor::Executor& executor, executor::OwnerId owner);

  // Queues a read of `key` and wakes the task asynchronously. A document whose value is
  // evicted is read from the vbucket it is filed under (Item::vbucket of its non-resident
  // copy: PersistenceHooks::evicted), and its value put back (PersistenceHooks::restore_value). A
  // key on disk only (full eviction: PersistenceHooks::on_disk_only) is read from `filed_vbucket`,
  // the vbucket a persistent bucket files the key under (vbucket_of its logical key, not the
  // request's: memcached clients send every key on vbucket 0), and its record, or its absence, put
  // in memory (PersistenceHooks::restore_fetched). `done` is called once, from the Reader thread
  // with no lock held, after that (or once the key was found resident, changed or gone, or the
  // store failed: the caller's retry then sees the key as it is; a caller should bound its
  // retries). It must not block: post to the requester's own loop.
  void fetch(std::string key, uint16_t filed_vbucket, std::function<void()> done);

  uint64_t fetched() const { return fetched_.load(std::memory_order_relaxed); }  // ep_bg_fetched

  // The task's work: serves every fetch queued now. Public for tests driven by hand.
  void run_once();

 private:
  // Reads one key's value or record back into memory; returns whether it put anything back.
  // Throws StoreError or std::bad_alloc.
  bool fetch_one(const std::string& key, uint16_t filed_vbucket);

  Engine& engine_;
  storage::Store& store_;
  executor::Executor* executor_ = nullptr;
  executor::TaskId task_ = 0;
  Mutex mutex_;
  // Queued fetches by key, each with its filed vbucket and the requests waiting for it.
  struct Queued {
    uint16_t filed_vbucket = 0;
    std::vector<std::function<void()>> waiters;
  };
  std::map<std::string, Queued> queued_ TERN_GUARDED_BY(mutex_);
  std::atomic<uint64_t> fetched_{0};
};

}  // namespace tern::engine
