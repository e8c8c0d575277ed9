#pragma once
// The server's connection counters and the general STAT group built from them
// (pid, uptime, time, version, threads, connection counts). Thread-safe.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "commands/dispatcher.h"

namespace tern::net {

class ServerStats final : public commands::StatProvider {
 public:
  ServerStats(std::string version, unsigned threads);

  void connection_opened() {
    ++curr_connections_;
    ++total_connections_;
  }
  void connection_closed() { --curr_connections_; }
  void connection_rejected() { ++rejected_connections_; }

  uint64_t curr_connections() const { return curr_connections_.load(); }
  uint64_t total_connections() const { return total_connections_.load(); }
  uint64_t rejected_connections() const { return rejected_connections_.load(); }

  bool emit_stats(std::string_view group, const commands::StatEmitter& emit) override;

 private:
  const std::string version_;
  const unsigned threads_;
  const std::chrono::steady_clock::time_point started_;
  std::atomic<uint64_t> curr_connections_{0};
  std::atomic<uint64_t> total_connections_{0};
  std::atomic<uint64_t> rejected_connections_{0};
};

}  // namespace tern::net
