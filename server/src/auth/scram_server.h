#pragma once
// The server's side of one SCRAM exchange (RFC 5802, RFC 7677): the client sends
// client-first, the server answers server-first "r=<client nonce><server nonce>,s=<salt>,
// i=<iterations>" (exactly that shape; the Couchbase SDKs parse it so), the client sends
// client-final with its proof, and the server checks channel binding, nonce and proof and
// answers "v=<server signature>", which proves to the client that the server knew the
// credential. One object per exchange; not thread-safe.
//
// Outcomes keep two kinds of failure apart: AuthFailed when a well-formed exchange does not
// authenticate (wrong password, unknown user, binding or nonce not repeated faithfully) and
// Malformed when a message is not SCRAM or comes out of turn. Either ends the exchange.
//
// An unknown user is not revealed: the exchange runs to the end on a decoy credential, with
// the same work and the same shape of answers, and fails only at the proof.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "auth/scram.h"

namespace tern::auth {

enum class ScramOutcome { Continue, Success, AuthFailed, Malformed };

struct ScramReply {
  ScramOutcome outcome = ScramOutcome::Malformed;
  // Continue: server-first. Success: server-final ("v=..."). Otherwise empty.
  std::string message;
};

class ScramServer {
 public:
  // The user's credential for the exchange's algorithm, or nullptr when there is none
  // (unknown user, or no credential of that algorithm). Called once, from first(); the
  // credential is copied at once, so the pointer need only live through the call.
  using CredentialLookup = std::function<const ScramCredential*(std::string_view user)>;
  // The server's part of the nonce: printable ASCII but ',' (std::logic_error otherwise).
  // Fresh randomness in production; tests fix it to reproduce the RFC's examples.
  using NonceSource = std::function<std::string()>;

  // decoy_iterations: what an unknown user's server-first claims; it should match what
  // real users have, or the iteration count itself gives the unknown user away.
  ScramServer(ScramAlgorithm algorithm, CredentialLookup lookup,
              uint32_t decoy_iterations = kDefaultIterations,
              NonceSource nonce_source = random_nonce);

  // Takes client-first: Continue with server-first; Malformed if not a client-first message
  // or not the first call; AuthFailed if it asks to act as another user (authzid).
  ScramReply first(std::string_view client_first);

  // Takes client-final: Success with server-final; AuthFailed if the binding, nonce or proof
  // is wrong; Malformed if not a client-final message or not right after a Continue.
  ScramReply final(std::string_view client_final);

  ScramAlgorithm algorithm() const { return algorithm_; }
  // The user named in client-first (unescaped); empty before it. Authenticated only once
  // final() has returned Success.
  const std::string& user() const { return user_; }

  // 24 characters of base64 from 18 random bytes: 144 bits, and no padding.
  static std::string random_nonce();

 private:
  enum class State { AwaitingFirst, AwaitingFinal, Done };

  ScramReply end(ScramOutcome outcome);

  ScramAlgorithm algorithm_;
  CredentialLookup lookup_;
  uint32_t decoy_iterations_;
  NonceSource nonce_source_;

  State state_ = State::AwaitingFirst;
  std::string user_;
  ScramCredential credential_;
  bool credential_is_decoy_ = false;
  std::string gs2_header_;
  std::string nonce_;  // client's and server's together
  std::string client_first_bare_;
  std::string server_first_;
};

}  // namespace tern::auth
