// STAT: one response per pair, each with the request's opaque, then an empty terminator.
// The general group holds the selected bucket's statistics (a persistent bucket's flusher,
// warmup and durable writes too) and the node's.
#include <string>

#include "commands/command.h"

namespace tern::commands {

namespace {

// The names and order come from engine/stats.def, the one list of engine statistics.
void emit_engine_stats(const engine::Stats& stats, const StatEmitter& emit) {
  stats.for_each(
      [&emit](std::string_view name, uint64_t value) { emit(name, std::to_string(value)); });
}

}  // namespace

Outcome stat(const Command& cmd) {
  const StatEmitter emit = [&cmd](std::string_view key, std::string_view value) {
    cmd.reply.append(protocol::Status::Success, ReplyBody{.key = key, .value = value});
  };
  const std::string_view group = cmd.key();
  if (group.empty()) {
    // The selected bucket's statistics; a connection without one sees the node's only.
    if (cmd.session.bucket != nullptr) {
      emit_engine_stats(cmd.bucket().documents().stats(), emit);
      if (const engine::Persistence* persistence = cmd.bucket().persistence()) {
        persistence->for_each_stat(emit);
      }
    }
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
