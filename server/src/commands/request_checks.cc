#include "commands/request_checks.h"

#include <cstring>

#include "protocol/codec.h"
#include "protocol/frame_info.h"
#include "protocol/opcode.h"
#include "protocol/datatype.h"

namespace tern::commands {

using protocol::FrameInfoId;
using protocol::Status;

namespace {

Status check_durability(const CommandSpec& spec, std::span<const uint8_t> data,
                        Durability& durability) {
  if (!spec.is_mutation) return Status::Einval;
  // Level u8, optionally followed by a u16 timeout.
  if (data.size() != 1 && data.size() != 3) return Status::Einval;
  const uint8_t level = data[0];
  if (level < Durability::kMajority || level > Durability::kPersistToMajority) {
    return Status::DurabilityInvalidLevel;
  }
  durability.level = level;
  durability.timeout_ms = data.size() == 3 ? protocol::load_be16(data.data() + 1) : 0;
  return Status::Success;
}

Status check_preserve_ttl(const CommandSpec& spec, std::span<const uint8_t> data) {
  // A delete leaves no document whose TTL could be kept.
  if (!spec.is_mutation || spec.opcode == protocol::Opcode::Delete) return Status::Einval;
  return data.empty() ? Status::Success : Status::Einval;
}

}  // namespace

Status check_shape(const CommandSpec& spec, const protocol::Frame& request,
                   const FeatureSet& features) {
  const size_t extras = request.extras.size();
  if (spec.extras_lengths[1] == kExtrasCheckedByHandler ? extras < spec.extras_lengths[0]
                                                         : extras != spec.extras_lengths[0] &&
                                                               extras != spec.extras_lengths[1]) {
    return Status::Einval;
  }
  const size_t key = request.key.size();
  if (key > kMaxPrefixedKeyLength) return Status::Einval;
  if (spec.key == KeyRule::Required && key == 0) return Status::Einval;
  if (spec.key == KeyRule::Forbidden && key != 0) return Status::Einval;
  if (!spec.takes_value && !request.value.empty()) return Status::Einval;
  if ((request.datatype & ~(protocol::datatype::kJson | protocol::datatype::kSnappy | protocol::datatype::kXattr)) != 0) return Status::Einval;
  if ((request.datatype & protocol::datatype::kXattr) != 0) return Status::Einval;
  if ((request.datatype & protocol::datatype::kSnappy) != 0 &&
      (!features.has(Feature::Snappy) || !spec.takes_value)) {
    return Status::Einval;
  }
  return Status::Success;
}

Status check_frame_infos(const CommandSpec& spec, const protocol::Frame& request,
                         const FeatureSet& features, FrameInfoRequests& requests) {
  // Most requests are classic ones, which carry no frame infos.
  if (request.magic == static_cast<uint8_t>(protocol::Magic::ClientRequest)) {
    return Status::Success;
  }
  if (!features.has(Feature::AltRequestSupport)) return Status::Einval;
  protocol::FrameInfoReader reader(request.framing_extras);
  protocol::FrameInfo info;
  while (reader.next(info)) {
    Status status = Status::Success;
    switch (static_cast<FrameInfoId>(info.id)) {
      case FrameInfoId::Barrier:
        status = info.data.empty() ? Status::Success : Status::Einval;
        break;
      case FrameInfoId::DurabilityRequirement:
        status = features.has(Feature::SyncReplication)
                     ? check_durability(spec, info.data, requests.durability)
                     : Status::NotSupported;
        break;
      case FrameInfoId::PreserveTtl:
        status = features.has(Feature::PreserveTtl) ? check_preserve_ttl(spec, info.data)
                                                    : Status::NotSupported;
        requests.preserve_ttl = status == Status::Success;
        break;
      default:
        status = Status::UnknownFrameInfo;
        break;
    }
    if (status != Status::Success) return status;
  }
  return reader.malformed() ? Status::Einval : Status::Success;
}

Status decode_document_key(std::span<const uint8_t> wire_key, bool collections,
                           DocumentKey& out, StoredKeyBuffer& scratch) {
  auto text = [](std::span<const uint8_t> bytes) {
    return std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  uint32_t collection = 0;
  size_t prefix = 0;
  if (collections) {
    // One byte holds every id below 128, which is what manifests have in practice.
    if (!wire_key.empty() && wire_key[0] < 0x80) {
      collection = wire_key[0];
      prefix = 1;
    } else {
      prefix = protocol::leb128_decode(wire_key, collection);
      if (prefix == 0) return Status::Einval;
    }
  }
  const auto logical = wire_key.subspan(prefix);
  const size_t limit = collection == 0 ? kMaxKeyLength : kMaxNonDefaultCollectionKeyLength;
  if (logical.empty() || logical.size() > limit) return Status::Einval;
  out.collection_id = collection;
  out.logical = text(logical);
  // The default collection's documents are the ones clients without collections see.
  if (collection == 0 && logical[0] != 0x00) {
    out.stored = out.logical;
    return Status::Success;
  }
  const std::string_view marked = collection == 0 ? out.logical : text(wire_key);
  scratch[0] = '\0';
  std::memcpy(scratch.data() + 1, marked.data(), marked.size());
  out.stored = std::string_view(scratch.data(), 1 + marked.size());
  return Status::Success;
}

}  // namespace tern::commands
