#pragma once
// A background task that removes expired items, so they vanish without being read.
// Each run sweeps a bounded slice of the table (taking each shard lock only for a short
// chunk), then yields; after a whole pass it sleeps for the interval.

#include <cstddef>

#include "engine/engine.h"
#include "executor/task.h"

namespace tern::engine {

class ExpiryPager final : public executor::Task {
 public:
  // Slots examined per run; shard locks are held for at most kChunkSlots at a time.
  static constexpr size_t kDefaultSliceSlots = 16384;
  static constexpr size_t kChunkSlots = 512;

  ExpiryPager(Engine& engine, double interval_seconds, executor::OwnerId owner,
              size_t slice_slots = kDefaultSliceSlots);

  bool run() override;

  // Whole passes over the table completed so far.
  size_t passes() const { return passes_; }

 private:
  Engine& engine_;
  const double interval_seconds_;
  const size_t slice_slots_;
  // Where the sweep stands; touched only by run(), which never runs concurrently with itself.
  size_t shard_ = 0;
  size_t visited_in_shard_ = 0;
  size_t passes_ = 0;
};

}  // namespace tern::engine
