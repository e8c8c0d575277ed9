#pragma once
// Where a persistent bucket keeps its vbuckets' failover logs: beside its records, in the
// store's metadata (Store::write_meta), with a mark that says whether the last run ended
// cleanly (everything queued written: Persistence::flush_before_exit).
//
// At start (Warmup), each vbucket takes back its stored log. After a clean shutdown that is
// all: every mutation token issued before stays current. After an unclean one (a crash, kill
// -9, power loss) what the old run acknowledged past the disk's high seqno may be gone, so
// each vbucket starts a new history there, as kv_engine does: a client holding a token of the
// old uuid learns from OBSERVE_SEQNO where that history ended. Then the logs are written back
// with the mark cleared, so that a crash from then on reads as unclean.

#include <cstdint>
#include <span>

#include "engine/vbucket.h"
#include "storage/store.h"

namespace tern::engine {

// Restores every vbucket's stored log, adds the new histories an unclean shutdown calls for,
// and writes the logs back with the mark cleared. Call once the vbuckets' high seqnos are
// restored, before they serve. Returns whether the last run ended cleanly (a store with no
// mark at all, a new one, counts as clean: it has no history to lose). Throws StoreError.
bool restore_failover_logs(storage::Store& store, std::span<VBucket> vbuckets);

// Writes every vbucket's log, and the mark of a clean shutdown when `clean` (call that only
// once everything queued is on disk, and nothing more will change). Throws StoreError.
void save_failover_logs(storage::Store& store, std::span<const VBucket> vbuckets, bool clean);

// Writes one vbucket's log (after its state changed: VBucket::set_state). Throws StoreError.
void save_failover_log(storage::Store& store, const VBucket& vbucket);

}  // namespace tern::engine
