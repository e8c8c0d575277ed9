#pragma once
// The task that cancels range scans left idle (ScanRegistry::reap_idle): a client that stops
// continuing a scan, or loses its connection, would otherwise keep the scan's keys for good.
// Runs every quarter of the idle limit, so a scan goes at most a quarter late.

#include <memory>

#include "executor/executor.h"
#include "executor/task.h"
#include "scan/scan_registry.h"

namespace tern::scan {

class ScanReaper final : public executor::Task {
 public:
  ScanReaper(ScanRegistry& registry, executor::OwnerId owner);
  bool run() override;

 private:
  ScanRegistry& registry_;
};

// Schedules a ScanReaper for `registry` on `executor`, as `owner`'s task (unregister(owner)
// stops it); returns its id.
executor::TaskId start_scan_reaper(ScanRegistry& registry, executor::Executor& executor,
                                   executor::OwnerId owner);

}  // namespace tern::scan
