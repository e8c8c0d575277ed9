#include "engine/bg_fetcher.h"

#include <spdlog/spdlog.h>

#include <new>
#include <utility>

#include "engine/persistence_hooks.h"
#include "engine/record_item.h"

namespace tern::engine {
namespace {

// Sleeps until fetch() wakes it, then serves everything queued.
class BgFetchTask final : public executor::Task {
 public:
  BgFetchTask(BgFetcher& fetcher, executor::OwnerId owner)
      : Task(executor::TaskType::Reader, "BgFetcher", owner), fetcher_(fetcher) {}

  bool run() override {
    fetcher_.run_once();
    // A fetch queued during the run woke the task, and a wake during a run wins over this.
    snooze(executor::kForever);
    return true;
  }

 private:
  BgFetcher& fetcher_;
};

}  // namespace

BgFetcher::BgFetcher(Engine& engine, storage::Store& store) : engine_(engine), store_(store) {}

// The task refers to this object, so it is stopped first, as every task of a bucket is
// (Executor::unregister, or the executor's end: ternd's goes before its buckets). Cancelling
// it here could reach an executor already gone.
BgFetcher::~BgFetcher() = default;

void BgFetcher::start(executor::Executor& executor, executor::OwnerId owner) {
  task_ = executor.schedule(std::make_shared<BgFetchTask>(*this, owner), executor::kForever);
  MutexLock guard(mutex_);
  executor_ = &executor;
}

void BgFetcher::fetch(std::string key, uint16_t filed_vbucket, std::function<void()> done) {
  executor::Executor* executor = nullptr;
  {
    MutexLock guard(mutex_);
    const bool was_idle = queued_.empty();
    Queued& queued = queued_[std::move(key)];
    queued.filed_vbucket = filed_vbucket;
    queued.waiters.push_back(std::move(done));
    // Only the first fetch of a batch wakes the task: the run takes the rest with it.
    if (was_idle) executor = executor_;
  }
  if (executor) executor->wake(task_);
}

void BgFetcher::run_once() {
  std::map<std::string, Queued> batch;
  {
    MutexLock guard(mutex_);
    batch.swap(queued_);
  }
  for (auto& [key, queued] : batch) {
    try {
      if (fetch_one(key, queued.filed_vbucket)) fetched_.fetch_add(1, std::memory_order_relaxed);
    } catch (const storage::StoreError& e) {
      spdlog::error("bg fetch: the store could not be read ({}); {} requests retry without "
                    "the key's document",
                    e.what(), queued.waiters.size());
    } catch (const std::bad_alloc&) {
      spdlog::error("bg fetch: out of memory; {} requests retry without the key's document",
                    queued.waiters.size());
    }
    for (std::function<void()>& done : queued.waiters) {
      if (done) done();
    }
  }
}

bool BgFetcher::fetch_one(const std::string& key, uint16_t filed_vbucket) {
  // Only what is still missing from memory: the key may have been fetched, changed or removed
  // since the request met it. A value is read where its document is filed.
  if (const std::optional<PersistenceHooks::Evicted> evicted = engine_.persistence().evicted(key)) {
    const std::optional<storage::OwnedRecord> record = store_.get(evicted->vbucket, key);
    if (record && !record->deleted && record->cas == evicted->cas) {
      return engine_.persistence().restore_value(key, evicted->cas, record->value);
    }
    if (const auto still = engine_.persistence().evicted(key);
        still && still->cas == evicted->cas) {
      // Not a change racing the read (its retry would see it): the disk lost the document
      // the engine evicted.
      spdlog::error("bg fetch: vbucket {} holds {} for an evicted document (CAS {})",
                    evicted->vbucket,
                    !record ? "nothing" : record->deleted ? "a tombstone" : "another CAS",
                    evicted->cas);
    }
    return false;
  }
  if (!engine_.persistence().on_disk_only(key)) return false;
  const std::optional<storage::OwnedRecord> record = store_.get(filed_vbucket, key);
  return engine_.persistence().restore_fetched(
      key, record ? item_of_record(engine_, record->view()) : nullptr);
}

}  // namespace tern::engine
