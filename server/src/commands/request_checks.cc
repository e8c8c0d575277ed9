#include "commands/request_checks.h"

#include "protocol/frame_info.h"

namespace tern::commands {

using protocol::FrameInfoId;
using protocol::Status;

namespace {

constexpr uint8_t kKnownDatatypeBits = 0x07;  // JSON, Snappy, XATTR
constexpr uint8_t kDurabilityMajority = 1;
constexpr uint8_t kLastDurabilityLevel = 3;

Status check_durability(const CommandSpec& spec, std::span<const uint8_t> data) {
  if (!spec.is_mutation) return Status::Einval;
  // Level u8, optionally followed by a u16 timeout.
  if (data.size() != 1 && data.size() != 3) return Status::Einval;
  const uint8_t level = data[0];
  if (level == kDurabilityMajority) return Status::Success;
  // Persisting levels are valid elsewhere but impossible here: nothing is persisted.
  if (level > kDurabilityMajority && level <= kLastDurabilityLevel) {
    return Status::DurabilityImpossible;
  }
  return Status::DurabilityInvalidLevel;
}

}  // namespace

Status check_shape(const CommandSpec& spec, const protocol::Frame& request) {
  const size_t extras = request.extras.size();
  if (extras != spec.extras_lengths[0] && extras != spec.extras_lengths[1]) {
    return Status::Einval;
  }
  const size_t key = request.key.size();
  if (key > kMaxKeyLength) return Status::Einval;
  if (spec.key == KeyRule::Required && key == 0) return Status::Einval;
  if (spec.key == KeyRule::Forbidden && key != 0) return Status::Einval;
  if (!spec.takes_value && !request.value.empty()) return Status::Einval;
  if ((request.datatype & ~kKnownDatatypeBits) != 0) return Status::Einval;
  return Status::Success;
}

Status check_frame_infos(const CommandSpec& spec, const protocol::Frame& request) {
  protocol::FrameInfoReader reader(request.framing_extras);
  protocol::FrameInfo info;
  while (reader.next(info)) {
    Status status = Status::Success;
    switch (static_cast<FrameInfoId>(info.id)) {
      case FrameInfoId::Barrier:
        status = info.data.empty() ? Status::Success : Status::Einval;
        break;
      case FrameInfoId::DurabilityRequirement:
        status = check_durability(spec, info.data);
        break;
      case FrameInfoId::PreserveTtl:
        status = Status::NotSupported;
        break;
      default:
        status = Status::UnknownFrameInfo;
        break;
    }
    if (status != Status::Success) return status;
  }
  return reader.malformed() ? Status::Einval : Status::Success;
}

}  // namespace tern::commands
