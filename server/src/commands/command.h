#pragma once
// What a command handler gets, and the handlers of each command family. A handler runs only
// after the request's shape (extras length, key, value) has been validated against its
// command's rules, so it may read its extras without checking their length.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "commands/dispatcher.h"
#include "commands/reply.h"
#include "engine/engine.h"
#include "protocol/frame.h"
#include "protocol/opcode.h"

namespace tern::commands {

struct Command {
  const protocol::Frame& request;
  protocol::Opcode opcode;  // the loud variant: handlers need not tell SET from SETQ
  engine::Engine& engine;
  Reply& reply;
  std::span<StatProvider* const> stat_providers;
  std::string_view version;

  std::string_view key() const { return as_text(request.key); }
  std::string_view value() const { return as_text(request.value); }
  const uint8_t* extras() const { return request.extras.data(); }
  bool has_extras() const { return !request.extras.empty(); }

  static std::string_view as_text(std::span<const uint8_t> bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
};

// GET, GETK, GAT, GET_LOCKED (and quiet variants); TOUCH; UNLOCK_KEY.
Outcome get(const Command& cmd);
Outcome get_and_touch(const Command& cmd);
Outcome get_locked(const Command& cmd);
Outcome touch(const Command& cmd);
Outcome unlock(const Command& cmd);

// SET, ADD, REPLACE, APPEND, PREPEND, DELETE, FLUSH (and quiet variants).
Outcome store(const Command& cmd);
Outcome concat(const Command& cmd);
Outcome remove(const Command& cmd);
Outcome flush(const Command& cmd);

// INCREMENT, DECREMENT (and quiet variants).
Outcome arithmetic(const Command& cmd);

// NOOP, VERSION, QUIT(Q), STAT.
Outcome noop(const Command& cmd);
Outcome version(const Command& cmd);
Outcome quit(const Command& cmd);
Outcome stat(const Command& cmd);

}  // namespace tern::commands
