#pragma once
// A document version's metadata, wherever the version is kept: an engine item in memory
// (engine/item.h), a record on disk (storage/store.h), a record read back for warmup or a
// background fetch. Each of them is a DocumentMeta, so metadata moves between them in one
// assignment, and a field added here reaches every copy at once.
//
// The expiry is not here: each holder keeps it in its own terms (a deadline on the engine's
// steady clock in memory, Unix seconds on disk; for a tombstone its purge time in memory and
// its deletion time on disk), and only engine/record_item.h converts between them.

#include <cstdint>

namespace tern {

struct DocumentMeta {
  uint64_t cas = 0;
  // The seqno its vbucket gave the mutation that published this version (0 when the
  // mutation named no vbucket).
  uint64_t seqno = 0;
  // The key's revision: 1 when first stored, one more per mutation, carried on through a
  // tombstone when the key is stored again.
  uint64_t rev_seqno = 0;
  uint32_t flags = 0;
  // The vbucket of the mutation that published it: where a persistent bucket stores it.
  uint16_t vbucket = 0;
  uint8_t datatype = 0;
  // A tombstone: what a remove or an expiry leaves of the document (its key, metadata and
  // system extended attributes).
  bool deleted = false;

  friend bool operator==(const DocumentMeta&, const DocumentMeta&) = default;
};
static_assert(sizeof(DocumentMeta) == 32, "four words: an item header keeps its 56 bytes");

}  // namespace tern
