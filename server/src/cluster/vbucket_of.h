#pragma once
// Which vbucket a document lives in. Clients hash the key themselves and send the vbucket in
// the request header; the server checks it with the same function, so both must agree bit for
// bit: ((crc32(key) >> 16) & 0x7fff) % vbucket_count, with the standard (zlib) CRC-32 over the
// logical key — the key without its collection-id prefix.

#include <cstdint>
#include <span>
#include <string_view>

namespace tern::cluster {

// Every Couchbase bucket on Linux has 1024 vbuckets; the SDKs accept any power of two.
inline constexpr uint16_t kVBucketCount = 1024;

// The vbucket of the key; vbucket_count must be positive.
uint16_t vbucket_of(std::span<const uint8_t> logical_key, uint16_t vbucket_count);

inline uint16_t vbucket_of(std::string_view logical_key, uint16_t vbucket_count) {
  return vbucket_of(std::span(reinterpret_cast<const uint8_t*>(logical_key.data()),
                              logical_key.size()),
                    vbucket_count);
}

}  // namespace tern::cluster
