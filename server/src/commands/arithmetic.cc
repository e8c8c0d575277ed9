// INCREMENT and DECREMENT: extras are delta u64, initial u64, expiry u32; the answer's
// value is the counter after the operation as a big-endian u64.
#include "commands/background_fetch.h"
#include "commands/command.h"
#include "commands/durable_reply.h"
#include "protocol/codec.h"

namespace tern::commands {

Outcome arithmetic(const Command& cmd) {
  const uint64_t delta = protocol::load_be64(cmd.extras());
  const uint64_t initial = protocol::load_be64(cmd.extras() + 8);
  const uint32_t expiry = protocol::load_be32(cmd.extras() + 16);
  const engine::ArithmeticResult result =
      cmd.documents().arithmetic(cmd.key(), cmd.opcode == protocol::Opcode::Increment, delta,
                                 initial, expiry, cmd.request.cas, cmd.mutation_options());
  if (result.status != engine::Status::Success) return answer_engine_failure(cmd, result.status);
  uint8_t counter[8];
  protocol::store_be64(counter, result.value);
  return succeed_mutation(cmd, result.cas,
                          ReplyBody{
                              .value = Command::as_text(counter),
                              .cas = result.cas,
                              .seqno = result.seqno,
                          });
}

}  // namespace tern::commands
