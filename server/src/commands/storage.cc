// Mutations that store, concatenate or remove whole values, and FLUSH.
#include <algorithm>
#include <vector>

#include "commands/background_fetch.h"
#include "commands/command.h"
#include "commands/durable_reply.h"
#include "commands/parked_request.h"
#include "engine/bucket_flush.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"
#include "subdoc/json_document.h"
#include "subdoc/xattr_key.h"
#include "xattr/blob.h"

namespace tern::commands {

using protocol::Opcode;
using protocol::datatype::kJson;
using protocol::datatype::kXattr;

namespace {

// Success carries the new CAS. DELETE carries the tombstone's CAS to Couchbase clients, as
// Couchbase does (SDKs return it from remove), but 0 to classic ones: memcached answers a
// delete with CAS 0 and its conformance tester (memccapable) checks that. MutationSeqno tells
// the two apart: a client that asks for each mutation's seqno wants its CAS too, and every
// Couchbase SDK asks; open-access sessions start with XERROR on, so that could not tell them.
Outcome answer(const Command& cmd, const engine::MutationResult& result, bool with_cas) {
  if (result.status != engine::Status::Success) return answer_engine_failure(cmd, result.status);
  return succeed_mutation(cmd, result.cas,
                          ReplyBody{.cas = with_cas ? result.cas : 0, .seqno = result.seqno});
}

// Whether an XATTR section a client sent is one Couchbase would store: laid out right, each
// key a valid one (no virtual key: the server computes those) and unique, each value JSON.
bool is_storable_section(std::string_view section) {
  std::vector<xattr::Attribute> attributes;
  if (!xattr::parse(section, attributes)) return false;
  for (auto it = attributes.begin(); it != attributes.end(); ++it) {
    if (!subdoc::is_valid_xattr_key(it->key) || subdoc::is_virtual_xattr_key(it->key) ||
        !subdoc::is_json(it->value)) {
      return false;
    }
    if (std::any_of(attributes.begin(), it, [&](const auto& a) { return a.key == it->key; })) {
      return false;
    }
  }
  return true;
}

// The datatype SET, ADD and REPLACE store, as Couchbase gives it: the client's, plus the JSON
// bit when the body (the value after its XATTR section, if it has one) is JSON; a client that
// declared JSON is trusted. XattrEinval when the section is not one to store.
protocol::Status stored_datatype(std::string_view value, uint8_t declared, uint8_t& datatype) {
  xattr::Split parts;
  if (!xattr::split(value, declared, parts) || !is_storable_section(parts.attributes)) {
    return protocol::Status::XattrEinval;
  }
  datatype = declared;
  if ((declared & kJson) == 0 && subdoc::is_json(parts.body)) datatype |= kJson;
  return protocol::Status::Success;
}

engine::StoreMode store_mode(Opcode op) {
  switch (op) {
    case Opcode::Add: return engine::StoreMode::Add;
    case Opcode::Replace: return engine::StoreMode::Replace;
    default: return engine::StoreMode::Set;
  }
}

}  // namespace

Outcome store(const Command& cmd) {
  const uint32_t flags = protocol::load_be32(cmd.extras());
  const uint32_t expiry = protocol::load_be32(cmd.extras() + 4);
  uint8_t datatype = 0;
  const protocol::Status refused = stored_datatype(cmd.value(), cmd.request.datatype, datatype);
  if (refused != protocol::Status::Success) {
    cmd.reply.error(refused);
    return Outcome::Continue;
  }
  return answer(cmd,
                cmd.documents().store(store_mode(cmd.opcode), cmd.key(), cmd.value(), flags,
                                      expiry, datatype, cmd.request.cas, cmd.mutation_options()),
                true);
}

// The engine builds the new value under the key's lock and asks subdoc::is_json whether its
// body is JSON; the document's XATTRs stay as they were. What the client declared of the
// value it sends says nothing of the result, except that an XATTR section has no place in
// the middle of a document.
Outcome concat(const Command& cmd) {
  if ((cmd.request.datatype & kXattr) != 0) {
    cmd.reply.error(protocol::Status::Einval);
    return Outcome::Continue;
  }
  const auto mode =
      cmd.opcode == Opcode::Append ? engine::ConcatMode::Append : engine::ConcatMode::Prepend;
  return answer(cmd,
                cmd.documents().concat(mode, cmd.key(), cmd.value(), cmd.request.cas,
                                       cmd.mutation_options(), subdoc::is_json),
                true);
}

Outcome remove(const Command& cmd) {
  return answer(cmd, cmd.documents().remove(cmd.key(), cmd.request.cas, cmd.mutation_options()),
                cmd.session.features.has(Feature::MutationSeqno));
}

// FLUSH. An ephemeral bucket flushes at once or after the request's delay. A couchbase
// bucket flushes its disk too, and only at once (NotSupported for a delay): the answer waits,
// parked, until the disk's part is synced (engine/bucket_flush.h), so that a flush answered
// never comes back after a crash. (Couchbase flushes its buckets over the cluster manager's
// REST port instead; both ports reach the same flush here.)
Outcome flush(const Command& cmd) {
  const uint32_t delay = cmd.has_extras() ? protocol::load_be32(cmd.extras()) : 0;
  if (cmd.bucket().persistence() == nullptr) {
    cmd.documents().flush(delay);
    cmd.reply.success();
    return Outcome::Continue;
  }
  if (delay != 0) {
    cmd.reply.error(protocol::Status::NotSupported);
    return Outcome::Continue;
  }
  if (!cmd.bucket().warm() || cmd.session.parker == nullptr) {
    cmd.reply.error(protocol::Status::Etmpfail);
    return Outcome::Continue;
  }
  ParkedNotifier notify = cmd.session.parker->park(cmd.reply.request(), cmd.reply.context());
  engine::flush_bucket(cmd.bucket(), [notify = std::move(notify)](engine::FlushResult result) {
    notify([result](Reply& reply) {
      if (result == engine::FlushResult::Flushed) {
        reply.success();
      } else {
        reply.error(protocol::Status::Etmpfail);
      }
    });
  });
  return Outcome::WouldBlock;
}

}  // namespace tern::commands
