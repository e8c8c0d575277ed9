#pragma once
// What a command handler gets, and the handlers of each command family. A handler runs only
// after the request's shape (extras length, key, value) has been validated against its
// command's rules, and after its access rule passed (command_table.h): one that needs a
// bucket has one, and one that addresses a document has its key decoded and its vbucket
// checked. So it may read its extras without checking their length.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "commands/dispatcher.h"
#include "commands/reply.h"
#include "commands/session.h"
#include "engine/bucket.h"
#include "engine/engine.h"
#include "protocol/frame.h"
#include "protocol/opcode.h"

namespace tern::commands {

// A mutation's durability requirement (frame info 0x01), as the request gave it.
struct Durability {
  static constexpr uint8_t kNone = 0;
  static constexpr uint8_t kMajority = 1;
  static constexpr uint8_t kMajorityAndPersistToActive = 2;
  static constexpr uint8_t kPersistToMajority = 3;

  uint8_t level = kNone;
  uint16_t timeout_ms = 0;  // 0: none given, the default applies

  // With no replicas, Majority completes when the write is applied; the persisting levels
  // complete once the write is on disk (durable_reply.h).
  bool waits_for_disk() const { return level >= kMajorityAndPersistToActive; }
};

struct Command {
  const protocol::Frame& request;
  protocol::Opcode opcode;  // the loud variant: handlers need not tell SET from SETQ
  Session& session;
  Reply& reply;
  std::span<StatProvider* const> stat_providers;
  // The document's key in its bucket: the logical key for the default collection, a
  // 0x00-escaped collection-prefixed key for any other, so that collections never share a
  // document (decode_document_key in request_checks.h). Not the key as sent: answers that
  // echo the key should echo request.key.
  std::string_view document_key;
  // The request asked to keep the document's expiry (PreserveTtl frame).
  bool preserve_ttl = false;
  // A mutation's vbucket (set for the commands the table marks as mutations): the engine
  // numbers the mutation's seqno on it.
  engine::VBucket* vbucket = nullptr;
  // The vbucket the document is filed under on disk (the dispatcher's filed_vbucket_of):
  // in a persistent bucket the one its logical key hashes to, whatever vbucket the request
  // named; else the request's. A background fetch reads the key from it.
  uint16_t filed_vbucket = 0;
  // A mutation's durability requirement; the dispatcher lets a persisting level through only
  // to a persistent bucket on a connection whose requests can wait.
  Durability durability = {};

  // What every mutation hands the engine beyond its own arguments: a write that waits for the
  // disk is prepared, and answered through succeed_mutation() (durable_reply.h).
  engine::MutationOptions mutation_options() const {
    return {.preserve_ttl = preserve_ttl,
            .vbucket = vbucket,
            .prepare = durability.waits_for_disk()};
  }

  std::string_view key() const { return document_key; }
  std::string_view value() const { return as_text(request.value); }
  const uint8_t* extras() const { return request.extras.data(); }
  bool has_extras() const { return !request.extras.empty(); }
  Node& node() const { return session.node(); }
  // The selected bucket and its documents; only for commands whose access rule requires one.
  engine::Bucket& bucket() const { return *session.bucket; }
  engine::Engine& documents() const { return session.bucket->documents(); }
  uint16_t vbucket_id() const { return request.vbucket_or_status; }

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

// HELLO, GET_ERROR_MAP.
Outcome hello(const Command& cmd);
Outcome get_error_map(const Command& cmd);

// SASL_LIST_MECHS, SASL_AUTH, SASL_STEP; SELECT_BUCKET.
Outcome sasl_list_mechs(const Command& cmd);
Outcome sasl_auth(const Command& cmd);
Outcome sasl_step(const Command& cmd);
Outcome select_bucket(const Command& cmd);

// GET_CLUSTER_CONFIG, and the cluster manager's SET_CLUSTER_CONFIG, SET_VBUCKET, GET_VBUCKET.
Outcome get_cluster_config(const Command& cmd);
Outcome set_cluster_config(const Command& cmd);
Outcome set_vbucket(const Command& cmd);
Outcome get_vbucket(const Command& cmd);

// GET_COLLECTIONS_MANIFEST, GET_COLLECTION_ID, GET_SCOPE_ID.
Outcome get_collections_manifest(const Command& cmd);
Outcome get_collection_id(const Command& cmd);
Outcome get_scope_id(const Command& cmd);

// RANGE_SCAN_CREATE, RANGE_SCAN_CONTINUE and RANGE_SCAN_CANCEL (range_scan.cc).
Outcome range_scan_create(const Command& cmd);
Outcome range_scan_continue(const Command& cmd);
Outcome range_scan_cancel(const Command& cmd);

// SUBDOC_GET, SUBDOC_EXISTS, SUBDOC_GET_COUNT and SUBDOC_MULTI_LOOKUP; the single-path
// mutations (SUBDOC_DICT_ADD ... SUBDOC_COUNTER) and SUBDOC_MULTI_MUTATION.
Outcome subdoc_lookup(const Command& cmd);
Outcome subdoc_mutation(const Command& cmd);

// GET_META, GET_REPLICA, OBSERVE_SEQNO.
Outcome get_meta(const Command& cmd);
Outcome get_replica(const Command& cmd);
Outcome observe_seqno(const Command& cmd);

}  // namespace tern::commands
