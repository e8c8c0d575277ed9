#pragma once
// One connection's view of who is asking: the features it negotiated with HELLO, the user
// it authenticated as, the bucket it selected, and its SASL exchange in progress. Owned by
// the connection, handed to every command; the one place that knows who is asking.
// Not thread-safe: a connection runs its commands one at a time.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "auth/failure_throttle.h"
#include "auth/sasl_exchange.h"
#include "commands/features.h"
#include "commands/key_limits.h"
#include "commands/node.h"
#include "commands/parked_request.h"
#include "engine/bucket.h"

namespace tern::commands {

class Session {
 public:
  // Starts as the node says: authenticated on the first bucket when access is open, else
  // unauthenticated on the anonymous bucket (if any).
  explicit Session(Node& node);

  Node& node() const { return node_; }

  FeatureSet features;
  std::string agent;  // what the client called itself in HELLO, for logs
  std::string peer;   // the client's address, for logs
  bool secure = false;  // the connection is TLS (set by net/ once its handshake is done)

  bool authenticated() const { return authenticated_; }
  bool admin() const { return admin_; }
  const std::string& user() const { return user_; }
  // Records a successful authentication; the selected bucket is dropped (Couchbase
  // requires a new SELECT_BUCKET after authenticating).
  void authenticate(const auth::User& user);
  // Mutual TLS: logs in as the user a verified client certificate names (`user`, its CN).
  // Returns false, after a log line naming the certificate's `subject`, when no such user
  // exists: the caller then closes the connection, as Couchbase does.
  bool authenticate_by_certificate(const std::string& user, const std::string& subject);
  // Whether SASL PLAIN, which sends the password itself, may be used: over TLS, or anywhere
  // when the node allows it.
  bool plain_allowed() const { return secure || node_.settings().allow_plain_auth; }

  // The selected bucket, or nullptr.
  // Shared with the node, so that a bucket dropped meanwhile lives until the session lets go.
  std::shared_ptr<engine::Bucket> bucket;

  auth::SaslExchange sasl;
  auth::FailureThrottle auth_failures;

  // How a handler parks the request it runs, installed by the connection; null where
  // requests cannot wait (then nothing may be answered later: see durable_reply.h).
  RequestParker* parker = nullptr;

  // Scratch space for a request's decompressed value; reused to avoid an allocation each.
  std::vector<uint8_t> inflated;
  // Scratch space for a request's stored document key, when it differs from the one sent
  // (request_checks.h): a marker byte and at most the longest key on the wire.
  StoredKeyBuffer stored_key;

 private:
  Node& node_;
  bool authenticated_ = false;
  bool admin_ = false;
  std::string user_;
};

}  // namespace tern::commands
