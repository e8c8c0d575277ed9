#pragma once
// A collection's document keys page by page, for the console's document browser: the keys in
// memory (Engine::list_keys) and, under full eviction, the keys whose documents are on disk
// only, read from the store.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "storage/store.h"

namespace tern::engine {

// Up to `limit` keys of live documents of collection `collection_id`, the first in byte
// order after `after`, in that order (Engine::list_keys). With a `store` (a persistent
// bucket's) and full eviction, keys the engine holds nothing of (PersistenceHooks::on_disk_only)
// are taken from the store's live records too: a whole scan of the store per page, so on a large
// bucket a page costs as much as reading its disk once. For a moment after a flush, until the
// flusher has cleared the disk, a flushed key may be listed; reading it answers not found.
// Throws storage::StoreError when the store cannot be read. For a thread that may block.
std::vector<std::string> list_document_keys(Engine& engine, storage::Store* store,
                                            uint32_t collection_id, std::string_view after,
                                            size_t limit, int64_t unix_now_seconds);

}  // namespace tern::engine
