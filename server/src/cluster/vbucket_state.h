#pragma once
// A vbucket's state on this node. Only an Active vbucket serves reads and writes; a request
// for any other answers NotMyVbucket with the current cluster map.
//
// The numbers are the wire values of SET_VBUCKET (0x3d) and GET_VBUCKET (0x3e), the same as
// kv_engine's vbucket_state_t. SET_VBUCKET comes in three encodings, all of which kv_engine
// accepts (parse_set_vbucket below does the same):
//   1. extras = the state as 1 byte; the value is empty (datatype raw) or a JSON object
//      (datatype JSON) with optional settings such as the replication "topology" (Couchbase
//      Server 6.5 and later; what ns_server sends today);
//   2. extras = the state as a big-endian u32, no value, datatype raw (before 6.5);
//   3. no extras, value = the state as a big-endian u32, datatype raw (old ns_server).
// The key is always empty and the vbucket is the header's. GET_VBUCKET answers the state as a
// big-endian u32 value.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace tern::cluster {

enum class VBucketState : uint8_t { Active = 1, Replica = 2, Pending = 3, Dead = 4 };

// "active", "replica", "pending", "dead" (as in stats and logs); "unknown" for other values.
std::string_view vbucket_state_name(VBucketState state);

// The inverse of vbucket_state_name; nullopt for any other text.
std::optional<VBucketState> vbucket_state_from_name(std::string_view name);

// The state with this wire value; nullopt unless 1-4.
std::optional<VBucketState> vbucket_state_from_wire(uint32_t value);

// A SET_VBUCKET request's body, decoded.
struct SetVBucketRequest {
  VBucketState state;
  std::string_view json;  // encoding 1's optional JSON value (points into the request); else empty
};

// Decodes a SET_VBUCKET request's extras and value under the three encodings above; nullopt
// when they match none (this includes a JSON value whose datatype lacks the JSON bit) or the
// state is not 1-4. The JSON itself is not checked here.
std::optional<SetVBucketRequest> parse_set_vbucket(std::span<const uint8_t> extras,
                                                   std::span<const uint8_t> value,
                                                   uint8_t datatype);

}  // namespace tern::cluster
