#pragma once
// The "tasks" and "workers" STAT groups: the executor's background tasks and worker
// threads, each as one JSON value.

#include "commands/dispatcher.h"
#include "executor/executor.h"

namespace tern::ternd {

class ExecutorStats final : public commands::StatProvider {
 public:
  explicit ExecutorStats(executor::Executor& executor) : executor_(executor) {}
  bool emit_stats(std::string_view group, const commands::StatEmitter& emit) override;

 private:
  executor::Executor& executor_;
};

}  // namespace tern::ternd
