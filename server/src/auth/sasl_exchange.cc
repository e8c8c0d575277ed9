#include "auth/sasl_exchange.h"

#include "auth/plain.h"

namespace tern::auth {
namespace {

constexpr std::string_view kPlain = "PLAIN";

SaslResult bare_outcome(SaslOutcome outcome) {
  return SaslResult{.outcome = outcome, .challenge = {}, .user = {}};
}

SaslOutcome sasl_outcome(ScramOutcome outcome) {
  switch (outcome) {
    case ScramOutcome::Continue:
      return SaslOutcome::Continue;
    case ScramOutcome::Success:
      return SaslOutcome::Success;
    case ScramOutcome::AuthFailed:
      return SaslOutcome::AuthFailed;
    case ScramOutcome::Malformed:
      break;
  }
  return SaslOutcome::Malformed;
}

SaslOutcome sasl_outcome(PlainOutcome outcome) {
  switch (outcome) {
    case PlainOutcome::Success:
      return SaslOutcome::Success;
    case PlainOutcome::AuthFailed:
      return SaslOutcome::AuthFailed;
    case PlainOutcome::Malformed:
      break;
  }
  return SaslOutcome::Malformed;
}

}  // namespace

std::string mechanisms(bool plain_allowed) {
  std::string list;
  for (ScramAlgorithm algorithm : kScramAlgorithmsStrongestFirst) {
    if (!list.empty()) list += ' ';
    list += mechanism_name(algorithm);
  }
  if (plain_allowed) {
    list += ' ';
    list += kPlain;
  }
  return list;
}

SaslExchange::SaslExchange(const UserDirectory& users, bool plain_allowed)
    : users_(users), plain_allowed_(plain_allowed) {}

SaslResult SaslExchange::start(std::string_view mechanism, std::string_view data) {
  scram_.reset();
  if (mechanism == kPlain && plain_allowed_) {
    PlainResult result = check_plain(users_, data);
    return SaslResult{
        .outcome = sasl_outcome(result.outcome), .challenge = {}, .user = std::move(result.user)};
  }
  std::optional<ScramAlgorithm> algorithm = algorithm_for_mechanism(mechanism);
  if (!algorithm) return bare_outcome(SaslOutcome::UnknownMechanism);

  const UserDirectory& users = users_;
  ScramAlgorithm chosen = *algorithm;
  scram_.emplace(
      chosen,
      [&users, chosen](std::string_view name) -> const ScramCredential* {
        const User* user = users.find(name);
        return user ? user->credential(chosen) : nullptr;
      },
      users.decoy_iterations(chosen));
  return finish_scram(scram_->first(data));
}

SaslResult SaslExchange::step(std::string_view data) {
  if (!scram_) return bare_outcome(SaslOutcome::NotStarted);
  return finish_scram(scram_->final(data));
}

SaslResult SaslExchange::finish_scram(ScramReply reply) {
  SaslResult result = bare_outcome(sasl_outcome(reply.outcome));
  result.challenge = std::move(reply.message);
  if (result.outcome == SaslOutcome::Success) result.user = scram_->user();
  if (result.outcome != SaslOutcome::Continue) scram_.reset();
  return result;
}

}  // namespace tern::auth
