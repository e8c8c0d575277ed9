// HELLO, which negotiates the connection's features, and GET_ERROR_MAP, which tells a
// client what each status means and how to react to it.
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "commands/command.h"
#include "protocol/codec.h"
#include "protocol/error_map.h"
#include "protocol/datatype.h"

namespace tern::commands {

using protocol::Status;

namespace {

constexpr size_t kMaxAgentLength = 256;  // enough for the SDKs' {"a":...,"i":...} agent

}  // namespace

Outcome hello(const Command& cmd) {
  const auto codes_bytes = cmd.request.value;
  if (codes_bytes.size() % 2 != 0) {
    cmd.reply.error(Status::Einval);
    return Outcome::Continue;
  }
  std::vector<uint16_t> requested;
  requested.reserve(codes_bytes.size() / 2);
  for (size_t i = 0; i < codes_bytes.size(); i += 2) {
    requested.push_back(protocol::load_be16(codes_bytes.data() + i));
  }
  const std::vector<Feature> accepted = negotiate(requested);

  // Each HELLO starts from nothing: features not asked for again are off.
  Session& session = cmd.session;
  session.features.clear();
  std::vector<uint8_t> answer(accepted.size() * 2);
  std::string names;
  for (size_t i = 0; i < accepted.size(); ++i) {
    session.features.add(accepted[i]);
    protocol::store_be16(answer.data() + i * 2, static_cast<uint16_t>(accepted[i]));
    names += (i ? ", " : "") + std::string(feature_name(accepted[i]));
  }
  session.agent = std::string(Command::as_text(cmd.request.key).substr(0, kMaxAgentLength));
  spdlog::debug("{} ({}) HELLO: {}", session.peer, session.agent, names);
  cmd.reply.success(ReplyBody{.value = Command::as_text(answer)});
  return Outcome::Continue;
}

Outcome get_error_map(const Command& cmd) {
  // The value is the highest version the client reads; ternd's map is version 2, and a
  // version-2 reader also reads version 1 maps, so any version from 1 up gets it.
  if (cmd.request.value.size() != 2 || protocol::load_be16(cmd.request.value.data()) == 0) {
    cmd.reply.error(Status::Einval);
    return Outcome::Continue;
  }
  cmd.reply.success(ReplyBody{.value = protocol::error_map_json(), .datatype = protocol::datatype::kJson});
  return Outcome::Continue;
}

}  // namespace tern::commands
