#include "engine/collection_key.h"

#include <span>

#include "cluster/vbucket_of.h"
#include "protocol/codec.h"

namespace tern::engine {

std::optional<uint32_t> collection_of_key(std::string_view key) {
  if (key.empty() || key[0] != '\0') return 0;
  if (key.size() >= 2 && key[1] == '\0') return 0;  // a _default key that starts with 0x00
  uint32_t id = 0;
  const auto bytes = std::span(reinterpret_cast<const uint8_t*>(key.data()) + 1, key.size() - 1);
  if (protocol::leb128_decode(bytes, id) == 0) return std::nullopt;
  return id;
}

uint16_t vbucket_of_key(std::string_view key) {
  return cluster::vbucket_of(logical_key_of(key).value_or(key), cluster::kVBucketCount);
}

std::optional<std::string_view> logical_key_of(std::string_view key) {
  if (key.empty() || key[0] != '\0') return key;
  if (key.size() >= 2 && key[1] == '\0') return key.substr(1);
  uint32_t id = 0;
  const auto bytes = std::span(reinterpret_cast<const uint8_t*>(key.data()) + 1, key.size() - 1);
  const size_t length = protocol::leb128_decode(bytes, id);
  if (length == 0) return std::nullopt;
  return key.substr(1 + length);
}

std::string stored_key_of(uint32_t collection_id, std::string_view logical) {
  if (collection_id == 0) {
    if (logical.empty() || logical[0] != '\0') return std::string(logical);
    return std::string(1, '\0').append(logical);
  }
  uint8_t id[5];
  const size_t length = protocol::leb128_encode(collection_id, id);
  std::string stored(1, '\0');
  stored.append(reinterpret_cast<const char*>(id), length);
  return stored.append(logical);
}

std::vector<storage::KeyRange> collection_key_ranges(uint32_t collection_id) {
  if (collection_id == 0) {
    // 0x00 0x00 then anything, and every key whose first byte is not 0x00.
    return {{std::string("\0\0", 2), std::string("\0\x01", 2)}, {std::string("\x01"), ""}};
  }
  uint8_t id[5];
  const size_t length = protocol::leb128_encode(collection_id, id);
  std::string prefix(1, '\0');
  prefix.append(reinterpret_cast<const char*>(id), length);
  // LEB128 is prefix-free, and its last byte is below 0x80: one more is still a byte, and
  // bounds exactly the keys that start with the prefix.
  std::string end = prefix;
  end.back() = static_cast<char>(end.back() + 1);
  return {{std::move(prefix), std::move(end)}};
}

}  // namespace tern::engine
