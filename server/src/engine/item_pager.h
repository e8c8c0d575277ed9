#pragma once
// A background task that evicts items when memory use passes the high watermark, until it
// is below the low watermark. It sleeps until woken: connect it to the engine with
// attach_item_pager() so that memory pressure wakes it asynchronously.

#include <cstddef>

#include "engine/engine.h"
#include "executor/executor.h"
#include "executor/task.h"

namespace tern::engine {

class ItemPager final : public executor::Task {
 public:
  // Bytes evicted per run before yielding, so one run never holds a worker for long.
  static constexpr size_t kDefaultSliceBytes = 4 * 1024 * 1024;

  ItemPager(Engine& engine, executor::OwnerId owner, size_t slice_bytes = kDefaultSliceBytes);

  bool run() override;

 private:
  Engine& engine_;
  const size_t slice_bytes_;
};

// Schedules an ItemPager on `executor`, sleeping until woken, and makes the engine's memory
// pressure wake it (an asynchronous wake: the writer never waits). Returns the task id.
executor::TaskId attach_item_pager(Engine& engine, executor::Executor& executor,
                                   executor::OwnerId owner);

}  // namespace tern::engine
