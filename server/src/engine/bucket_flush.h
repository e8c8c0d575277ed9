#pragma once
// Flushing a whole bucket, as the FLUSH command and the management port's doFlush do: every
// document goes, from memory and, for a couchbase bucket, from disk (Persistence::flush).
// Whether a bucket may be flushed at all (its flushEnabled setting) is the caller's to check.

#include <chrono>
#include <functional>

#include "engine/bucket.h"

namespace tern::engine {

enum class FlushResult {
  Flushed,    // memory is empty of what was written before, and so is the disk
  NotWarm,    // a couchbase bucket still warming up: nothing flushed; try again later
  NotOnDisk,  // memory is flushed, but the disk's part was not written in time (the flusher
              // keeps retrying it) or the bucket stopped first: a crash may bring it back
};

// Flushes `bucket` and calls `done` once: at once for an ephemeral bucket (or NotWarm), else
// when the disk's part is synced, from the flusher's thread; it must not block. If the bucket
// stops first, `done` is destroyed uncalled.
void flush_bucket(Bucket& bucket, std::function<void(FlushResult)> done);

// The same, waiting up to `disk_wait` for the disk: for a thread that may block (the
// management port's), never a worker loop's.
FlushResult flush_bucket(Bucket& bucket,
                         std::chrono::milliseconds disk_wait = std::chrono::seconds(30));

}  // namespace tern::engine
