#pragma once
// Validation of a request before its handler runs. Each check answers Success or the status
// to send back; none of them throws.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "commands/command_table.h"
#include "commands/features.h"
#include "commands/key_limits.h"
#include "protocol/frame.h"
#include "protocol/status.h"

namespace tern::commands {

// Extras length, key presence and length, value presence, datatype bits (Snappy only when
// negotiated; XATTR never, until extended attributes are supported).
protocol::Status check_shape(const CommandSpec& spec, const protocol::Frame& request,
                             const FeatureSet& features);

// What the frame infos of an alt request ask for, once they passed the checks.
struct FrameInfoRequests {
  bool preserve_ttl = false;
  Durability durability;
};

// The frame infos of an alt request, which needs AltRequestSupport (else Einval): a barrier
// is accepted (a parked request holds back later ones anyway, unless the client negotiated
// UnorderedExecution); a durability requirement (with SyncReplication, else NotSupported)
// only on a mutation, at a valid level (else DurabilityInvalidLevel), with or without a
// timeout (whether the bucket can honour the level is the dispatcher's to decide); preserve
// TTL (with PreserveTtl, else NotSupported) on a mutation that has a TTL to keep; anything
// else is refused.
protocol::Status check_frame_infos(const CommandSpec& spec, const protocol::Frame& request,
                                   const FeatureSet& features, FrameInfoRequests& requests);

// A document key as a request carries it.
struct DocumentKey {
  uint32_t collection_id = 0;
  std::string_view logical;  // without the collection prefix: what vbuckets are computed on
  std::string_view stored;   // what the bucket files it under (see Command::document_key)
};

// Decodes `wire_key`: with collections, a canonical LEB128 collection id then the key.
// Einval for a bad prefix, an empty key, or a key over its collection's limit.
//
// The stored key keeps collections apart in the bucket's one hash table, although a default
// collection's key may hold any bytes, including ones that spell another collection's id:
// - a default-collection key is stored as it is (no copy: what memcached clients and most
//   SDK requests send), unless it starts with 0x00;
// - any other key is stored behind a 0x00 byte: 0x00, LEB128 id, key for another collection
//   (the second byte is an id's first, never 0x00), and 0x00, key for a default one that
//   starts with 0x00 (the second byte is that 0x00).
// Those copies are made in `scratch`, which `out.stored` then points into.
protocol::Status decode_document_key(std::span<const uint8_t> wire_key, bool collections,
                                     DocumentKey& out, StoredKeyBuffer& scratch);

}  // namespace tern::commands
