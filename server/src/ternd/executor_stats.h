#pragma once
// The executor's statistics: STAT "tasks" and "workers" (each one JSON value), and in the
// general group, which /metrics shows, what its tasks cost by task type (runs, run time, and
// the time due tasks waited for a worker).

#include "commands/dispatcher.h"
#include "executor/executor.h"

namespace tern::ternd {

class ExecutorStats final : public commands::StatProvider {
 public:
  explicit ExecutorStats(executor::Executor& executor) : executor_(executor) {}
  bool collect(std::string_view group, metrics::Collector& collector) override;

 private:
  executor::Executor& executor_;
};

}  // namespace tern::ternd
