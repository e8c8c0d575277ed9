#include "net/server_stats.h"

#include <unistd.h>

#include <ctime>

#include "metrics/stats.h"

namespace tern::net {

ServerStats::ServerStats(std::string version, unsigned threads)
    : version_(std::move(version)), threads_(threads), started_(std::chrono::steady_clock::now()) {}

bool ServerStats::collect(std::string_view group, metrics::Collector& collector) {
  if (!group.empty()) return false;
  namespace stat = metrics::stat;
  auto uptime =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_);
  collector.add(stat::pid, static_cast<uint64_t>(::getpid()));
  collector.add(stat::uptime, static_cast<uint64_t>(uptime.count()));
  collector.add(stat::time, static_cast<uint64_t>(std::time(nullptr)));
  collector.add_text(stat::version, version_);
  collector.add(stat::threads, threads_);
#define TERN_SERVER_COUNTER(key, ...) collector.add(stat::key, get(ServerCounter::key));
#include "metrics/stats.def"
  return true;
}

}  // namespace tern::net
