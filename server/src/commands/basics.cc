// NOOP, VERSION and QUIT: commands about the connection rather than the data.
#include "commands/command.h"

namespace tern::commands {

Outcome noop(const Command& cmd) {
  cmd.reply.success();
  return Outcome::Continue;
}

Outcome version(const Command& cmd) {
  cmd.reply.success(ReplyBody{.value = cmd.node().settings().version});
  return Outcome::Continue;
}

Outcome quit(const Command& cmd) {
  cmd.reply.success();  // silent for QUITQ
  return Outcome::Close;
}

}  // namespace tern::commands
