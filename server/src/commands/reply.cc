#include "commands/reply.h"

#include "protocol/codec.h"
#include "protocol/opcode.h"

namespace tern::commands {

using protocol::Opcode;
using protocol::Status;

namespace {

std::span<const uint8_t> bytes_of(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

bool is_quiet_retrieval(Opcode op) {
  return op == Opcode::GetQ || op == Opcode::GetKQ || op == Opcode::GatQ;
}

}  // namespace

Reply::Reply(const protocol::Frame& request, std::vector<uint8_t>& out)
    : request_(request), out_(out) {}

bool Reply::silent(Status status) const {
  const auto op = static_cast<Opcode>(request_.opcode);
  if (!protocol::is_quiet(op)) return false;
  if (is_quiet_retrieval(op)) return status == Status::KeyEnoent;
  return status == Status::Success;
}

void Reply::success(const ReplyBody& body) {
  if (!silent(Status::Success)) append(Status::Success, body);
}

void Reply::error(Status status) {
  if (!silent(status)) append(status, ReplyBody{.value = protocol::status_text(status)});
}

void Reply::error_with_key(Status status, std::string_view key) {
  if (!silent(status)) append(status, ReplyBody{.key = key});
}

void Reply::append(Status status, const ReplyBody& body) {
  protocol::FrameParts parts;
  parts.magic = static_cast<uint8_t>(protocol::Magic::ClientResponse);
  parts.opcode = request_.opcode;
  parts.datatype = body.datatype;
  parts.vbucket_or_status = static_cast<uint16_t>(status);
  parts.opaque = request_.opaque;
  parts.cas = body.cas;
  parts.extras = body.extras;
  parts.key = bytes_of(body.key);
  parts.value = bytes_of(body.value);
  protocol::append_frame(parts, out_);
}

void Reply::append_error(const protocol::Frame& request, Status status,
                         std::vector<uint8_t>& out) {
  Reply(request, out).append(status, ReplyBody{.value = protocol::status_text(status)});
}

}  // namespace tern::commands
