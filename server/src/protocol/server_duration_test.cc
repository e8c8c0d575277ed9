// Expected values computed independently (Python: round((m * 2) ** (1 / 1.74)) and
// int(e ** 1.74 / 2)), away from rounding boundaries.
#include "protocol/server_duration.h"

#include <gtest/gtest.h>

#include <vector>

namespace tern::protocol {
namespace {

TEST(ServerDuration, Encode) {
  const std::vector<std::pair<uint64_t, uint16_t>> vectors = {
      {0, 0},         {1, 1},          {2, 2},          {10, 6},
      {100, 21},      {1000, 79},      {12345, 335},    {1000000, 4181},
      {120125042, 65535},  // the largest duration the u16 holds
      {120125043, 65535},  // clamped from here on
      {1000000000000, 65535},
  };
  for (const auto& [micros, encoded] : vectors) {
    EXPECT_EQ(encode_server_duration(micros), encoded) << micros;
  }
}

TEST(ServerDuration, Decode) {
  const std::vector<std::pair<uint16_t, uint64_t>> vectors = {
      {0, 0},       {1, 0},          {2, 1},          {100, 1509},
      {256, 7750},  {1000, 82979},   {30000, 30843310}, {65535, 120125042},
  };
  for (const auto& [encoded, micros] : vectors) {
    EXPECT_EQ(decode_server_duration(encoded), micros) << encoded;
  }
}

// The curve's step grows with the duration: about 1.74 * micros / encoded.
TEST(ServerDuration, RoundTripsWithinTheCurvesPrecision) {
  for (uint64_t micros = 1; micros < 100000000; micros = micros * 3 + 1) {
    const double back = static_cast<double>(decode_server_duration(encode_server_duration(micros)));
    EXPECT_NEAR(back, static_cast<double>(micros), static_cast<double>(micros) * 0.1 + 3)
        << micros;
  }
}

TEST(ServerDuration, Frame) {
  EXPECT_EQ(server_duration_frame(7750), (std::array<uint8_t, 3>{0x02, 0x01, 0x00}));
  EXPECT_EQ(server_duration_frame(0), (std::array<uint8_t, 3>{0x02, 0x00, 0x00}));
  EXPECT_EQ(server_duration_frame(1u << 31), (std::array<uint8_t, 3>{0x02, 0xff, 0xff}));
}

}  // namespace
}  // namespace tern::protocol
