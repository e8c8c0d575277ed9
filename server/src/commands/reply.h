#pragma once
// Encodes the responses to one request. Applies in one place the rules every answer
// follows:
// - quiet variants' silence: quiet mutations answer only errors; quiet retrievals (GETQ,
//   GETKQ, GATQ) stay silent on a miss and answer everything else;
// - the connection's features: statuses a client without XERROR does not know are mapped
//   down to classic ones; the JSON datatype bit is cleared for clients that did not ask for
//   JSON; with Tracing every answer carries the server's duration (magic 0x18);
// - mutations: with MutationSeqno a successful one's answer carries its vbucket's uuid and
//   its seqno as extras. The engine numbers the seqno (engine::MutationOptions::vbucket),
//   quiet mutations' too; the handler passes it on in ReplyBody::seqno.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "commands/features.h"
#include "engine/vbucket.h"
#include "protocol/frame.h"
#include "protocol/status.h"

namespace tern::commands {

// The variable parts of a response.
struct ReplyBody {
  std::span<const uint8_t> extras = {};
  std::string_view key = {};
  std::string_view value = {};
  uint8_t datatype = 0;
  uint64_t cas = 0;
  uint64_t seqno = 0;  // a mutation's, as the engine numbered it
};

// What the answers to one request depend on beyond the request itself.
struct ReplyContext {
  FeatureSet features;
  // Set for a mutation: the vbucket whose uuid its answer's token carries.
  engine::VBucket* mutated_vbucket = nullptr;
  // When the request was received (steady nanoseconds), for the Tracing frame.
  int64_t received_ns = 0;
  // How many times the request has been executed again after a wait (run_again() in
  // parked_request.h), so that a request whose wait never helps gives up.
  uint32_t runs_again = 0;
};

// Steady-clock nanoseconds: when a request was received, for the Tracing frame.
int64_t steady_ns();

// The classic-protocol status a client without XERROR gets for `status`.
protocol::Status classic_status(protocol::Status status);

class Reply {
 public:
  Reply(const protocol::Frame& request, std::vector<uint8_t>& out, const ReplyContext& context);

  // A success response, unless the request is a quiet mutation. `status` is Success or
  // another status that answers a request that ran (SubdocSuccessDeleted, or
  // SubdocMultiPathFailure for a lookup whose body holds each spec's status): the body and
  // a mutation's seqno go with it as with Success.
  void success(const ReplyBody& body = {}, protocol::Status status = protocol::Status::Success);

  // An error response: the status and its text, no CAS, no extras, no key. Silent for a
  // quiet retrieval's KeyEnoent.
  void error(protocol::Status status);

  // As error(), but the body is `key` instead of the status text (memcached's GETK miss).
  void error_with_key(protocol::Status status, std::string_view key);

  // As error(), but the body is JSON (a cluster map, an error context).
  void error_with_json(protocol::Status status, std::string_view json);

  // As error_with_json(), with the error context of an unknown collection or scope: the
  // manifest uid the answer was decided on, so the client knows whether to refresh.
  void error_with_manifest_uid(protocol::Status status, uint64_t manifest_uid);

  // A response whatever the quietness (each STAT pair).
  void append(protocol::Status status, const ReplyBody& body);

  // The request answered (as received, before any decompression) and what its answers
  // depend on: what a handler saves to answer later (parked_request.h).
  const protocol::Frame& request() const { return request_; }
  const ReplyContext& context() const { return context_; }

  // Appends an error response for `request` to `out`.
  static void append_error(const protocol::Frame& request, protocol::Status status,
                           std::vector<uint8_t>& out, const ReplyContext& context);

 private:
  bool silent(protocol::Status status) const;

  const protocol::Frame& request_;
  std::vector<uint8_t>& out_;
  const ReplyContext& context_;
};

}  // namespace tern::commands
