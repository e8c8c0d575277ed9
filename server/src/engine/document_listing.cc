#include "engine/document_listing.h"

#include <algorithm>
#include <queue>

#include "engine/collection_key.h"
#include "engine/persistence_hooks.h"

namespace tern::engine {

std::vector<std::string> list_document_keys(Engine& engine, storage::Store* store,
                                            uint32_t collection_id, std::string_view after,
                                            size_t limit, int64_t unix_now_seconds) {
  std::vector<std::string> keys = engine.list_keys(collection_id, after, limit);
  if (store == nullptr || !engine.config().full_eviction || limit == 0) return keys;
  // The smallest keys on disk only, the largest on top; a record is looked up in memory only
  // when it would enter the page.
  std::priority_queue<std::string> on_disk;
  store->scan([&](const storage::Record& record) {
    if (record.deleted || record.key <= after ||
        (record.expiry != 0 && record.expiry <= unix_now_seconds) ||
        collection_of_key(record.key) != collection_id) {
      return true;
    }
    if (on_disk.size() == limit && record.key >= on_disk.top()) return true;
    if (!engine.persistence().on_disk_only(record.key))
      return true;  // memory knows the key: listed above
    if (on_disk.size() == limit) on_disk.pop();
    on_disk.emplace(record.key);
    return true;
  });
  for (; !on_disk.empty(); on_disk.pop()) keys.push_back(on_disk.top());
  // In order; a key is filed under one vbucket, but memory and disk may both have had it.
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  if (keys.size() > limit) keys.resize(limit);
  return keys;
}

}  // namespace tern::engine
