#include "cluster/vbucket_state.h"

namespace tern::cluster {

namespace {

constexpr uint8_t kDatatypeRaw = 0x00;
constexpr uint8_t kDatatypeJson = 0x01;

uint32_t load_be32(std::span<const uint8_t> bytes) {
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

}  // namespace

std::string_view vbucket_state_name(VBucketState state) {
  switch (state) {
    case VBucketState::Active: return "active";
    case VBucketState::Replica: return "replica";
    case VBucketState::Pending: return "pending";
    case VBucketState::Dead: return "dead";
  }
  return "unknown";
}

std::optional<VBucketState> vbucket_state_from_name(std::string_view name) {
  for (const VBucketState state : {VBucketState::Active, VBucketState::Replica,
                                   VBucketState::Pending, VBucketState::Dead}) {
    if (vbucket_state_name(state) == name) return state;
  }
  return std::nullopt;
}

std::optional<VBucketState> vbucket_state_from_wire(uint32_t value) {
  if (value < 1 || value > 4) return std::nullopt;
  return static_cast<VBucketState>(value);
}

std::optional<SetVBucketRequest> parse_set_vbucket(std::span<const uint8_t> extras,
                                                   std::span<const uint8_t> value,
                                                   uint8_t datatype) {
  std::optional<VBucketState> state;
  std::string_view json;
  if (extras.size() == 1) {
    const uint8_t wanted = value.empty() ? kDatatypeRaw : kDatatypeJson;
    if (datatype != wanted) return std::nullopt;
    state = vbucket_state_from_wire(extras[0]);
    json = std::string_view(reinterpret_cast<const char*>(value.data()), value.size());
  } else if (extras.size() == 4 && value.empty() && datatype == kDatatypeRaw) {
    state = vbucket_state_from_wire(load_be32(extras));
  } else if (extras.empty() && value.size() == 4 && datatype == kDatatypeRaw) {
    state = vbucket_state_from_wire(load_be32(value));
  }
  if (!state) return std::nullopt;
  return SetVBucketRequest{.state = *state, .json = json};
}

}  // namespace tern::cluster
