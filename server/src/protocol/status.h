#pragma once
// Response status codes (the 16-bit field at offset 6 of a response header).

#include <cstdint>
#include <string_view>

namespace tern::protocol {

enum class Status : uint16_t {
  Success = 0x00,
  KeyEnoent = 0x01,
  KeyEexists = 0x02,
  E2big = 0x03,
  Einval = 0x04,
  NotStored = 0x05,
  DeltaBadval = 0x06,
  NotMyVbucket = 0x07,
  NoBucket = 0x08,
  Locked = 0x09,
  NotLocked = 0x0e,
  AuthStale = 0x1f,
  AuthError = 0x20,
  AuthContinue = 0x21,
  Erange = 0x22,
  Eaccess = 0x24,
  NotInitialized = 0x25,
  UnknownFrameInfo = 0x80,
  UnknownCommand = 0x81,
  Enomem = 0x82,
  NotSupported = 0x83,
  Einternal = 0x84,
  Ebusy = 0x85,
  Etmpfail = 0x86,
  UnknownCollection = 0x88,
  DurabilityInvalidLevel = 0xa0,
  DurabilityImpossible = 0xa1,
};

// The human-readable text sent as the value of an error response ("Not found", ...).
std::string_view status_text(Status status);

}  // namespace tern::protocol
