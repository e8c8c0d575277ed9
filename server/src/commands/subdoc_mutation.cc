// The sub-document mutations: the single-path SUBDOC_DICT_ADD ... SUBDOC_COUNTER and
// SUBDOC_MULTI_MUTATION.
#include "commands/command.h"

namespace tern::commands {

Outcome subdoc_mutation(const Command& cmd) {
  cmd.reply.error(protocol::Status::NotSupported);
  return Outcome::Continue;
}

}  // namespace tern::commands
