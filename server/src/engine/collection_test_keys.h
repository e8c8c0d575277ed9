#pragma once
// For tests of collections in the engine: a key as the dispatcher stores it in a collection
// (commands/request_checks.h), and a manifest with a few collections to drop.

#include <cstdint>
#include <string>
#include <string_view>

#include "cluster/collections_manifest.h"
#include "protocol/codec.h"

namespace tern::engine {

// `key` in collection `collection`: 0x00, LEB128 id, key; the key itself for _default.
inline std::string key_in(uint32_t collection, std::string_view key) {
  if (collection == 0) return std::string(key);
  uint8_t id[5];
  const size_t length = protocol::leb128_encode(collection, id);
  std::string stored(1, '\0');
  stored.append(reinterpret_cast<const char*>(id), length);
  stored.append(key);
  return stored;
}

inline constexpr uint32_t kCollectionA = 8;  // s.a
inline constexpr uint32_t kCollectionB = 9;  // s.b

// _default._default, s.a (8) and s.b (9, maxTTL `b_max_ttl`), uid 2.
inline cluster::CollectionsManifest manifest_with_a_and_b(uint32_t b_max_ttl = 0) {
  return cluster::CollectionsManifest(
      2, {cluster::Scope{"_default", 0, {{"_default", 0}}},
          cluster::Scope{"s", 8, {{"a", kCollectionA}, {"b", kCollectionB, b_max_ttl}}}});
}

}  // namespace tern::engine
