#pragma once
// What a bucket's collections mean for the engine's keys: a key belongs to a collection by its
// prefix (collection_key.h), and the keys of a dropped collection are gone at once, then
// purged from memory and disk in the background (collection_purger.h).
//
// One of the engine's jobs, an interface of its own (Engine::collections()) over the same documents
// and locks as the key-value operations (engine.h): every method is thread-safe, and the
// engine's rules (engine.h's top comment) hold for them too.

#include <cstddef>
#include <string_view>

#include "engine/engine.h"

namespace tern::engine {

class CollectionHooks : private EngineJob {
 public:
  // Makes `manifest` the engine's (a Bucket sets each manifest it publishes; it must outlive
  // the engine). From then on a key whose collection the manifest lacks is gone: a mutation
  // of it answers UnknownCollection and changes nothing, a durable write of it pending is
  // dropped rather than committed, a background fetch of it puts nothing in memory, and
  // eviction leaves it to purge_dropped_collections(). A write's expiry follows its
  // collection's maxTTL, or the bucket's (Config::max_ttl_seconds). Null (the default): no
  // key is gone, and only the bucket's maxTTL applies.
  void set_manifest(const cluster::CollectionsManifest* manifest);

  // Whether the key belongs to a collection of the manifest (always, with none set).
  bool has_collection_of(std::string_view key) const;

  // Removes from one shard, under its lock, every item, tombstone, absent marker and pending
  // durable write of a key whose collection is gone: no tombstone, nothing queued for the
  // disk (the store deletes the collection's records itself). Memory and item counts follow.
  // Returns the items and tombstones removed.
  size_t purge_dropped_collections(size_t shard);

  // For a key of a gone collection whose record the store is deleting (`on_disk_document`:
  // the record is a live document): removes what memory holds of it, or, when memory holds
  // nothing (full eviction), stops counting the document that was on disk only.
  void purge_dropped_key(std::string_view key, bool on_disk_document);

 private:
  friend struct EngineImpl;
  using EngineJob::EngineJob;
};

}  // namespace tern::engine
