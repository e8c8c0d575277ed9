#include "cluster/vbucket_of.h"

#include <zlib.h>

namespace tern::cluster {

uint16_t vbucket_of(std::span<const uint8_t> logical_key, uint16_t vbucket_count) {
  // zlib's crc32 takes a uInt length; keys are at most 250 bytes, so one call suffices.
  const uint32_t crc = static_cast<uint32_t>(
      ::crc32(0L, logical_key.data(), static_cast<uInt>(logical_key.size())));
  return static_cast<uint16_t>(((crc >> 16) & 0x7fff) % vbucket_count);
}

}  // namespace tern::cluster
