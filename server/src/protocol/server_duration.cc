#include "protocol/server_duration.h"

#include <algorithm>
#include <cmath>

namespace tern::protocol {

namespace {

constexpr double kExponent = 1.74;
constexpr uint8_t kServerDurationFrameHeader = 0x02;  // id 0, length 2

}  // namespace

uint16_t encode_server_duration(uint64_t micros) {
  const double encoded = std::round(std::pow(static_cast<double>(micros) * 2, 1.0 / kExponent));
  return static_cast<uint16_t>(std::min(encoded, 65535.0));
}

uint64_t decode_server_duration(uint16_t encoded) {
  return static_cast<uint64_t>(std::pow(static_cast<double>(encoded), kExponent) / 2);
}

std::array<uint8_t, 3> server_duration_frame(uint64_t micros) {
  const uint16_t encoded = encode_server_duration(micros);
  return {kServerDurationFrameHeader, static_cast<uint8_t>(encoded >> 8),
          static_cast<uint8_t>(encoded & 0xff)};
}

}  // namespace tern::protocol
