#pragma once
// Which collection a document key belongs to. The engine's keys are the stored keys
// commands/request_checks.h builds (decode_document_key):
// - a _default collection key is the key itself, unless its first byte is 0x00: then it is
//   0x00 followed by the key;
// - any other collection's key is 0x00, the collection id as LEB128, then the key.
// So one collection's keys are one or two ranges of bytes, which is how the store deletes a
// dropped collection's records (storage::KeyRange).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/store.h"

namespace tern::engine {

// The collection of a stored key; nullopt for a key no request builds (0x00 and then no
// valid LEB128 id), which belongs to no collection.
std::optional<uint32_t> collection_of_key(std::string_view key);

// The key ranges holding every key of the collection, and no other collection's.
std::vector<storage::KeyRange> collection_key_ranges(uint32_t collection_id);

// The key as clients name it within its collection (without the prefix above): nullopt for a
// key of no collection, as collection_of_key().
std::optional<std::string_view> logical_key_of(std::string_view key);

// The vbucket a stored key is filed under: that of its logical key (cluster::vbucket_of over
// kVBucketCount, as clients route it); a key of no collection hashes whole.
uint16_t vbucket_of_key(std::string_view key);

// The stored key of the logical key `logical` in collection `collection_id`: the inverse of
// the two above.
std::string stored_key_of(uint32_t collection_id, std::string_view logical);

}  // namespace tern::engine
