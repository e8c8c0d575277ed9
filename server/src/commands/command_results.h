#pragma once
// How a command ended, in the few classes /metrics counts (kv_cmd_results_total's result
// label): a status per class would make thousands of series, most always zero.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/status.h"

namespace tern::commands {

enum class CommandResult : uint8_t {
  Success,
  NotFound,
  Exists,  // the key exists, or its CAS differs
  Locked,
  NotStored,
  TooBig,
  NoMemory,
  TemporaryFailure,
  NotMyVbucket,
  UnknownCollection,
  NoAccess,
  Invalid,
  Durability,
  Other,
};
inline constexpr size_t kCommandResults = static_cast<size_t>(CommandResult::Other) + 1;

CommandResult command_result(protocol::Status status);
// "success", "not_found", "exists", ... (the result label's values).
std::string_view command_result_name(CommandResult result);

// The result of a command of `opcode` whose answers start at `answers` (one or more response
// frames). A quiet command that answered nothing succeeded, except a quiet retrieval (GETQ,
// GETKQ, GATQ), whose silence is a miss.
CommandResult command_result(uint8_t opcode, std::span<const uint8_t> answers);

}  // namespace tern::commands
