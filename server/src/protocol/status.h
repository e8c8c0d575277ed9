#pragma once
// Response status codes (the 16-bit field at offset 6 of a response header).
//
// The list is generated from testdata/mcbp/statuses.json, which the .NET SDK reads too: each
// row gives the code, the enumerator's name, the text an error response carries as its value
// and the status's GET_ERROR_MAP entry (see protocol/error_map.h). To add a status, add a row
// there; the build regenerates protocol/status_table.inc.

#include <cstdint>
#include <string_view>

namespace tern::protocol {

enum class Status : uint16_t {
#define TERN_STATUS(name, code, text, map_name, map_desc, map_attrs) name = code,
#include "protocol/status_table.inc"
#undef TERN_STATUS
};

// The human-readable text sent as the value of an error response ("Not found", ...);
// "Unknown error" for a value that is no enumerator.
std::string_view status_text(Status status);

}  // namespace tern::protocol
