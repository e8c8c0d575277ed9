#include "commands/dispatcher.h"

#include <exception>
#include <new>

#include <spdlog/spdlog.h>

#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/request_checks.h"

namespace tern::commands {

using protocol::Opcode;
using protocol::Status;

namespace {

// Why a request cannot run, or Success.
Status precheck(const CommandSpec* spec, const protocol::Frame& request) {
  if (!protocol::is_client_request_magic(request.magic)) return Status::Einval;
  if (spec == nullptr) return Status::UnknownCommand;
  const Status shape = check_shape(*spec, request);
  if (shape != Status::Success) return shape;
  return check_frame_infos(*spec, request);
}

}  // namespace

Dispatcher::Dispatcher(engine::Engine& engine, std::string version)
    : engine_(engine), version_(std::move(version)) {}

void Dispatcher::add_stat_provider(StatProvider& provider) { providers_.push_back(&provider); }

Outcome Dispatcher::execute(const protocol::Frame& request, std::vector<uint8_t>& out) {
  const Opcode loud = protocol::loud_variant(static_cast<Opcode>(request.opcode));
  const CommandSpec* spec = find_command(loud);
  Reply reply(request, out);
  const Status refused = precheck(spec, request);
  if (refused != Status::Success) {
    reply.error(refused);
    return Outcome::Continue;
  }
  const size_t answered = out.size();
  try {
    return spec->handler(Command{request, loud, engine_, reply, providers_, version_});
  } catch (const std::bad_alloc&) {
    out.resize(answered);
    reply.error(Status::Enomem);
  } catch (const std::exception& error) {
    spdlog::error("{} failed: {}", protocol::opcode_name(loud), error.what());
    out.resize(answered);
    reply.error(Status::Einternal);
  }
  return Outcome::Continue;
}

void Dispatcher::append_error(const protocol::Frame& request, Status status,
                              std::vector<uint8_t>& out) {
  Reply::append_error(request, status, out);
}

}  // namespace tern::commands
