#pragma once
// Validation of a request before its handler runs. Each check answers Success or the status
// to send back; none of them throws.

#include "commands/command_table.h"
#include "protocol/frame.h"
#include "protocol/status.h"

namespace tern::commands {

inline constexpr size_t kMaxKeyLength = 250;

// Extras length, key presence and length, value presence, datatype bits.
protocol::Status check_shape(const CommandSpec& spec, const protocol::Frame& request);

// The frame infos of an alt request: a barrier is accepted (requests run in order anyway);
// a durability requirement only on a mutation and only at level majority, the one a single
// in-memory node can honour; anything else is refused.
protocol::Status check_frame_infos(const CommandSpec& spec, const protocol::Frame& request);

}  // namespace tern::commands
