#include "engine/status.h"

namespace tern::engine {

std::string_view status_name(Status status) {
  switch (status) {
    case Status::Success: return "Success";
    case Status::NotFound: return "NotFound";
    case Status::Exists: return "Exists";
    case Status::CasMismatch: return "CasMismatch";
    case Status::NotStored: return "NotStored";
    case Status::TooBig: return "TooBig";
    case Status::NotANumber: return "NotANumber";
    case Status::Locked: return "Locked";
    case Status::NotLocked: return "NotLocked";
    case Status::OutOfMemory: return "OutOfMemory";
    case Status::SyncWriteInProgress: return "SyncWriteInProgress";
    case Status::NotResident: return "NotResident";
    case Status::UnknownCollection: return "UnknownCollection";
  }
  return "Unknown";
}

}  // namespace tern::engine
