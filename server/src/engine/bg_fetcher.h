#pragma once
// Reads evicted values back from disk for the requests that need them, as a task on the
// Reader pool, so that no worker thread ever waits for the disk. A request that met a
// non-resident document (Status::NotResident) queues a fetch and parks; one run of the task
// serves every fetch queued, and reads a key asked for by several requests once.
// Each fetched value goes back into memory (Engine::restore_value) before the requests are
// told, so that they find it when they retry.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

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

  // Queues a read of `key`'s value and wakes the task asynchronously. The task reads it from
  // the vbucket the document is filed under (Item::vbucket of its non-resident copy, which
  // the engine reports: Engine::evicted), not the requester's: memcached clients send every
  // key on vbucket 0. `done` is called once, from the Reader thread with no lock held, after
  // the value was put back (or the key was found resident, changed or gone, or the store
  // failed: the caller's retry then sees the document as it is; a caller should bound its
  // retries). It must not block: post to the requester's own loop.
  void fetch(std::string key, std::function<void()> done);

  uint64_t fetched() const { return fetched_.load(std::memory_order_relaxed); }  // ep_bg_fetched

  // The task's work: serves every fetch queued now. Public for tests driven by hand.
  void run_once();

 private:
  Engine& engine_;
  storage::Store& store_;
  executor::Executor* executor_ = nullptr;
  executor::TaskId task_ = 0;
  std::mutex mutex_;
  // Queued fetches by key, each with the requests waiting for it.
  std::map<std::string, std::vector<std::function<void()>>> queued_;
  std::atomic<uint64_t> fetched_{0};
};

}  // namespace tern::engine
