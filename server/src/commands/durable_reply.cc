#include "commands/durable_reply.h"

#include <memory>
#include <string>
#include <vector>

#include "commands/parked_request.h"
#include "engine/durability_monitor.h"
#include "engine/persistence.h"

namespace tern::commands {

using protocol::Status;

namespace {

// A success answer kept until the write is on disk: the body a handler builds points into
// its scratch space, reused by the next request.
struct SavedAnswer {
  std::vector<uint8_t> extras;
  std::string key;
  std::string value;
  uint8_t datatype = 0;
  uint64_t cas = 0;
  uint64_t seqno = 0;
  Status status = Status::Success;

  SavedAnswer(const ReplyBody& body, Status answered)
      : extras(body.extras.begin(), body.extras.end()),
        key(body.key),
        value(body.value),
        datatype(body.datatype),
        cas(body.cas),
        seqno(body.seqno),
        status(answered) {}

  void send(Reply& reply) const {
    reply.success(ReplyBody{.extras = extras, .key = key, .value = value, .datatype = datatype,
                            .cas = cas, .seqno = seqno},
                  status);
  }
};

}  // namespace

Outcome succeed_mutation(const Command& cmd, uint64_t cas, const ReplyBody& body,
                         Status status) {
  if (!cmd.durability.waits_for_disk()) {
    cmd.reply.success(body, status);
    return Outcome::Continue;
  }
  engine::Persistence* persistence = cmd.bucket().persistence();
  if (persistence == nullptr || cmd.session.parker == nullptr) {
    // The dispatcher lets such a write through only where it can wait (DurabilityImpossible).
    cmd.reply.error(Status::Einternal);
    return Outcome::Continue;
  }
  auto answer = std::make_shared<const SavedAnswer>(body, status);
  ParkedNotifier notify = cmd.session.parker->park(cmd.reply.request(), cmd.reply.context());
  const int64_t timeout_ms =
      cmd.durability.timeout_ms != 0 ? cmd.durability.timeout_ms : kDefaultDurabilityTimeoutMs;
  persistence->durability().add(
      cmd.vbucket->id(), body.seqno, std::string(cmd.key()), cas,
      cmd.node().clock().steady_ms() + timeout_ms,
      [notify = std::move(notify), answer](engine::SyncWriteOutcome outcome) {
        notify([answer, outcome](Reply& reply) {
          if (outcome == engine::SyncWriteOutcome::Committed) {
            answer->send(reply);
          } else {
            reply.error(Status::SyncWriteAmbiguous);
          }
        });
      });
  return Outcome::WouldBlock;
}

}  // namespace tern::commands
