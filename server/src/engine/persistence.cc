#include "engine/persistence.h"

#include <string>
#include <utility>

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
  flusher_->set_persisted_listener([this] { durability_.on_persisted(); });
  executor.schedule(warmup_);
  const executor::TaskId flusher_id = executor.schedule(flusher_, executor::kForever);
  durability_.start(executor, owner);
  bg_fetcher_.start(executor, owner);
  engine_.set_dirty_listener([&executor, flusher_id] { executor.wake(flusher_id); });
}

void Persistence::for_each_stat(
    const std::function<void(std::string_view name, std::string_view value)>& visit) const {
  const auto number = [&visit](std::string_view name, uint64_t value) {
    visit(name, std::to_string(value));
  };
  const Flusher* flusher = flusher_.get();
  const Warmup* warmup = warmup_.get();
  number("ep_queue_size", engine_.dirty_count());
  number("ep_flusher_todo", flusher ? flusher->todo() : 0);
  number("ep_total_persisted", flusher ? flusher->total_persisted() : 0);
  number("ep_flusher_batches", flusher ? flusher->batches() : 0);
  number("ep_flusher_failures", flusher ? flusher->failures() : 0);
  visit("ep_warmup_state", warmup_state_name(warmup ? warmup->state() : WarmupState::Initialize));
  number("ep_warmup_key_count", warmup ? warmup->loaded_keys() : 0);
  number("ep_warmup_value_count", warmup ? warmup->loaded_values() : 0);
  number("ep_warmup_skipped", warmup ? warmup->skipped() : 0);
  number("ep_warmup_time_ms", warmup ? static_cast<uint64_t>(warmup->duration_ms()) : 0);
  number("ep_durability_pending", durability_.pending());
  number("ep_durability_committed", durability_.committed());
  number("ep_durability_ambiguous", durability_.ambiguous());
  number("ep_bg_fetched", bg_fetcher_.fetched());
}

void Persistence::flush_before_exit() {
  if (flusher_) flusher_->flush_all();
}

}  // namespace tern::engine
