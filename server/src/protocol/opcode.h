#pragma once
// Opcodes of the memcached binary protocol with Couchbase extensions.
//
// Both lists are generated from testdata/mcbp/opcodes.json, which the .NET SDK reads too:
// `requests` gives each client request opcode (magics 0x80 and 0x08) its enumerator, its name
// for logs and, for a quiet variant, the loud opcode it is a variant of; `server_requests`
// gives the opcodes of requests the server sends to a client (magic 0x82, answered with
// 0x83). To add an opcode, add a row there; the build regenerates protocol/*opcode_table.inc.

#include <cstdint>
#include <string_view>

namespace tern::protocol {

enum class Opcode : uint8_t {
#define TERN_OPCODE(name, code, log_name, loud) name = code,
#include "protocol/opcode_table.inc"
#undef TERN_OPCODE
};

// Opcodes of server-initiated requests (magic 0x82); a separate space from Opcode's.
enum class ServerOpcode : uint8_t {
#define TERN_OPCODE(name, code, log_name, loud) name = code,
#include "protocol/server_opcode_table.inc"
#undef TERN_OPCODE
};

// True for the quiet variants, which answer only on error (GetQ/GetKQ/GatQ: only on a hit).
bool is_quiet(Opcode op);

// The loud opcode a quiet one is a variant of; other opcodes map to themselves.
Opcode loud_variant(Opcode op);

// A name for logs and stats ("GET", "SETQ", ...); "UNKNOWN" for unassigned values.
std::string_view opcode_name(Opcode op);

// The same for server-initiated requests ("CLUSTERMAP_CHANGE_NOTIFICATION", ...).
std::string_view server_opcode_name(ServerOpcode op);

}  // namespace tern::protocol
