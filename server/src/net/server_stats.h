#pragma once
// The server's connection and traffic counters, and the general STAT group's node part built
// from them (pid, uptime, time, version, threads, connection counts), which /metrics shows
// too. Thread-safe: each counter is sharded by thread, so worker loops counting bytes do not
// share a cache line.

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

#include "commands/dispatcher.h"
#include "metrics/sharded_counter.h"

namespace tern::net {

// One per TERN_SERVER_COUNTER line of metrics/stats.def, named as its key.
enum class ServerCounter : size_t {
#define TERN_SERVER_COUNTER(key, ...) key,
#include "metrics/stats.def"
  Count
};

class ServerStats final : public commands::StatProvider {
 public:
  ServerStats(std::string version, unsigned threads);

  void connection_opened() {
    add(ServerCounter::curr_connections, 1);
    add(ServerCounter::total_connections, 1);
  }
  void connection_closed() { add(ServerCounter::curr_connections, -1); }
  void connection_rejected() { add(ServerCounter::rejected_connections, 1); }

  // Moves a counter by `delta`, which may be negative (a gauge such as curr_connections).
  void add(ServerCounter counter, int64_t delta) {
    counters_[static_cast<size_t>(counter)].add(delta);
  }
  uint64_t get(ServerCounter counter) const {
    return counters_[static_cast<size_t>(counter)].value();
  }
  uint64_t curr_connections() const { return get(ServerCounter::curr_connections); }

  bool collect(std::string_view group, metrics::Collector& collector) override;

 private:
  const std::string version_;
  const unsigned threads_;
  const std::chrono::steady_clock::time_point started_;
  std::array<metrics::ShardedCounter, static_cast<size_t>(ServerCounter::Count)> counters_{};
};

}  // namespace tern::net
