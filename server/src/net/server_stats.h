#pragma once
// The server's connection counters and the general STAT group built from them
// (pid, uptime, time, version, threads, connection counts). Thread-safe.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "commands/dispatcher.h"

namespace tern::net {

// One per line of server_counters.def, named as the STAT it is reported as.
enum class ServerCounter : size_t {
#define TERN_SERVER_COUNTER(member, name) member,
#include "net/server_counters.def"
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
    counters_[static_cast<size_t>(counter)].fetch_add(static_cast<uint64_t>(delta));
  }
  uint64_t get(ServerCounter counter) const {
    return counters_[static_cast<size_t>(counter)].load();
  }
  uint64_t curr_connections() const { return get(ServerCounter::curr_connections); }

  bool emit_stats(std::string_view group, const commands::StatEmitter& emit) override;

 private:
  const std::string version_;
  const unsigned threads_;
  const std::chrono::steady_clock::time_point started_;
  std::array<std::atomic<uint64_t>, static_cast<size_t>(ServerCounter::Count)> counters_{};
};

}  // namespace tern::net
