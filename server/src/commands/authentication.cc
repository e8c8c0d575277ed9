// SASL_LIST_MECHS, SASL_AUTH, SASL_STEP: who is asking; and SELECT_BUCKET: what they may
// then use. A wrong password answers AuthError and leaves the connection usable for a retry,
// but repeated failures are throttled per connection (auth/failure_throttle.h).
#include <spdlog/spdlog.h>

#include "auth/sasl_exchange.h"
#include "commands/command.h"

namespace tern::commands {

using protocol::Status;

namespace {

Outcome answer(const Command& cmd, const auth::SaslResult& result) {
  Session& session = cmd.session;
  const int64_t now_ms = cmd.node().clock().steady_ms();
  switch (result.outcome) {
    case auth::SaslOutcome::Success: {
      const auth::User* user = cmd.node().users().find(result.user);
      if (user == nullptr) {  // removed since the exchange began: cannot happen at runtime
        cmd.reply.error(Status::AuthError);
        break;
      }
      session.authenticate(*user);
      session.auth_failures.succeeded();
      spdlog::info("{} authenticated as {}", session.peer, user->name);
      cmd.reply.success(ReplyBody{.value = result.challenge});
      break;
    }
    case auth::SaslOutcome::Continue:
      cmd.reply.append(Status::AuthContinue, ReplyBody{.value = result.challenge});
      break;
    case auth::SaslOutcome::AuthFailed:
      session.auth_failures.failed(now_ms);
      spdlog::warn("{} failed to authenticate ({} failures in a row)", session.peer,
                   session.auth_failures.failures());
      cmd.reply.error(Status::AuthError);
      break;
    case auth::SaslOutcome::UnknownMechanism:
      cmd.reply.error(Status::NotSupported);
      break;
    case auth::SaslOutcome::Malformed:
    case auth::SaslOutcome::NotStarted:
      cmd.reply.error(Status::Einval);
      break;
  }
  return Outcome::Continue;
}

// Refuses an attempt while the connection's failures are being throttled.
bool throttled(const Command& cmd) {
  Session& session = cmd.session;
  if (session.auth_failures.may_attempt(cmd.node().clock().steady_ms())) return false;
  spdlog::warn("{} is retrying authentication too fast: refused", session.peer);
  cmd.reply.error(Status::AuthError);
  return true;
}

}  // namespace

Outcome sasl_list_mechs(const Command& cmd) {
  const std::string list = auth::mechanisms(cmd.session.plain_allowed());
  cmd.reply.success(ReplyBody{.value = list});
  return Outcome::Continue;
}

Outcome sasl_auth(const Command& cmd) {
  if (throttled(cmd)) return Outcome::Continue;
  cmd.session.sasl.set_plain_allowed(cmd.session.plain_allowed());
  return answer(cmd, cmd.session.sasl.start(Command::as_text(cmd.request.key), cmd.value()));
}

Outcome sasl_step(const Command& cmd) {
  if (throttled(cmd)) return Outcome::Continue;
  return answer(cmd, cmd.session.sasl.step(cmd.value()));
}

Outcome select_bucket(const Command& cmd) {
  const std::string_view name = Command::as_text(cmd.request.key);
  Session& session = cmd.session;
  std::shared_ptr<engine::Bucket> bucket = cmd.node().find_bucket(name);
  bool granted = bucket != nullptr;
  if (granted && !cmd.node().settings().open_access) {
    const auth::User* user =
        session.authenticated() ? cmd.node().users().find(session.user()) : nullptr;
    // Without a user, only the anonymous bucket the session started on.
    granted = user != nullptr ? user->may_use(name) : bucket == cmd.node().initial_bucket();
  }
  // Couchbase does not tell a bucket that does not exist from one the user may not use.
  if (!granted) {
    cmd.reply.error(Status::Eaccess);
    return Outcome::Continue;
  }
  session.bucket = std::move(bucket);
  cmd.reply.success();
  return Outcome::Continue;
}

}  // namespace tern::commands
