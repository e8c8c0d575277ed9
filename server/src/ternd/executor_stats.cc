#include "ternd/executor_stats.h"

namespace tern::ternd {

bool ExecutorStats::emit_stats(std::string_view group, const commands::StatEmitter& emit) {
  if (group == "tasks") {
    emit("tasks", executor_.tasks_json());
  } else if (group == "workers") {
    emit("workers", executor_.workers_json());
  } else {
    return false;
  }
  return true;
}

}  // namespace tern::ternd
