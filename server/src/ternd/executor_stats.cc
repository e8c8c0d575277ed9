#include "ternd/executor_stats.h"

#include "metrics/stats.h"

namespace tern::ternd {

bool ExecutorStats::collect(std::string_view group, metrics::Collector& collector) {
  namespace stat = metrics::stat;
  if (group == "tasks") {
    collector.add_text(stat::tasks, executor_.tasks_json());
  } else if (group == "workers") {
    collector.add_text(stat::workers, executor_.workers_json());
  } else if (group.empty()) {
    // Prometheus only: STAT's general group keeps its memcached shape.
    if (!collector.wants(stat::task_runs)) return true;
    const auto totals = executor_.task_totals();
    for (size_t type = 0; type < totals.size(); ++type) {
      metrics::LabelScope label(
          collector, "type",
          std::string(executor::task_type_name(static_cast<executor::TaskType>(type))));
      collector.add(stat::task_runs, totals[type].runs);
      collector.add(stat::task_run_time, totals[type].runtime_us);
      collector.add(stat::task_wait_time, totals[type].wait_us);
    }
  } else {
    return false;
  }
  return true;
}

}  // namespace tern::ternd
