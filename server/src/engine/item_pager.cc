#include "engine/item_pager.h"

#include <algorithm>
#include <memory>

#include "engine/paging_hooks.h"

namespace tern::engine {

ItemPager::ItemPager(Engine& engine, executor::OwnerId owner, size_t slice_bytes)
    : Task(executor::TaskType::NonIO, "Item pager", owner),
      engine_(engine),
      slice_bytes_(std::max<size_t>(slice_bytes, 1)) {}

bool ItemPager::run() {
  const uint64_t used = engine_.mem_used();
  const uint64_t low = engine_.low_watermark_bytes();
  if (used > low) {
    const size_t wanted = static_cast<size_t>(std::min<uint64_t>(used - low, slice_bytes_));
    const size_t freed = engine_.paging().evict(wanted);
    // Keep going while there is more to do and eviction is making progress; an engine full
    // of locked items must not turn the pager into a busy loop.
    if (freed > 0 && engine_.mem_used() > low) {
      snooze(0);
      return true;
    }
  }
  snooze(executor::kForever);
  return true;
}

executor::TaskId attach_item_pager(Engine& engine, executor::Executor& executor,
                                   executor::OwnerId owner) {
  const executor::TaskId id =
      executor.schedule(std::make_shared<ItemPager>(engine, owner), executor::kForever);
  engine.paging().set_memory_pressure_listener([&executor, id] { executor.wake(id); });
  return id;
}

}  // namespace tern::engine
