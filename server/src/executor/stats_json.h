#pragma once
// The JSON shapes the executors report for STAT workers.

#include <array>
#include <cstddef>
#include <string>

#include "executor/task.h"

namespace tern::executor {

struct WorkerCounts {
  size_t threads = 0;
  size_t running = 0;  // tasks on a worker right now
};

// {"reader":{"threads":N,"running":M},"writer":...,"auxio":...,"nonio":...}
std::string workers_json(const std::array<WorkerCounts, kTaskTypeCount>& counts);

}  // namespace tern::executor
