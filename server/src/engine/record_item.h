#pragma once
// The engine item for a record read from disk, as it was published: what warmup loads and
// what a background fetch puts back under full eviction. One conversion for both, so that a
// key comes back the same whichever path reads it.

#include <memory>

#include "engine/engine.h"
#include "engine/item.h"
#include "storage/store.h"

namespace tern::engine {

// A document keeps its CAS, seqnos, flags, vbucket, datatype and expiry (turned back into a
// deadline on `engine`'s steady clock). A tombstone comes back with its purge time as its
// expiry (Item::expiry_ms): the deletion time the flusher stored plus
// Config::metadata_purge_seconds.
MutableItemPtr item_of_record(const Engine& engine, const storage::Record& record);

}  // namespace tern::engine
