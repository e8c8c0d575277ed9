#pragma once
// The datatype bits of a frame (header byte 5): what a value is, beyond raw bytes.

#include <cstdint>

namespace tern::protocol::datatype {

inline constexpr uint8_t kJson = 0x01;
inline constexpr uint8_t kSnappy = 0x02;  // the value is Snappy-compressed
inline constexpr uint8_t kXattr = 0x04;   // the value starts with extended attributes

}  // namespace tern::protocol::datatype
