#pragma once
// Requests that need what the engine evicted. In a persistent bucket the item pager may
// drop a persisted document's value and keep only its key and metadata (value eviction), or
// under full eviction the whole document; an engine call that needs the value, or meets a key
// with nothing in memory, then answers NotResident and changes nothing (engine.h, "Value
// eviction", Config::full_eviction). Every handler hands such a failure to one function
// here, which queues a background fetch of the key from the vbucket it is filed under
// (Command::filed_vbucket; engine/bg_fetcher.h, on the Reader pool) and parks the request to
// run again once the key is back in memory (parked_request.h: run_again), so no worker thread
// waits for the disk. Running again may find the value evicted again (the pager ran meanwhile) and
// fetch again, at most kMaxFetchRetries times; after that, or where nothing can wait (an
// ephemeral bucket, a connection without a parker), the client is told to retry (Etmpfail).

#include <cstdint>

#include "commands/command.h"
#include "engine/status.h"

namespace tern::commands {

// How many times a request that ran again after a fetch may meet an evicted value again and
// fetch once more before it answers Etmpfail: a fetch that can never make the value resident
// must not loop forever.
inline constexpr uint32_t kMaxFetchRetries = 3;

// Answers a request whose engine call failed with `status`: NotResident fetches the value and
// parks the request to run again (returning WouldBlock), or answers Etmpfail as above; any
// other status answers to_wire(status). A handler returns what this returns.
Outcome answer_engine_failure(const Command& cmd, engine::Status status);

// The NotResident part of answer_engine_failure(), for handlers that answer other failures
// their own way (GETK's miss, sub-document reads).
Outcome fetch_and_run_again(const Command& cmd);

}  // namespace tern::commands
