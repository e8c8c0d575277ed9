#pragma once
// The commands the dispatcher knows: the shape each request must have, and its handler.

#include <cstdint>

#include "commands/command.h"
#include "protocol/opcode.h"

namespace tern::commands {

enum class KeyRule { Required, Forbidden, Optional };

struct CommandSpec {
  protocol::Opcode opcode;  // the loud variant
  uint8_t extras_lengths[2];  // the accepted extras lengths (equal when only one is)
  KeyRule key;
  bool takes_value;
  bool is_mutation;  // may carry a durability requirement
  Outcome (*handler)(const Command&);
};

// The spec for a loud opcode, or nullptr if the command is unknown.
const CommandSpec* find_command(protocol::Opcode loud);

}  // namespace tern::commands
