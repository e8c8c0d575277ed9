#include "engine/bg_fetcher.h"

#include <utility>

#include <spdlog/spdlog.h>

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
  std::lock_guard guard(mutex_);
  executor_ = &executor;
}

void BgFetcher::fetch(std::string key, std::function<void()> done) {
  executor::Executor* executor = nullptr;
  {
    std::lock_guard guard(mutex_);
    const bool was_idle = queued_.empty();
    queued_[std::move(key)].push_back(std::move(done));
    // Only the first fetch of a batch wakes the task: the run takes the rest with it.
    if (was_idle) executor = executor_;
  }
  if (executor) executor->wake(task_);
}

void BgFetcher::run_once() {
  std::map<std::string, std::vector<std::function<void()>>> batch;
  {
    std::lock_guard guard(mutex_);
    batch.swap(queued_);
  }
  for (auto& [key, waiters] : batch) {
    // Read where the document is filed, and only if its value is still evicted: it may
    // have been fetched, changed or removed since the request met it.
    if (const std::optional<Engine::Evicted> evicted = engine_.evicted(key)) {
      try {
        const std::optional<storage::OwnedRecord> record = store_.get(evicted->vbucket, key);
        if (record && !record->deleted && record->cas == evicted->cas) {
          if (engine_.restore_value(key, evicted->cas, record->value)) {
            fetched_.fetch_add(1, std::memory_order_relaxed);
          }
        } else if (const auto still = engine_.evicted(key); still && still->cas == evicted->cas) {
          // Not a change racing the read (its retry would see it): the disk lost the
          // document the engine evicted.
          spdlog::error("bg fetch: vbucket {} holds {} for an evicted document (CAS {})",
                       evicted->vbucket,
                       !record ? "nothing" : record->deleted ? "a tombstone" : "another CAS",
                       evicted->cas);
        }
      } catch (const storage::StoreError& e) {
        spdlog::error("bg fetch: vbucket {}: the store could not be read ({}); {} requests "
                      "retry without the value",
                      evicted->vbucket, e.what(), waiters.size());
      }
    }
    for (std::function<void()>& done : waiters) {
      if (done) done();
    }
  }
}

}  // namespace tern::engine
