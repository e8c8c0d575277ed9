#include "commands/engine_status.h"

namespace tern::commands {

protocol::Status to_wire(engine::Status status) {
  using engine::Status;
  using Wire = protocol::Status;
  switch (status) {
    case Status::Success: return Wire::Success;
    case Status::NotFound: return Wire::KeyEnoent;
    case Status::Exists: return Wire::KeyEexists;
    case Status::CasMismatch: return Wire::KeyEexists;
    case Status::NotStored: return Wire::NotStored;
    case Status::TooBig: return Wire::E2big;
    case Status::NotANumber: return Wire::DeltaBadval;
    case Status::Locked: return Wire::Locked;
    case Status::NotLocked: return Wire::NotLocked;
    case Status::OutOfMemory: return Wire::Enomem;
    case Status::SyncWriteInProgress: return Wire::SyncWriteInProgress;
    // Handlers fetch the value and run again (background_fetch.h); one that could not tells
    // the client to retry.
    case Status::NotResident: return Wire::Etmpfail;
    // Dropped between the dispatcher's check of the manifest and the engine's change.
    case Status::UnknownCollection: return Wire::UnknownCollection;
  }
  return Wire::Einternal;  // unreachable: every enumerator is mapped above
}

}  // namespace tern::commands
