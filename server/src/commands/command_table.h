#pragma once
// The commands the dispatcher knows: the shape each request must have, who may send it,
// and its handler.

#include <cstdint>

#include "commands/command.h"
#include "protocol/opcode.h"

namespace tern::commands {

enum class KeyRule { Required, Forbidden, Optional };

// Who may send a command, checked before its handler runs.
enum class Access {
  Anyone,         // before authenticating too (HELLO, SASL, NOOP, ...)
  Authenticated,  // an authenticated user, or any client of an open node
  Bucket,         // a selected bucket (else NoBucket; Eaccess if not authenticated)
  Document,       // as Bucket, and the key names a document in one of this node's active
                  // vbuckets and a known collection
  ReplicaDocument,  // as Document, in a replica vbucket
  Admin,          // an administrator (cluster control)
};

inline constexpr uint8_t kExtrasCheckedByHandler = 0xff;

struct CommandSpec {
  protocol::Opcode opcode;  // the loud variant
  // The accepted extras lengths (equal when only one is); {n, kExtrasCheckedByHandler}: any
  // length from n up, for commands whose handler checks the exact forms (the sub-document
  // commands take four each).
  uint8_t extras_lengths[2];
  KeyRule key;
  bool takes_value;
  bool is_mutation;  // counts a seqno, may carry a durability requirement or preserve TTL
  Access access;
  Outcome (*handler)(const Command&);
};

// The spec for a loud opcode, or nullptr if the command is unknown.
const CommandSpec* find_command(protocol::Opcode loud);

}  // namespace tern::commands
