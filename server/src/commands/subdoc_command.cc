#include "commands/subdoc_command.h"

#include "commands/features.h"

namespace tern::commands {

using protocol::Status;

Status decode_subdoc_command(const Command& cmd, subdoc::Request& out) {
  // The dispatcher inflated a Snappy value and cleared its bit: any bit left is refused.
  if (cmd.request.datatype != 0) return Status::Einval;
  const Status decoded =
      subdoc::decode_request(cmd.opcode, cmd.request.extras, cmd.request.value, out);
  if (decoded != Status::Success) return decoded;
  if (out.has(subdoc::kDocAdd) && cmd.request.cas != 0) return Status::Einval;
  if (out.addresses_xattrs() && !cmd.session.features.has(Feature::Xattr)) {
    return Status::NotSupported;
  }
  return Status::Success;
}

}  // namespace tern::commands
