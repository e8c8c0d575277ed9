#pragma once
// Engine items and storage records, each way: what the flusher writes, and what warmup loads
// and a background fetch puts back under full eviction. Both share their metadata
// (DocumentMeta); what differs is only the expiry, kept here in both directions so that a key
// comes back as it was published whichever path reads it.

#include "engine/engine.h"
#include "engine/item.h"
#include "storage/store.h"

namespace tern::engine {

// The item for a record read from disk. A document keeps its metadata and expiry (turned back
// into a deadline on `engine`'s steady clock). A tombstone comes back with its purge time as
// its expiry (Item::expiry_ms): the deletion time the flusher stored plus
// Config::metadata_purge_seconds.
MutableItemPtr item_of_record(const Engine& engine, const storage::Record& record);

// The two halves of item_of_record: the record's expiry as an item's deadline
// (Item::expiry_ms, 0 for never), and the item with that deadline.
int64_t expiry_ms_of_record(const Engine& engine, const storage::Record& record);
MutableItemPtr item_of_record(const storage::Record& record, int64_t expiry_ms);

// The record the flusher stores for `item`: a view of its key and value, which the item must
// outlive. A document's expiry is in Unix seconds; a tombstone's is its deletion time (its
// purge time less Config::metadata_purge_seconds), which item_of_record turns back.
storage::Record record_of_item(const Engine& engine, const Item& item);

}  // namespace tern::engine
