#include "commands/command_results.h"

#include "metrics/histogram.h"
#include "protocol/codec.h"
#include "protocol/opcode.h"

namespace tern::commands {

using protocol::Status;

static_assert(kCommandResults <= metrics::kOutcomes, "a histogram counts every result class");

CommandResult command_result(Status status) {
  switch (status) {
    case Status::Success:
    case Status::SubdocSuccessDeleted:
    case Status::SubdocMultiPathFailure:  // ran; some paths failed
    case Status::SubdocMultiPathFailureDeleted:
    case Status::AuthContinue:
      return CommandResult::Success;
    case Status::KeyEnoent:
      return CommandResult::NotFound;
    case Status::KeyEexists:
      return CommandResult::Exists;
    case Status::Locked:
    case Status::NotLocked:
      return CommandResult::Locked;
    case Status::NotStored:
      return CommandResult::NotStored;
    case Status::E2big:
      return CommandResult::TooBig;
    case Status::Enomem:
      return CommandResult::NoMemory;
    case Status::Etmpfail:
    case Status::Ebusy:
      return CommandResult::TemporaryFailure;
    case Status::NotMyVbucket:
      return CommandResult::NotMyVbucket;
    case Status::UnknownCollection:
    case Status::UnknownScope:
      return CommandResult::UnknownCollection;
    case Status::Eaccess:
    case Status::AuthError:
    case Status::NoBucket:
      return CommandResult::NoAccess;
    case Status::Einval:
    case Status::UnknownCommand:
    case Status::UnknownFrameInfo:
    case Status::NotSupported:
    case Status::DeltaBadval:
    case Status::Erange:
    case Status::XattrEinval:
      return CommandResult::Invalid;
    case Status::DurabilityInvalidLevel:
    case Status::DurabilityImpossible:
    case Status::SyncWriteInProgress:
    case Status::SyncWriteAmbiguous:
    case Status::SyncWriteReCommitInProgress:
      return CommandResult::Durability;
    default:
      break;
  }
  // The sub-document path and document errors: the request asked for something invalid.
  const auto code = static_cast<uint16_t>(status);
  if (code >= static_cast<uint16_t>(Status::SubdocPathEnoent) &&
      code <= static_cast<uint16_t>(Status::SubdocInvalidXattrOrder)) {
    return CommandResult::Invalid;
  }
  return CommandResult::Other;
}

std::string_view command_result_name(CommandResult result) {
  switch (result) {
    case CommandResult::Success:
      return "success";
    case CommandResult::NotFound:
      return "not_found";
    case CommandResult::Exists:
      return "exists";
    case CommandResult::Locked:
      return "locked";
    case CommandResult::NotStored:
      return "not_stored";
    case CommandResult::TooBig:
      return "too_big";
    case CommandResult::NoMemory:
      return "no_memory";
    case CommandResult::TemporaryFailure:
      return "temporary_failure";
    case CommandResult::NotMyVbucket:
      return "not_my_vbucket";
    case CommandResult::UnknownCollection:
      return "unknown_collection";
    case CommandResult::NoAccess:
      return "no_access";
    case CommandResult::Invalid:
      return "invalid";
    case CommandResult::Durability:
      return "durability";
    case CommandResult::Other:
      return "other";
  }
  return "other";
}

CommandResult command_result(uint8_t opcode, std::span<const uint8_t> answers) {
  // The status field of a response header, at the same offset with or without framing
  // extras (magic 0x81 or 0x18).
  constexpr size_t kStatusOffset = 6;
  if (answers.size() < kStatusOffset + 2) {
    switch (static_cast<protocol::Opcode>(opcode)) {
      case protocol::Opcode::GetQ:
      case protocol::Opcode::GetKQ:
      case protocol::Opcode::GatQ:
        return CommandResult::NotFound;
      default:
        return CommandResult::Success;
    }
  }
  return command_result(static_cast<Status>(protocol::load_be16(answers.data() + kStatusOffset)));
}

}  // namespace tern::commands
