#include "auth/scram_server.h"

#include <stdexcept>
#include <utility>

#include "auth/base64.h"
#include "auth/crypto.h"
#include "auth/scram_message.h"

namespace tern::auth {

ScramServer::ScramServer(ScramAlgorithm algorithm, CredentialLookup lookup,
                         uint32_t decoy_iterations, NonceSource nonce_source)
    : algorithm_(algorithm),
      lookup_(std::move(lookup)),
      decoy_iterations_(decoy_iterations),
      nonce_source_(std::move(nonce_source)) {}

std::string ScramServer::random_nonce() { return base64_encode(random_bytes(18)); }

ScramReply ScramServer::end(ScramOutcome outcome) {
  state_ = State::Done;
  return ScramReply{.outcome = outcome, .message = {}};
}

ScramReply ScramServer::first(std::string_view client_first) {
  if (state_ != State::AwaitingFirst) return end(ScramOutcome::Malformed);
  auto message = parse_client_first(client_first);
  if (!message) return end(ScramOutcome::Malformed);
  // Acting as another user is not supported; naming oneself is harmless.
  if (!message->authzid.empty() && message->authzid != message->user) {
    return end(ScramOutcome::AuthFailed);
  }

  // The decoy is made for known users too, so that first() costs the same either way.
  ScramCredential decoy = decoy_credential(algorithm_, message->user, decoy_iterations_);
  const ScramCredential* found = lookup_(message->user);
  credential_is_decoy_ = found == nullptr || found->algorithm != algorithm_;
  credential_ = credential_is_decoy_ ? std::move(decoy) : *found;

  std::string server_nonce = nonce_source_();
  if (!is_valid_nonce(server_nonce))
    throw std::logic_error("SCRAM server nonce has bad characters");
  user_ = std::move(message->user);
  gs2_header_ = std::move(message->gs2_header);
  client_first_bare_ = std::move(message->bare);
  nonce_ = message->nonce + server_nonce;
  server_first_ = "r=" + nonce_ + ",s=" + base64_encode(credential_.salt) +
                  ",i=" + std::to_string(credential_.iterations);
  state_ = State::AwaitingFinal;
  return ScramReply{.outcome = ScramOutcome::Continue, .message = server_first_};
}

ScramReply ScramServer::final(std::string_view client_final) {
  if (state_ != State::AwaitingFinal) return end(ScramOutcome::Malformed);
  auto message = parse_client_final(client_final);
  if (!message) return end(ScramOutcome::Malformed);
  // None of these checks involves the credential, so failing early reveals nothing.
  if (message->channel_binding != gs2_header_ || message->nonce != nonce_ ||
      message->proof.size() != digest_size(algorithm_)) {
    return end(ScramOutcome::AuthFailed);
  }

  // RFC 5802 section 3: the proof is ClientKey XOR HMAC(StoredKey, AuthMessage), and
  // H(ClientKey) must give StoredKey back.
  std::string auth_message =
      client_first_bare_ + "," + server_first_ + "," + message->without_proof;
  std::string client_key = hmac(algorithm_, credential_.stored_key, auth_message);
  for (size_t i = 0; i < client_key.size(); ++i) client_key[i] ^= message->proof[i];
  bool proof_matches = equal_in_constant_time(hash(algorithm_, client_key), credential_.stored_key);
  cleanse(client_key);
  // Signed even when about to fail, so success and failure take the same time.
  std::string server_signature = hmac(algorithm_, credential_.server_key, auth_message);
  if (!proof_matches || credential_is_decoy_) return end(ScramOutcome::AuthFailed);

  state_ = State::Done;
  return ScramReply{.outcome = ScramOutcome::Success,
                    .message = "v=" + base64_encode(server_signature)};
}

}  // namespace tern::auth
