// GET and its relatives: every hit answers with 4 bytes of flags, the body and its CAS.
#include "commands/background_fetch.h"
#include "commands/command.h"
#include "commands/engine_status.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"
#include "xattr/blob.h"

namespace tern::commands {

using protocol::Opcode;

namespace {

bool echoes_key(Opcode op) { return op == Opcode::GetK; }

Outcome answer(const Command& cmd, const engine::GetResult& result) {
  if (result.status != engine::Status::Success) {
    if (result.status == engine::Status::NotFound && echoes_key(cmd.opcode)) {
      // The key as sent, not the stored one.
      cmd.reply.error_with_key(to_wire(result.status), Command::as_text(cmd.request.key));
      return Outcome::Continue;
    }
    return answer_engine_failure(cmd, result.status);
  }
  const engine::Item& item = *result.item;
  // A plain read answers the body only: XATTRs are read with sub-document lookups.
  xattr::Split parts;
  if (!xattr::split(item.value(), item.datatype, parts)) {
    cmd.reply.error(protocol::Status::Einternal);  // never stored so: the commands check
    return Outcome::Continue;
  }
  uint8_t flags[4];
  protocol::store_be32(flags, item.flags);
  cmd.reply.success(ReplyBody{.extras = flags,
                              .key = echoes_key(cmd.opcode) ? Command::as_text(cmd.request.key) : std::string_view{},
                              .value = parts.body,
                              .datatype = static_cast<uint8_t>(item.datatype & ~protocol::datatype::kXattr),
                              .cas = item.cas});
  return Outcome::Continue;
}

uint32_t optional_be32_extras(const Command& cmd) {
  return cmd.has_extras() ? protocol::load_be32(cmd.extras()) : 0;
}

}  // namespace

Outcome get(const Command& cmd) { return answer(cmd, cmd.documents().get(cmd.key())); }

Outcome get_and_touch(const Command& cmd) {
  return answer(cmd, cmd.documents().get_and_touch(cmd.key(), protocol::load_be32(cmd.extras())));
}

Outcome get_locked(const Command& cmd) {
  return answer(cmd, cmd.documents().get_locked(cmd.key(), optional_be32_extras(cmd)));
}

Outcome touch(const Command& cmd) {
  const engine::MutationResult result =
      cmd.documents().touch(cmd.key(), protocol::load_be32(cmd.extras()));
  if (result.status != engine::Status::Success) return answer_engine_failure(cmd, result.status);
  cmd.reply.success(ReplyBody{.cas = result.cas});
  return Outcome::Continue;
}

Outcome unlock(const Command& cmd) {
  // The lock CAS is what proves the caller holds the lock; without one there is nothing to
  // check.
  if (cmd.request.cas == 0) {
    cmd.reply.error(protocol::Status::Einval);
    return Outcome::Continue;
  }
  const engine::Status status = cmd.documents().unlock(cmd.key(), cmd.request.cas);
  if (status != engine::Status::Success) return answer_engine_failure(cmd, status);
  cmd.reply.success();
  return Outcome::Continue;
}

}  // namespace tern::commands
