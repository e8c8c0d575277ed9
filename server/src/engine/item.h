#pragma once
// A stored document. Items are immutable once published: a mutation publishes a new item,
// so a reader holding an ItemPtr can keep using it after the key changes or goes away.

#include <cstdint>
#include <memory>
#include <string_view>

namespace tern::engine {

struct Item {
  virtual ~Item() = default;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  uint64_t cas = 0;
  // Absolute expiry on the engine's steady clock, in ms; 0 means never. For a tombstone:
  // when it may be purged (its deletion time plus Config::metadata_purge_seconds).
  int64_t expiry_ms = 0;
  // The key's revision: 1 when first stored, one more per mutation, carried on through a
  // tombstone when the key is stored again.
  uint64_t rev_seqno = 0;
  // The seqno its vbucket gave the mutation that published this item (0 when the mutation
  // named no vbucket: MutationOptions::vbucket).
  uint64_t seqno = 0;
  uint32_t flags = 0;
  // The vbucket of the mutation that published this item (MutationOptions::vbucket; 0 when
  // it named none): where a persistent bucket stores it.
  uint16_t vbucket = 0;
  uint8_t datatype = 0;
  // A tombstone: what a remove leaves of the document (key, metadata, and as its value only
  // the system extended attributes it had, xattr/blob.h), so that GET_META can report it
  // deleted and sub-document requests that ask for deleted documents can read and change
  // those attributes. Every other operation treats a tombstone as absent.
  bool deleted = false;
  // False for a document whose value was evicted (persistent buckets, value eviction): the
  // item keeps the key and metadata, value() is empty, and the value is on disk. Whether an
  // item is on disk is not kept here but told by its seqno (Engine::Impl::on_disk), so that
  // every copy of it (a lock's, a fetched one) knows as soon as the flusher is done.
  bool resident = true;
  // Full eviction (Config::full_eviction): not a document but a marker that the disk holds
  // no record of the key either, left by a background fetch so that the next operations
  // need not read the disk again. Also `deleted`, and hidden from every operation, which
  // treat the key as absent; the key's next change takes its place. Never on disk.
  bool absent = false;
};

using ItemPtr = std::shared_ptr<const Item>;

}  // namespace tern::engine
