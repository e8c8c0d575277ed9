#pragma once
// The one place an engine outcome becomes a wire status. The engine speaks engine::Status;
// every command that reports an engine result answers with to_wire(result.status), so a
// client sees the same status for the same outcome whichever command produced it.

#include "engine/status.h"
#include "protocol/status.h"

namespace tern::commands {

// Success -> Success, NotFound -> KeyEnoent, Exists and CasMismatch -> KeyEexists (the
// protocol does not tell them apart), NotStored -> NotStored, TooBig -> E2big, NotANumber
// -> DeltaBadval, Locked -> Locked, NotLocked -> NotLocked, OutOfMemory -> Enomem,
// SyncWriteInProgress -> SyncWriteInProgress, NotResident -> Etmpfail (it should never reach
// the wire: handlers fetch the value, background_fetch.h).
protocol::Status to_wire(engine::Status status);

}  // namespace tern::commands
