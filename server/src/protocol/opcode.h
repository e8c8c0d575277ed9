#pragma once
// Opcodes of the memcached binary protocol with Couchbase extensions.

#include <cstdint>
#include <string_view>

namespace tern::protocol {

enum class Opcode : uint8_t {
  Get = 0x00,
  Set = 0x01,
  Add = 0x02,
  Replace = 0x03,
  Delete = 0x04,
  Increment = 0x05,
  Decrement = 0x06,
  Quit = 0x07,
  Flush = 0x08,
  GetQ = 0x09,
  Noop = 0x0a,
  Version = 0x0b,
  GetK = 0x0c,
  GetKQ = 0x0d,
  Append = 0x0e,
  Prepend = 0x0f,
  Stat = 0x10,
  SetQ = 0x11,
  AddQ = 0x12,
  ReplaceQ = 0x13,
  DeleteQ = 0x14,
  IncrementQ = 0x15,
  DecrementQ = 0x16,
  QuitQ = 0x17,
  FlushQ = 0x18,
  AppendQ = 0x19,
  PrependQ = 0x1a,
  Touch = 0x1c,
  Gat = 0x1d,
  GatQ = 0x1e,
  Hello = 0x1f,
  SaslListMechs = 0x20,
  SaslAuth = 0x21,
  SaslStep = 0x22,
  SelectBucket = 0x89,
  GetLocked = 0x94,
  UnlockKey = 0x95,
  GetClusterConfig = 0xb5,
  GetCollectionId = 0xbb,
  GetErrorMap = 0xfe,
};

// True for the quiet variants, which answer only on error (GetQ/GetKQ/GatQ: only on a hit).
bool is_quiet(Opcode op);

// The loud opcode a quiet one is a variant of; other opcodes map to themselves.
Opcode loud_variant(Opcode op);

// A name for logs and stats ("GET", "SETQ", ...); "UNKNOWN" for unassigned values.
std::string_view opcode_name(Opcode op);

}  // namespace tern::protocol
