#include "engine/expiry_pager.h"

#include <algorithm>

#include "engine/paging_hooks.h"

namespace tern::engine {

ExpiryPager::ExpiryPager(Engine& engine, double interval_seconds, executor::OwnerId owner,
                         size_t slice_slots)
    : Task(executor::TaskType::NonIO, "Expiry pager", owner),
      engine_(engine),
      interval_seconds_(interval_seconds),
      slice_slots_(std::max<size_t>(slice_slots, 1)) {}

bool ExpiryPager::run() {
  size_t budget = slice_slots_;
  while (budget > 0) {
    // Capacity can change between chunks as the shard grows; the sweep stays approximate,
    // which is fine: anything missed is caught on the next pass or when it is read.
    const size_t capacity = engine_.paging().shard_capacity(shard_);
    const size_t remaining = capacity > visited_in_shard_ ? capacity - visited_in_shard_ : 0;
    const size_t chunk = std::min({kChunkSlots, budget, remaining});
    if (chunk > 0) {
      engine_.paging().purge_expired(shard_, chunk);
      visited_in_shard_ += chunk;
      budget -= chunk;
    }
    if (visited_in_shard_ >= capacity) {
      visited_in_shard_ = 0;
      if (++shard_ == engine_.paging().shard_count()) {
        shard_ = 0;
        ++passes_;
        snooze(interval_seconds_);
        return true;
      }
    }
  }
  // Mid-pass: give the worker back to other tasks, then continue at once.
  snooze(0);
  return true;
}

}  // namespace tern::engine
