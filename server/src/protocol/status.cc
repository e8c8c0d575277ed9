#include "protocol/status.h"

namespace tern::protocol {

// Texts follow memcached's where it has one, so that its clients see familiar messages.
std::string_view status_text(Status status) {
  switch (status) {
    case Status::Success: return "Success";
    case Status::KeyEnoent: return "Not found";
    case Status::KeyEexists: return "Data exists for key.";
    case Status::E2big: return "Too large.";
    case Status::Einval: return "Invalid arguments";
    case Status::NotStored: return "Not stored.";
    case Status::DeltaBadval: return "Non-numeric server-side value for incr or decr";
    case Status::NotMyVbucket: return "I'm not responsible for this vbucket";
    case Status::NoBucket: return "No bucket selected";
    case Status::Locked: return "Locked";
    case Status::NotLocked: return "Not locked";
    case Status::AuthStale: return "Authentication stale";
    case Status::AuthError: return "Auth failure.";
    case Status::AuthContinue: return "Auth continue";
    case Status::Erange: return "Out of range";
    case Status::Eaccess: return "No access";
    case Status::NotInitialized: return "Not initialized";
    case Status::UnknownFrameInfo: return "Unknown frame info";
    case Status::UnknownCommand: return "Unknown command";
    case Status::Enomem: return "Out of memory";
    case Status::NotSupported: return "Not supported";
    case Status::Einternal: return "Internal error";
    case Status::Ebusy: return "Server too busy";
    case Status::Etmpfail: return "Temporary failure";
    case Status::UnknownCollection: return "Unknown collection";
    case Status::DurabilityInvalidLevel: return "Invalid durability level";
    case Status::DurabilityImpossible: return "Durability impossible";
  }
  return "Unknown error";
}

}  // namespace tern::protocol
