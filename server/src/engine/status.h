#pragma once
// What an engine operation achieved, in the engine's own terms. The engine knows nothing of
// the wire: commands/engine_status.h maps each outcome to the status a client is sent, in
// one place, so the engine can be reused behind another protocol and its tests read as
// engine behaviour ("NotFound", not "KeyEnoent").

#include <cstdint>
#include <string_view>

namespace tern::engine {

enum class Status : uint8_t {
  Success,
  NotFound,     // no live document: never stored, removed, expired or flushed
  Exists,       // ADD of a key that has a live document
  CasMismatch,  // the request's CAS is not the document's
  NotStored,    // APPEND/PREPEND to a missing document
  TooBig,       // the value would exceed Config::max_item_size
  NotANumber,   // INCREMENT/DECREMENT of a value that is not a counter (counter_value.h)
  Locked,       // the document is locked and the request lacks the lock's CAS
  NotLocked,    // UNLOCK of a document that is not locked
  OutOfMemory,  // the change does not fit in the memory quota, even after eviction
  // A durable write of the key waits for persistence (MutationOptions::prepare); no other
  // mutation of the key may run until it is committed.
  SyncWriteInProgress,
  // Persistent buckets: the document's value was evicted (its key and metadata are in
  // memory) and the operation needs it. Nothing was changed: fetch the value from disk
  // (BgFetcher) and retry.
  NotResident,
  // The key's collection is no longer in the bucket's manifest (CollectionHooks::set_manifest).
  UnknownCollection,
};

// The enumerator's name ("NotFound"), for logs and test messages.
std::string_view status_name(Status status);

}  // namespace tern::engine
