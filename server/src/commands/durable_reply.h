#pragma once
// How every mutation answers its success, so that durable writes that wait for the disk are
// handled in one place. A mutation at level MajorityAndPersistToActive or PersistToMajority
// (Command::durability; only on a persistent bucket) was prepared by the engine
// (MutationOptions::prepare): numbered and queued for the flusher, but not yet visible. Its
// answer waits: the request is parked (parked_request.h) and the write is handed to the
// bucket's DurabilityMonitor with a deadline (the request's timeout, or kDefaultTimeoutMs).
// When the write's seqno is on disk the monitor commits it and the parked request gets the
// success answer it would have had at once (CAS, mutation token, a quiet variant's silence);
// if the deadline passes first it answers SyncWriteAmbiguous (the write still commits once
// persisted, so the client must read to learn its fate).

#include <cstdint>

#include "commands/command.h"
#include "commands/dispatcher.h"
#include "commands/reply.h"
#include "protocol/status.h"

namespace tern::commands {

// The deadline of a durable write whose request gives no timeout (or 0), as Couchbase's
// default durability timeout for a write that has none.
inline constexpr int64_t kDefaultDurabilityTimeoutMs = 30'000;

// Answers a mutation that succeeded with `body` (with its seqno) and `status`: at once, or
// for a write that waits for the disk, once it is persisted (returning WouldBlock). `cas` is
// the written item's CAS (the body may report another, e.g. 0 for a classic DELETE): the
// engine commits the prepared write by it. A handler returns what this returns.
Outcome succeed_mutation(const Command& cmd, uint64_t cas, const ReplyBody& body,
                         protocol::Status status = protocol::Status::Success);

}  // namespace tern::commands
