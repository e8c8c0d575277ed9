#include "commands/dispatcher.h"

#include <exception>
#include <new>

#include <snappy.h>
#include <spdlog/spdlog.h>

#include "commands/command.h"
#include "commands/command_results.h"
#include "commands/command_table.h"
#include "commands/node.h"
#include "commands/parked_request.h"
#include "commands/request_checks.h"
#include "commands/session.h"
#include "cluster/vbucket_of.h"
#include "protocol/datatype.h"
#include "subdoc/request.h"

namespace tern::commands {

using protocol::Opcode;
using protocol::Status;

namespace {

// Why a request cannot run, or Success.
Status precheck(const CommandSpec* spec, const protocol::Frame& request, const Session& session,
                FrameInfoRequests& frame_requests) {
  if (!protocol::is_client_request_magic(request.magic)) return Status::Einval;
  if (spec == nullptr) return Status::UnknownCommand;
  const Status shape = check_shape(*spec, request, session.features);
  if (shape != Status::Success) return shape;
  const Status infos = check_frame_infos(*spec, request, session.features, frame_requests);
  if (infos != Status::Success) return infos;
  // The bucket's durabilityMinLevel raises what a mutation asked for.
  if (spec->is_mutation && session.bucket != nullptr &&
      session.bucket->min_durability_level() > frame_requests.durability.level) {
    frame_requests.durability.level = session.bucket->min_durability_level();
  }
  // The persisting levels need a disk, and a connection whose requests can wait for it.
  if (frame_requests.durability.waits_for_disk() &&
      (session.bucket == nullptr || session.bucket->persistence() == nullptr ||
       session.parker == nullptr)) {
    return Status::DurabilityImpossible;
  }
  return Status::Success;
}

// Whether the session may send a command with this access rule (Success), or why not.
Status check_access(Access access, const Session& session) {
  switch (access) {
    case Access::Anyone:
      return Status::Success;
    case Access::Authenticated:
      return session.authenticated() || session.bucket != nullptr ? Status::Success
                                                                  : Status::Eaccess;
    case Access::Admin:
      return session.admin() ? Status::Success : Status::Eaccess;
    case Access::Bucket:
    case Access::Document:
    case Access::ReplicaDocument:
      if (session.bucket != nullptr) return Status::Success;
      return session.authenticated() ? Status::NoBucket : Status::Eaccess;
  }
  return Status::Eaccess;
}

// The vbucket a document command's key is filed under. A persistent bucket files each
// document under the vbucket its key hashes to, whatever the request named: memcached clients
// send every key on vbucket 0, and a key filed under two vbuckets would leave two records on
// disk, the older of which a restart could bring back once the newer one's tombstone is
// purged. Mutations number their seqnos on it, and a background fetch reads the key from it.
// An ephemeral bucket files nothing: the request's vbucket serves.
uint16_t filed_vbucket_of(engine::Bucket& bucket, const DocumentKey& key, uint16_t requested) {
  if (bucket.persistence() == nullptr) return requested;
  return cluster::vbucket_of(key.logical, cluster::kVBucketCount);
}

// Decompresses a Snappy value into the session's scratch buffer and points `request` at it.
Status inflate_value(protocol::Frame& request, Session& session, size_t max_item_size) {
  const auto* compressed = reinterpret_cast<const char*>(request.value.data());
  size_t length = 0;
  if (!snappy::GetUncompressedLength(compressed, request.value.size(), &length)) {
    return Status::Einval;
  }
  if (length > max_item_size) return Status::E2big;
  session.inflated.resize(length);
  if (!snappy::RawUncompress(compressed, request.value.size(),
                             reinterpret_cast<char*>(session.inflated.data()))) {
    return Status::Einval;
  }
  request.value = session.inflated;
  request.datatype &= ~protocol::datatype::kSnappy;
  return Status::Success;
}

// What a document command does to its collection, for kv_collection_ops.
metrics::CollectionOp collection_op(const CommandSpec& spec) {
  if (spec.opcode == Opcode::Delete) return metrics::CollectionOp::Delete;
  return spec.is_mutation ? metrics::CollectionOp::Store : metrics::CollectionOp::Get;
}

// Counts an answered request in its bucket's command statistics (a parked one counts when it
// runs again and answers, or when its completion answers it: count_parked_answer()). An
// unknown opcode is not counted: they would all be shown as one, "UNKNOWN".
void record_command(uint8_t opcode, const Session& session, std::span<const uint8_t> answers,
                    Outcome outcome, int64_t received_ns) {
  if (outcome == Outcome::WouldBlock || session.bucket == nullptr) return;
  if (find_command(protocol::loud_variant(static_cast<Opcode>(opcode))) == nullptr) return;
  const int64_t elapsed = steady_ns() - received_ns;
  session.bucket->command_stats().record(opcode, elapsed > 0 ? static_cast<uint64_t>(elapsed) : 0,
                                         static_cast<size_t>(command_result(opcode, answers)));
}

}  // namespace

void count_parked_answer(const ParkedRequest& parked, const Session& session,
                         std::span<const uint8_t> answers) {
  record_command(parked.request().opcode, session, answers, Outcome::Continue,
                 parked.context().received_ns);
}

Dispatcher::Dispatcher(Node& node) : node_(node) {}

void Dispatcher::add_stat_provider(StatProvider& provider) { providers_.push_back(&provider); }

Outcome Dispatcher::execute(const protocol::Frame& received, Session& session,
                            std::vector<uint8_t>& out) {
  // Every request is timed, for its bucket's latency histogram (and the Tracing frame).
  ReplyContext context{.features = session.features, .received_ns = steady_ns()};
  const size_t answered = out.size();
  const Outcome outcome = run(received, session, out, context);
  record_command(received.opcode, session, std::span(out).subspan(answered), outcome,
                 context.received_ns);
  return outcome;
}

Outcome Dispatcher::execute_again(const ParkedRequest& parked, Session& session,
                                  std::vector<uint8_t>& out) {
  // Checked against the session as it is now: without UnorderedExecution nothing ran since.
  ReplyContext context{.features = session.features,
                       .received_ns = parked.context().received_ns,
                       .runs_again = parked.context().runs_again + 1};
  if (context.received_ns == 0) context.received_ns = steady_ns();
  const size_t answered = out.size();
  const Outcome outcome = run(parked.request(), session, out, context);
  record_command(parked.request().opcode, session, std::span(out).subspan(answered), outcome,
                 context.received_ns);
  return outcome;
}

Outcome Dispatcher::run(const protocol::Frame& received, Session& session,
                        std::vector<uint8_t>& out, ReplyContext context) {
  // A bucket dropped over the management port: Couchbase closes its connections, and
  // clients then see the bucket gone when they select it again.
  if (session.bucket != nullptr && session.bucket->dropped()) {
    session.bucket.reset();
    return Outcome::Close;
  }
  const Opcode loud = protocol::loud_variant(static_cast<Opcode>(received.opcode));
  const CommandSpec* spec = find_command(loud);
  Reply reply(received, out, context);

  FrameInfoRequests frame_requests;
  Status refused = precheck(spec, received, session, frame_requests);
  if (refused == Status::Success) refused = check_access(spec->access, session);
  if (refused != Status::Success) {
    reply.error(refused);
    return Outcome::Continue;
  }

  DocumentKey key{.logical = Command::as_text(received.key),
                  .stored = Command::as_text(received.key)};
  uint16_t filed_vbucket = received.vbucket_or_status;
  engine::Bucket* bucket = session.bucket.get();
  if (spec->access == Access::Document || spec->access == Access::ReplicaDocument) {
    // A persistent bucket is still loading from disk: what a request reads or replaces may
    // not be in memory yet. Couchbase answers so during warmup, and SDKs retry.
    if (!bucket->warm()) {
      reply.error(Status::Etmpfail);
      return Outcome::Continue;
    }
    refused = decode_document_key(received.key, session.features.has(Feature::Collections), key,
                                  session.stored_key);
    if (refused != Status::Success) {
      reply.error(refused);
      return Outcome::Continue;
    }
    const cluster::CollectionsManifest& manifest = bucket->manifest();  // read once: it may change
    if (!manifest.has_collection(key.collection_id)) {
      reply.error_with_manifest_uid(Status::UnknownCollection, manifest.uid());
      return Outcome::Continue;
    }
    engine::VBucket* vbucket = bucket->vbucket(received.vbucket_or_status);
    // GET_REPLICA, and sub-document lookups with the ReplicaRead doc flag, read a replica.
    const bool replica =
        spec->access == Access::ReplicaDocument || subdoc::reads_replica(loud, received.extras);
    const auto serving = replica ? cluster::VBucketState::Replica : cluster::VBucketState::Active;
    if (vbucket == nullptr || vbucket->state() != serving) {
      reply.error_with_json(Status::NotMyVbucket, bucket->cluster_map()->json());
      return Outcome::Continue;
    }
    filed_vbucket = filed_vbucket_of(*bucket, key, received.vbucket_or_status);
    bucket->command_stats().count_collection_op(key.collection_id, collection_op(*spec));
    if (spec->is_mutation) context.mutated_vbucket = bucket->vbucket(filed_vbucket);
  }

  const size_t answered = out.size();
  try {
    // A compressed value is handed on decompressed, in a copy of the frame pointing at it.
    const protocol::Frame* request = &received;
    protocol::Frame inflated;
    if ((received.datatype & protocol::datatype::kSnappy) != 0) {
      inflated = received;
      refused = inflate_value(inflated, session, node_.settings().max_item_size);
      if (refused != Status::Success) {
        reply.error(refused);
        return Outcome::Continue;
      }
      request = &inflated;
    }
    return spec->handler(Command{.request = *request,
                                 .opcode = loud,
                                 .session = session,
                                 .reply = reply,
                                 .stat_providers = providers_,
                                 .document_key = key.stored,
                                 .preserve_ttl = frame_requests.preserve_ttl,
                                 .vbucket = context.mutated_vbucket,
                                 .filed_vbucket = filed_vbucket,
                                 .durability = frame_requests.durability});
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
                              const Session& session, std::vector<uint8_t>& out) {
  Reply::append_error(request, status, out, ReplyContext{.features = session.features});
}

}  // namespace tern::commands
