// STAT: one response per pair, each with the request's opaque, then an empty terminator.
// The general group holds the selected bucket's statistics (a persistent bucket's flusher,
// warmup and durable writes too) and the node's. Names and order come from
// metrics/stats.def, the one table of statistics, through a metrics::StatView.
#include "commands/command.h"
#include "commands/node_metrics.h"
#include "metrics/stat_view.h"

namespace tern::commands {

Outcome stat(const Command& cmd) {
  metrics::StatView view([&cmd](std::string_view key, std::string_view value) {
    cmd.reply.append(protocol::Status::Success, ReplyBody{.key = key, .value = value});
  });
  const std::string_view group = cmd.key();
  if (group.empty()) {
    // The selected bucket's statistics; a connection without one sees the node's only.
    if (cmd.session.bucket != nullptr) collect_bucket(*cmd.session.bucket, view);
    for (StatProvider* provider : cmd.stat_providers) provider->collect(group, view);
  } else {
    bool known = false;
    for (StatProvider* provider : cmd.stat_providers) {
      if (provider->collect(group, view)) {
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
