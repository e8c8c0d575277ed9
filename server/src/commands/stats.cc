// STAT: one response per pair, each with the request's opaque, then an empty terminator.
#include <string>

#include "commands/command.h"

namespace tern::commands {

namespace {

void emit_engine_stats(const engine::Stats& s, const StatEmitter& emit) {
  const std::pair<std::string_view, uint64_t> pairs[] = {
      {"curr_items", s.curr_items},
      {"total_items", s.total_items},
      {"bytes", s.mem_used},
      {"mem_used", s.mem_used},
      {"limit_maxbytes", s.mem_quota},
      {"mem_quota", s.mem_quota},
      {"cmd_get", s.cmd_get},
      {"cmd_set", s.cmd_set},
      {"cmd_touch", s.cmd_touch},
      {"cmd_flush", s.cmd_flush},
      {"get_hits", s.get_hits},
      {"get_misses", s.get_misses},
      {"touch_hits", s.touch_hits},
      {"touch_misses", s.touch_misses},
      {"delete_hits", s.delete_hits},
      {"delete_misses", s.delete_misses},
      {"incr_hits", s.incr_hits},
      {"incr_misses", s.incr_misses},
      {"decr_hits", s.decr_hits},
      {"decr_misses", s.decr_misses},
      {"cas_hits", s.cas_hits},
      {"cas_misses", s.cas_misses},
      {"cas_badval", s.cas_badval},
      {"evictions", s.evictions},
      {"expired_items", s.expired_items},
      {"reclaimed", s.reclaimed_bytes},
  };
  for (const auto& [name, value] : pairs) emit(name, std::to_string(value));
}

}  // namespace

Outcome stat(const Command& cmd) {
  const StatEmitter emit = [&cmd](std::string_view key, std::string_view value) {
    cmd.reply.append(protocol::Status::Success, ReplyBody{.key = key, .value = value});
  };
  const std::string_view group = cmd.key();
  if (group.empty()) {
    emit_engine_stats(cmd.engine.stats(), emit);
    for (StatProvider* provider : cmd.stat_providers) provider->emit_stats(group, emit);
  } else {
    bool known = false;
    for (StatProvider* provider : cmd.stat_providers) {
      if (provider->emit_stats(group, emit)) {
        known = true;
        break;
      }
    }
    if (!known) {
      cmd.reply.error(protocol::Status::KeyEnoent);
      return Outcome::Continue;
    }
  }
  cmd.reply.append(protocol::Status::Success, ReplyBody{});
  return Outcome::Continue;
}

}  // namespace tern::commands
