#include "metrics/command_stats.h"

namespace tern::metrics {

CommandStats::~CommandStats() {
  for (auto& histogram : by_opcode_) delete histogram.load(std::memory_order_relaxed);
}

LatencyHistogram* CommandStats::first_use(uint8_t opcode) {
  auto* fresh = new LatencyHistogram();
  LatencyHistogram* expected = nullptr;
  if (by_opcode_[opcode].compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
    return fresh;
  }
  delete fresh;  // another thread installed one first
  return expected;
}

}  // namespace tern::metrics
