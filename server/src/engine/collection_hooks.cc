// What a bucket's collections manifest means for the engine's keys: writes to a dropped
// collection refused, its keys purged, and each collection's maxTTL applied to writes.

#include <vector>

#include "cluster/collections_manifest.h"
#include "engine/collection_key.h"
#include "engine/engine.h"
#include "engine/engine_impl.h"

namespace tern::engine {

void CollectionHooks::set_manifest(const cluster::CollectionsManifest* manifest) {
  impl_->manifest.store(manifest, std::memory_order_release);
}

bool CollectionHooks::has_collection_of(std::string_view key) const {
  return !impl_->collection_gone(key);
}

size_t CollectionHooks::purge_dropped_collections(size_t shard_index) {
  if (shard_index >= impl_->shard_count) return 0;
  Shard& shard = impl_->shards[shard_index];
  std::vector<ItemPtr> purged;  // destroyed after the lock is released
  size_t dropped_prepared = 0;
  {
    MutexLock lock(shard.mutex);
    // The whole shard under one hold: a sweep that let go between chunks could miss an item
    // that a removal elsewhere moved back past it (HashTable::erase). A shard is a 256th of
    // the bucket, so the hold stays short.
    for (size_t i = 0; i < shard.table.capacity();) {
      const Slot& slot = shard.table.at(i);
      if (slot.item && impl_->collection_gone(slot.item->key())) {
        impl_->remove_slot(shard, i, purged.emplace_back());  // i holds the next one now
        continue;
      }
      ++i;
    }
    for (auto it = shard.prepared.begin(); it != shard.prepared.end();) {
      if (impl_->collection_gone(it->first)) {
        impl_->mem_used.fetch_sub(item_charge(*it->second), std::memory_order_relaxed);
        impl_->hold_if_queued(*it->second);
        purged.push_back(std::move(it->second));  // the key the entry views dies with it
        it = shard.prepared.erase(it);
        ++dropped_prepared;
      } else {
        ++it;
      }
    }
  }
  impl_->prepared_count.fetch_sub(dropped_prepared, std::memory_order_relaxed);
  return purged.size() - dropped_prepared;
}

void CollectionHooks::purge_dropped_key(std::string_view key, bool on_disk_document) {
  ItemPtr purged;  // destroyed after the lock is released
  KeyAccess access(*impl_, key);
  Shard& shard = access.shard();
  shard.mutex.assert_held();  // KeyAccess holds it
  if (access.occupant() != nullptr) {
    impl_->remove_slot(shard, access.index(), purged);
  } else if (on_disk_document && impl_->full_eviction && shard.evicted_documents > 0) {
    --shard.evicted_documents;
  }
}

int64_t Engine::write_deadline_ms(std::string_view key, uint32_t expiry) const {
  const int64_t deadline = expiry_deadline_ms(expiry);
  uint32_t max_ttl = impl_->max_ttl_seconds.load(std::memory_order_relaxed);
  const cluster::CollectionsManifest* manifest = impl_->manifest.load(std::memory_order_acquire);
  if (manifest != nullptr && manifest->has_max_ttls()) {
    const std::optional<uint32_t> collection = collection_of_key(key);
    const uint32_t own = collection ? manifest->max_ttl_of(*collection) : 0;
    if (own != 0) max_ttl = own;
  }
  if (max_ttl == 0) return deadline;
  const int64_t longest = impl_->clock.steady_ms() + int64_t{max_ttl} * 1000;
  return deadline == 0 || deadline > longest ? longest : deadline;
}

}  // namespace tern::engine
