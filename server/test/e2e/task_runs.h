#pragma once
// What STAT tasks says of the server's background tasks (executor/task_table.cc), for tests
// that show a task runs on its own schedule.

#include <cstdint>
#include <string>

#include "test_client.h"

namespace tern::e2e {

// How often the task with this description has run, from STAT tasks (0 if it is not listed).
uint64_t task_runs(Client& client, const std::string& description);

}  // namespace tern::e2e
