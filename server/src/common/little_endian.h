#pragma once
// Little-endian integers in byte buffers, as the store's formats lay them out. Byte-wise
// shifts rather than memcpy: the layout stays little-endian on any host. (The wire protocol
// is big-endian: protocol/ has its own.)

#include <cstddef>
#include <cstdint>

namespace tern {

template <typename T>
void put_le(char* out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i) out[i] = static_cast<char>(value >> (8 * i));
}

template <typename T>
T get_le(const char* in) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) value |= T{static_cast<uint8_t>(in[i])} << (8 * i);
  return value;
}

}  // namespace tern
