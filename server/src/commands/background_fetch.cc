#include "commands/background_fetch.h"

#include <string>
#include <utility>

#include "commands/engine_status.h"
#include "commands/parked_request.h"
#include "engine/bg_fetcher.h"
#include "engine/persistence.h"

namespace tern::commands {

Outcome answer_engine_failure(const Command& cmd, engine::Status status) {
  if (status == engine::Status::NotResident) return fetch_and_run_again(cmd);
  cmd.reply.error(to_wire(status));
  return Outcome::Continue;
}

Outcome fetch_and_run_again(const Command& cmd) {
  engine::Persistence* persistence = cmd.bucket().persistence();
  if (persistence == nullptr || cmd.session.parker == nullptr ||
      cmd.reply.context().runs_again > kMaxFetchRetries) {
    cmd.reply.error(protocol::Status::Etmpfail);
    return Outcome::Continue;
  }
  ParkedNotifier notify = cmd.session.parker->park(cmd.reply.request(), cmd.reply.context());
  // The vbucket the key is filed under, not the request's (memcached clients send every key
  // on vbucket 0): a key on disk only (full eviction) is read from there.
  persistence->bg_fetcher().fetch(std::string(cmd.key()), cmd.filed_vbucket,
                                  [notify = std::move(notify)] { run_again(notify); });
  return Outcome::WouldBlock;
}

}  // namespace tern::commands
