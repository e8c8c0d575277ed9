#include "net/server_stats.h"

#include <unistd.h>

#include <ctime>

namespace tern::net {

ServerStats::ServerStats(std::string version, unsigned threads)
    : version_(std::move(version)), threads_(threads), started_(std::chrono::steady_clock::now()) {}

bool ServerStats::emit_stats(std::string_view group, const commands::StatEmitter& emit) {
  if (!group.empty()) return false;
  auto uptime = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::steady_clock::now() - started_);
  emit("pid", std::to_string(::getpid()));
  emit("uptime", std::to_string(uptime.count()));
  emit("time", std::to_string(std::time(nullptr)));
  emit("version", version_);
  emit("threads", std::to_string(threads_));
#define TERN_SERVER_COUNTER(member, name) \
  emit(name, std::to_string(get(ServerCounter::member)));
#include "net/server_counters.def"
  return true;
}

}  // namespace tern::net
