// GET_META (what the SDKs' exists() sends), GET_REPLICA and OBSERVE_SEQNO: what a client
// may learn about a document or a vbucket besides its value.
#include <algorithm>

#include "commands/background_fetch.h"
#include "commands/command.h"
#include "protocol/codec.h"

namespace tern::commands {

using protocol::Status;

namespace {

constexpr uint8_t kMetaVersionWithDatatype = 2;
constexpr uint8_t kObserveNoFailover = 0;

}  // namespace

// Extras of the answer: deleted u32, flags u32, expiry u32 (absolute Unix time), revision
// seqno u64, and, when the request's one byte of extras asks for version 2, datatype u8.
Outcome get_meta(const Command& cmd) {
  const engine::MetaResult meta = cmd.documents().get_meta(cmd.key());
  if (meta.status != engine::Status::Success) return answer_engine_failure(cmd, meta.status);
  uint8_t extras[21];
  protocol::store_be32(extras, meta.deleted ? 1 : 0);
  protocol::store_be32(extras + 4, meta.flags);
  protocol::store_be32(extras + 8, meta.expiry);
  protocol::store_be64(extras + 12, meta.rev_seqno);
  extras[20] = meta.datatype;
  const bool with_datatype = cmd.has_extras() && cmd.extras()[0] == kMetaVersionWithDatatype;
  cmd.reply.success(ReplyBody{.extras = std::span<const uint8_t>(extras, with_datatype ? 21 : 20),
                              .cas = meta.cas});
  return Outcome::Continue;
}

// A replica vbucket's copy, answered as GET answers (the body only, without XATTRs); this
// node keeps no replicas of its own, so only a vbucket an administrator set to replica state
// reaches here (others answered NotMyVbucket already).
Outcome get_replica(const Command& cmd) { return get(cmd); }

// The value is the vbucket uuid the client knows. The answer: format u8 (0: that uuid is
// still current), vbucket u16, current uuid u64, persisted seqno u64, current seqno u64; or
// format 1 with the client's uuid and the seqno its history ended at appended (the vbucket's
// failover log tells it: engine/failover_log.h). A persistent
// bucket reports how far the flusher has written the vbucket; an ephemeral one persists
// nothing, so its persisted seqno is the current one, as in Couchbase's memory-only buckets.
Outcome observe_seqno(const Command& cmd) {
  engine::VBucket* vbucket = cmd.bucket().vbucket(cmd.vbucket_id());
  if (vbucket == nullptr || (vbucket->state() != cluster::VBucketState::Active &&
                             vbucket->state() != cluster::VBucketState::Replica)) {
    cmd.reply.error_with_json(Status::NotMyVbucket, cmd.bucket().cluster_map()->json());
    return Outcome::Continue;
  }
  if (cmd.request.value.size() != 8) {
    cmd.reply.error(Status::Einval);
    return Outcome::Continue;
  }
  const uint64_t client_uuid = protocol::load_be64(cmd.request.value.data());
  const uint64_t uuid = vbucket->uuid();
  // Read before the current seqno, so that it never appears ahead of it.
  const uint64_t persisted = cmd.bucket().persistence() != nullptr ? vbucket->persisted_seqno()
                                                                   : vbucket->high_seqno();
  const uint64_t seqno = std::max(vbucket->high_seqno(), persisted);
  uint8_t body[43];
  const bool failed_over = client_uuid != uuid;
  body[0] = failed_over ? 1 : kObserveNoFailover;
  protocol::store_be16(body + 1, cmd.vbucket_id());
  protocol::store_be64(body + 3, uuid);
  protocol::store_be64(body + 11, persisted);
  protocol::store_be64(body + 19, seqno);
  size_t size = 27;
  if (failed_over) {
    // Where the history the client knew ended, from the failover log; 0 says "unknown" (a
    // uuid the log does not hold, or no longer).
    protocol::store_be64(body + 27, client_uuid);
    protocol::store_be64(body + 35, vbucket->failover_log().end_of(client_uuid).value_or(0));
    size = 43;
  }
  cmd.reply.success(ReplyBody{.value = Command::as_text(std::span<const uint8_t>(body, size))});
  return Outcome::Continue;
}

}  // namespace tern::commands
