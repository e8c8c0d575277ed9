#include "scan/scan_reaper.h"

#include <algorithm>

namespace tern::scan {
namespace {

double period_seconds(const ScanRegistry& registry) {
  return std::max<double>(0.001, registry.limits().idle_ms / 4 / 1000.0);
}

}  // namespace

ScanReaper::ScanReaper(ScanRegistry& registry, executor::OwnerId owner)
    : executor::Task(executor::TaskType::NonIO, "range scan reaper", owner), registry_(registry) {}

bool ScanReaper::run() {
  registry_.reap_idle();
  snooze(period_seconds(registry_));
  return true;
}

executor::TaskId start_scan_reaper(ScanRegistry& registry, executor::Executor& executor,
                                   executor::OwnerId owner) {
  return executor.schedule(std::make_shared<ScanReaper>(registry, owner), period_seconds(registry));
}

}  // namespace tern::scan
