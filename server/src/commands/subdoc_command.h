#pragma once
// The first step of every sub-document command (lookups and mutations alike): decoding its
// request. subdoc::decode_request checks what the request alone says; this adds the rules
// that need the frame's header or the connection, in one place for both handlers.

#include "commands/command.h"
#include "protocol/status.h"
#include "subdoc/request.h"

namespace tern::commands {

// Decodes cmd's request into `out`. Success, or the status the whole request is refused
// with: decode_request's; Einval when the request's datatype is not raw (Couchbase takes
// sub-document requests only as raw bytes; a Snappy value arrives here inflated) or when
// the Add doc flag comes with a CAS (Add creates: there is nothing to compare with);
// NotSupported when a spec addresses XATTRs on a connection that did not negotiate Xattr in
// HELLO (as Couchbase answers).
protocol::Status decode_subdoc_command(const Command& cmd, subdoc::Request& out);

}  // namespace tern::commands
