#include "engine/persistence.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "engine/failover_logs_on_disk.h"
#include "engine/persistence_hooks.h"

namespace tern::engine {

Persistence::Persistence(Engine& engine, std::span<VBucket> vbuckets,
                         std::unique_ptr<storage::Store> store, const Clock& clock)
    : engine_(engine),
      vbuckets_(vbuckets),
      clock_(clock),
      store_(std::move(store)),
      durability_(engine, vbuckets, clock),
      bg_fetcher_(engine, *store_) {}

void Persistence::start(executor::Executor& executor, executor::OwnerId owner,
                        std::function<void()> on_warm) {
  // Built here rather than in the constructor: a task's owner is fixed when it is built.
  flusher_ = std::make_shared<Flusher>(engine_, vbuckets_, *store_, owner, clock_);
  warmup_ = std::make_shared<Warmup>(engine_, vbuckets_, *store_, owner, clock_);
  warmup_->set_done_listener(std::move(on_warm));
  flusher_->set_persisted_listener([this] {
    durability_.on_persisted();
    on_persisted();
  });
  executor.schedule(warmup_);
  const executor::TaskId flusher_id = executor.schedule(flusher_, executor::kForever);
  executor_ = &executor;
  owner_ = owner;
  flusher_id_ = flusher_id;
  durability_.start(executor, owner);
  bg_fetcher_.start(executor, owner);
  engine_.persistence().set_dirty_listener([&executor, flusher_id] { executor.wake(flusher_id); });
}

bool Persistence::flush(std::function<void()> on_disk) {
  if (!warm()) return false;
  const uint64_t number = engine_.flush(0);
  {
    MutexLock guard(flush_mutex_);
    // Registered under the lock on_persisted() takes after the flusher publishes its count,
    // so a batch that wrote the clear before this either is seen here or calls it.
    if (flusher_->flushes_on_disk() < number) {
      flush_waiters_.emplace_back(number, std::move(on_disk));
      on_disk = nullptr;
    }
  }
  if (on_disk) {
    on_disk();
  } else {
    // The flush may have queued nothing: the flusher must run for the clear alone.
    executor_->wake(flusher_id_);
  }
  return true;
}

void Persistence::on_persisted() {
  std::vector<std::function<void()>> done;
  {
    MutexLock guard(flush_mutex_);
    const uint64_t on_disk = flusher_->flushes_on_disk();
    std::erase_if(flush_waiters_, [&](auto& waiter) {
      if (waiter.first > on_disk) return false;
      done.push_back(std::move(waiter.second));
      return true;
    });
  }
  for (const auto& call : done) call();
  rebuild_key_filters_if_due();
}

namespace {

// Rebuilds a full-eviction bucket's bloom filters once, then ends. `running` is cleared when
// it ends, however it ends (a task cancelled before it ran is destroyed unrun).
class KeyFilterRebuild final : public executor::Task {
 public:
  KeyFilterRebuild(Engine& engine, storage::Store& store,
                   std::shared_ptr<std::atomic<bool>> running, executor::OwnerId owner)
      // It reads the whole store: seconds for a large one are expected, not a stall.
      : Task(executor::TaskType::Reader, "bloom filter rebuild", owner,
             /*max_expected_ms=*/10 * 60 * 1000),
        engine_(engine),
        store_(store),
        running_(std::move(running)) {}
  ~KeyFilterRebuild() override { running_->store(false, std::memory_order_release); }

  bool run() override {
    try {
      const size_t keys = engine_.persistence().rebuild_key_filters(store_);
      spdlog::info("bloom filters rebuilt after compaction: {} keys on disk only", keys);
    } catch (const std::exception& e) {
      spdlog::error("bloom filters: the rebuild failed ({}); the old filters stay", e.what());
    }
    return false;
  }

 private:
  Engine& engine_;
  storage::Store& store_;
  const std::shared_ptr<std::atomic<bool>> running_;
};

}  // namespace

void Persistence::rebuild_key_filters_if_due() {
  if (!engine_.config().full_eviction || rebuilding_->load(std::memory_order_acquire)) return;
  const uint64_t total = store_->records_purged();
  if (total - purged_at_check_ < kRebuildAfterPurged) return;
  purged_at_check_ = total;
  const uint64_t purged = total - purged_at_rebuild_;
  if (purged * 10 < engine_.stats().bloom_filter_keys) return;
  purged_at_rebuild_ = total;
  rebuilding_->store(true, std::memory_order_release);
  executor_->schedule(std::make_shared<KeyFilterRebuild>(engine_, *store_, rebuilding_, owner_));
}

void Persistence::collect(metrics::Collector& collector) const {
  namespace stat = metrics::stat;
  const Flusher* flusher = flusher_.get();
  const Warmup* warmup = warmup_.get();
  collector.add(stat::ep_queue_size, engine_.persistence().dirty_count());
  collector.add(stat::ep_flusher_todo, flusher ? flusher->todo() : 0);
  collector.add(stat::ep_total_persisted, flusher ? flusher->total_persisted() : 0);
  collector.add(stat::ep_flusher_batches, flusher ? flusher->batches() : 0);
  collector.add(stat::ep_flusher_failures, flusher ? flusher->failures() : 0);
  collector.add_text(stat::ep_warmup_state,
                     warmup_state_name(warmup ? warmup->state() : WarmupState::Initialize));
  collector.add(stat::ep_warmup_key_count, warmup ? warmup->loaded_keys() : 0);
  collector.add(stat::ep_warmup_value_count, warmup ? warmup->loaded_values() : 0);
  collector.add(stat::ep_warmup_skipped, warmup ? warmup->skipped() : 0);
  collector.add(stat::ep_warmup_time_ms,
                warmup ? static_cast<uint64_t>(warmup->duration_ms()) : 0);
  collector.add(stat::ep_durability_pending, durability_.pending());
  collector.add(stat::ep_durability_committed, durability_.committed());
  collector.add(stat::ep_durability_ambiguous, durability_.ambiguous());
  collector.add(stat::ep_bg_fetched, bg_fetcher_.fetched());
}

void Persistence::flush_before_exit() {
  if (flusher_) flusher_->flush_all();
  // Before warmup is done the logs in memory are not the disk's: leave those as they are.
  if (warm()) save_failover_logs(*store_, vbuckets_, /*clean=*/true);
}

void Persistence::save_failover_log(const VBucket& vbucket) {
  if (!warm()) return;  // warmup writes every log once it has restored them
  try {
    engine::save_failover_log(*store_, vbucket);
  } catch (const storage::StoreError& e) {
    spdlog::error("vbucket {}: its failover log could not be written ({}); a clean shutdown "
                  "writes it again",
                  vbucket.id(), e.what());
  }
}

}  // namespace tern::engine
