#pragma once
// A connection's SASL authentication, as the protocol layer drives it: SASL_LIST_MECHS asks
// mechanisms(), SASL_AUTH calls start() with the mechanism and the client's first message,
// SASL_STEP calls step() with each further message. SCRAM takes two messages (start: Continue
// with server-first; step: Success with server-final), PLAIN one (start: Success).
//
// A start() abandons whatever exchange was under way, finished or not. Once an exchange ends
// (Success or any failure), step() has nothing to continue: NotStarted. The exchange only
// authenticates; what the user may do (buckets, admin) is the caller's to look up.
// One object per connection; not thread-safe. The UserDirectory must outlive it.

#include <optional>
#include <string>
#include <string_view>

#include "auth/scram_server.h"
#include "auth/user.h"

namespace tern::auth {

enum class SaslOutcome {
  Success,           // authenticated as `user`
  Continue,          // send the challenge, expect a step()
  AuthFailed,        // wrong password or unknown user (the two are not told apart)
  Malformed,         // the message is not what the mechanism expects at this point
  UnknownMechanism,  // not offered on this connection
  NotStarted,        // step() without an exchange in progress
};

struct SaslResult {
  SaslOutcome outcome = SaslOutcome::NotStarted;
  std::string challenge;  // Continue: server-first; SCRAM Success: server-final; else empty
  std::string user;       // Success: the authenticated user's name; else empty
};

// The mechanisms for SASL_LIST_MECHS, space-separated, strongest first:
// "SCRAM-SHA512 SCRAM-SHA256 SCRAM-SHA1", and " PLAIN" at the end when allowed.
std::string mechanisms(bool plain_allowed);

class SaslExchange {
 public:
  // plain_allowed: whether PLAIN is offered, e.g. only on TLS connections, since its
  // password crosses the wire in clear.
  SaslExchange(const UserDirectory& users, bool plain_allowed);

  // Begins an exchange with `mechanism` (a name from mechanisms()) and the client's first
  // message; UnknownMechanism if the name is not offered.
  SaslResult start(std::string_view mechanism, std::string_view data);

  // Whether start() accepts PLAIN from now on: a connection becomes secure (TLS) only after
  // its session, and so its exchange, exists.
  void set_plain_allowed(bool allowed) { plain_allowed_ = allowed; }

  // Continues the exchange in progress with the client's next message.
  SaslResult step(std::string_view data);

 private:
  SaslResult finish_scram(ScramReply reply);

  const UserDirectory& users_;
  bool plain_allowed_;
  std::optional<ScramServer> scram_;  // the SCRAM exchange awaiting step(), if any
};

}  // namespace tern::auth
