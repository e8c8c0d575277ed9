#pragma once
// The error map a client fetches with GET_ERROR_MAP (0xfe): for each status the server can
// send, a name, a description and attributes that tell a client which does not know the code
// what to do with it ("retry-now", "item-only", "fetch-config", ...). Clients that negotiated
// XERROR may be sent any status in it. Format version 2, the one the official SDKs ask for:
//
//   {"version":2,"revision":N,"errors":{"<lowercase hex, no 0x>":
//       {"name":"...","desc":"...","attrs":["...",...]}, ...}}
//
// Generated from testdata/mcbp/statuses.json (every Status has an entry); the revision lives
// there too and goes up whenever the table changes.

#include <string_view>

namespace tern::protocol {

// The whole version-2 map as compact JSON; built on the first call, then shared (thread-safe).
std::string_view error_map_json();

// The map's format version and revision, as in the JSON.
int error_map_version();
int error_map_revision();

}  // namespace tern::protocol
