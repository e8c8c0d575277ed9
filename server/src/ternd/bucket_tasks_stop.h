#pragma once
// Stops every bucket's background tasks (pagers, flusher, warmup, durability timeouts,
// background fetches) when it goes out of scope, however main() leaves: the tasks point
// into the buckets, so they must stop before the node that owns the buckets is destroyed.

#include "commands/node.h"
#include "executor/executor.h"

namespace tern::ternd {

class BucketTasksStop {
 public:
  // Both must outlive this object.
  BucketTasksStop(executor::Executor& executor, const commands::Node& node)
      : executor_(executor), node_(node) {}
  BucketTasksStop(const BucketTasksStop&) = delete;
  BucketTasksStop& operator=(const BucketTasksStop&) = delete;
  ~BucketTasksStop() {
    for (const auto& bucket : node_.buckets()) executor_.unregister(bucket->executor_owner());
  }

 private:
  executor::Executor& executor_;
  const commands::Node& node_;
};

}  // namespace tern::ternd
