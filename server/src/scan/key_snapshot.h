#pragma once
// The keys a new range scan will return: what one vbucket's part of a collection holds when
// the scan is created, in key order. A scan then reads each document as it is when it gets
// there (range_scan.h), so a document written after the create is seen with its new value or,
// if it is new or was removed, not at all; never half, never twice.
//
// The keys in memory come from the vbucket's own shard of the engine, read in one go under its
// lock (Engine::for_each_live_item_of_vbucket, which says when it must visit every shard): a
// create costs the vbucket's documents, not the bucket's. Under full eviction the vbucket's part of the range is read from disk too
// (Store::scan_vbucket), for the keys memory holds nothing of. So it runs where a thread may
// block (an executor task).

#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "scan/scan_config.h"
#include "storage/store.h"

namespace tern::scan {

struct KeySnapshot {
  std::vector<std::string> keys;  // stored keys (engine/collection_key.h), in key order
  // Whether a document of the vbucket carries the seqno the scan requires to exist (only
  // looked for when the config has such a requirement).
  bool required_seqno_found = false;
};

// The keys of live documents of `config`'s collection filed under `vbucket` whose logical
// keys lie in `config`'s range (every one, for sampling; the sample is drawn later): those in
// `engine`'s memory and, under full eviction, those on disk only. `store`: the bucket's, or
// null for an ephemeral one; records expired by `unix_now_seconds` do not count. Throws
// storage::StoreError when the disk cannot be read.
KeySnapshot take_key_snapshot(engine::Engine& engine, storage::Store* store, uint16_t vbucket,
                              const ScanConfig& config, int64_t unix_now_seconds);

// Keeps `samples` of `keys`, drawn at random with `seed` (the same keys and seed draw the same
// sample), in key order; all of them when there are no more than `samples`, as kv_engine does.
void draw_sample(std::vector<std::string>& keys, uint64_t samples, uint64_t seed);

}  // namespace tern::scan
