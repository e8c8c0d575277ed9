#pragma once
// Validation of a request before its handler runs. Each check answers Success or the status
// to send back; none of them throws.

#include <cstdint>
#include <span>
#include <string_view>

#include "commands/command_table.h"
#include "commands/features.h"
#include "protocol/frame.h"
#include "protocol/status.h"

namespace tern::commands {

// The longest key on the wire: 250 bytes of key, or with collections a prefix and a key
// that together fit 251.
inline constexpr size_t kMaxKeyLength = 250;
inline constexpr size_t kMaxPrefixedKeyLength = 251;
// The longest key in a collection other than the default one (its prefix takes more room).
inline constexpr size_t kMaxNonDefaultCollectionKeyLength = 246;

// Extras length, key presence and length, value presence, datatype bits (Snappy only when
// negotiated; XATTR never, until extended attributes are supported).
protocol::Status check_shape(const CommandSpec& spec, const protocol::Frame& request,
                             const FeatureSet& features);

// What the frame infos of an alt request ask for, once they passed the checks.
struct FrameInfoRequests {
  bool preserve_ttl = false;
};

// The frame infos of an alt request: a barrier is accepted (requests run in order anyway);
// a durability requirement only on a mutation and only at level majority, the one a single
// in-memory node can honour (the persisting levels are DurabilityImpossible); preserve TTL
// on a mutation that has a TTL to keep; anything else is refused.
protocol::Status check_frame_infos(const CommandSpec& spec, const protocol::Frame& request,
                                   FrameInfoRequests& requests);

// A document key as a request carries it.
struct DocumentKey {
  uint32_t collection_id = 0;
  std::string_view logical;  // without the collection prefix: what vbuckets are computed on
  std::string_view stored;   // what the bucket files it under (see Command::document_key)
};

// Decodes `wire_key`: with collections, a canonical LEB128 collection id then the key.
// Einval for a bad prefix, an empty key, or a key over its collection's limit.
protocol::Status decode_document_key(std::span<const uint8_t> wire_key, bool collections,
                                     DocumentKey& out);

}  // namespace tern::commands
