// Mutations that store, concatenate or remove whole values, and FLUSH.
#include "commands/command.h"
#include "commands/engine_status.h"
#include "protocol/codec.h"

namespace tern::commands {

using protocol::Opcode;

namespace {

// Success carries the new CAS. DELETE carries the tombstone's CAS to Couchbase clients, as
// Couchbase does (SDKs return it from remove), but 0 to classic ones: memcached answers a
// delete with CAS 0 and its conformance tester (memccapable) checks that. MutationSeqno tells
// the two apart: a client that asks for each mutation's seqno wants its CAS too, and every
// Couchbase SDK asks; open-access sessions start with XERROR on, so that could not tell them.
Outcome answer(const Command& cmd, const engine::MutationResult& result, bool with_cas) {
  if (result.status != engine::Status::Success) {
    cmd.reply.error(to_wire(result.status));
  } else {
    cmd.reply.success(ReplyBody{.cas = with_cas ? result.cas : 0});
  }
  return Outcome::Continue;
}

engine::MutationOptions options_of(const Command& cmd) {
  return {.preserve_ttl = cmd.preserve_ttl};
}

engine::StoreMode store_mode(Opcode op) {
  switch (op) {
    case Opcode::Add: return engine::StoreMode::Add;
    case Opcode::Replace: return engine::StoreMode::Replace;
    default: return engine::StoreMode::Set;
  }
}

}  // namespace

Outcome store(const Command& cmd) {
  const uint32_t flags = protocol::load_be32(cmd.extras());
  const uint32_t expiry = protocol::load_be32(cmd.extras() + 4);
  return answer(cmd,
                cmd.documents().store(store_mode(cmd.opcode), cmd.key(), cmd.value(), flags, expiry,
                                 cmd.request.datatype, cmd.request.cas, options_of(cmd)),
                true);
}

Outcome concat(const Command& cmd) {
  const auto mode =
      cmd.opcode == Opcode::Append ? engine::ConcatMode::Append : engine::ConcatMode::Prepend;
  return answer(
      cmd, cmd.documents().concat(mode, cmd.key(), cmd.value(), cmd.request.cas, options_of(cmd)),
      true);
}

Outcome remove(const Command& cmd) {
  return answer(cmd, cmd.documents().remove(cmd.key(), cmd.request.cas),
                cmd.session.features.has(Feature::MutationSeqno));
}

Outcome flush(const Command& cmd) {
  cmd.documents().flush(cmd.has_extras() ? protocol::load_be32(cmd.extras()) : 0);
  cmd.reply.success();
  return Outcome::Continue;
}

}  // namespace tern::commands
