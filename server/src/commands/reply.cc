#include "commands/reply.h"

#include <array>
#include <chrono>

#include <fmt/format.h>

#include "protocol/codec.h"
#include "protocol/opcode.h"
#include "protocol/server_duration.h"
#include "protocol/datatype.h"

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

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status classic_status(Status status) {
  switch (status) {
    case Status::Success:
    case Status::KeyEnoent:
    case Status::KeyEexists:
    case Status::E2big:
    case Status::Einval:
    case Status::NotStored:
    case Status::DeltaBadval:
    case Status::NotMyVbucket:
    case Status::NoBucket:
    case Status::AuthError:
    case Status::AuthContinue:
    case Status::Erange:
    case Status::UnknownCommand:
    case Status::Enomem:
    case Status::NotSupported:
    case Status::Einternal:
    case Status::Ebusy:
    case Status::Etmpfail:
      return status;
    // As Couchbase maps them for clients that predate XERROR.
    case Status::Locked: return Status::KeyEexists;
    case Status::NotLocked: return Status::Etmpfail;
    case Status::Eaccess: return Status::AuthError;
    case Status::SyncWriteInProgress: return Status::Etmpfail;
    case Status::SyncWriteReCommitInProgress: return Status::Etmpfail;
    default: break;
  }
  // The sub-document statuses predate XERROR: a client that sends sub-document commands
  // knows them, and Couchbase sends them as they are (it remaps only engine errors).
  const auto code = static_cast<uint16_t>(status);
  if (code >= static_cast<uint16_t>(Status::SubdocPathEnoent) &&
      code <= static_cast<uint16_t>(Status::SubdocInvalidXattrOrder)) {
    return status;
  }
  return Status::Einval;
}

Reply::Reply(const protocol::Frame& request, std::vector<uint8_t>& out,
             const ReplyContext& context)
    : request_(request), out_(out), context_(context) {}

bool Reply::silent(Status status) const {
  const auto op = static_cast<Opcode>(request_.opcode);
  if (!protocol::is_quiet(op)) return false;
  if (is_quiet_retrieval(op)) return status == Status::KeyEnoent;
  return status == Status::Success;
}

void Reply::success(const ReplyBody& body, Status status) {
  if (silent(Status::Success)) return;
  if (context_.mutated_vbucket == nullptr || !context_.features.has(Feature::MutationSeqno)) {
    append(status, body);
    return;
  }
  // The token names the mutation: this history of its vbucket, and the seqno the engine
  // gave it.
  uint8_t token[16];
  protocol::store_be64(token, context_.mutated_vbucket->uuid());
  protocol::store_be64(token + 8, body.seqno);
  ReplyBody with_token = body;
  with_token.extras = token;
  append(status, with_token);
}

void Reply::error(Status status) {
  if (silent(status)) return;
  // The text of the status the client will see, not of the one it cannot read.
  const Status sent = context_.features.has(Feature::Xerror) ? status : classic_status(status);
  append(sent, ReplyBody{.value = protocol::status_text(sent)});
}

void Reply::error_with_manifest_uid(Status status, uint64_t manifest_uid) {
  error_with_json(status, fmt::format(R"({{"manifest_uid":"{:x}"}})", manifest_uid));
}

void Reply::error_with_key(Status status, std::string_view key) {
  if (!silent(status)) append(status, ReplyBody{.key = key});
}

void Reply::error_with_json(Status status, std::string_view json) {
  if (!silent(status)) append(status, ReplyBody{.value = json, .datatype = protocol::datatype::kJson});
}

void Reply::append(Status status, const ReplyBody& body) {
  const FeatureSet& features = context_.features;
  protocol::FrameParts parts;
  parts.magic = static_cast<uint8_t>(protocol::Magic::ClientResponse);
  parts.opcode = request_.opcode;
  parts.datatype = features.has(Feature::Json) ? body.datatype : body.datatype & ~protocol::datatype::kJson;
  if (!features.has(Feature::Xerror)) status = classic_status(status);
  parts.vbucket_or_status = static_cast<uint16_t>(status);
  parts.opaque = request_.opaque;
  parts.cas = body.cas;
  parts.extras = body.extras;
  parts.key = bytes_of(body.key);
  parts.value = bytes_of(body.value);
  std::array<uint8_t, 3> duration_frame;
  if (features.has(Feature::Tracing)) {
    const int64_t micros = (steady_ns() - context_.received_ns) / 1000;
    duration_frame = protocol::server_duration_frame(micros > 0 ? micros : 0);
    parts.magic = static_cast<uint8_t>(protocol::Magic::AltClientResponse);
    parts.framing_extras = duration_frame;
  }
  protocol::append_frame(parts, out_);
}

void Reply::append_error(const protocol::Frame& request, Status status,
                         std::vector<uint8_t>& out, const ReplyContext& context) {
  Reply(request, out, context).append(status, ReplyBody{.value = protocol::status_text(status)});
}

}  // namespace tern::commands
