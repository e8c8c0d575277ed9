#pragma once
// The client's two SCRAM messages (RFC 5802 section 7), parsed strictly: attributes in the
// RFC's order, none missing, none repeated, values of the right shape. Anything else is
// refused whole (nullopt) rather than guessed at. Values never hold a ',' (usernames
// escape it as "=2C", nonces and base64 exclude it), so fields are split at commas.
//
// Channel binding is not offered (no SCRAM-...-PLUS mechanism), so a client-first message
// asking for it ("p=...") is refused; "n" and "y" are accepted, as RFC 5802 allows "y"
// when the server does not advertise binding. A mandatory extension ("m=") is refused;
// optional extensions after the nonce are accepted and ignored.

#include <optional>
#include <string>
#include <string_view>

namespace tern::auth {

struct ClientFirstMessage {
  std::string gs2_header;  // as sent, e.g. "n,,": the final message's c= must repeat it
  std::string authzid;     // unescaped; empty when absent
  std::string user;        // unescaped, never empty
  std::string nonce;       // the client's part of the nonce
  std::string bare;        // client-first-message-bare as sent: the start of AuthMessage
};

// "n,,n=user,r=nonce" and its variants.
std::optional<ClientFirstMessage> parse_client_first(std::string_view message);

struct ClientFinalMessage {
  std::string channel_binding;  // c=, decoded: the gs2 header of the first message
  std::string nonce;            // r=: client nonce followed by server nonce
  std::string proof;            // p=, decoded
  std::string without_proof;    // client-final-message-without-proof as sent: ends AuthMessage
};

// "c=biws,r=nonce,p=proof" and its variants.
std::optional<ClientFinalMessage> parse_client_final(std::string_view message);

// A saslname with "=2C" and "=3D" turned back into ',' and '='; nullopt if empty or if it
// holds any other '=', a ',' or a NUL.
std::optional<std::string> decode_saslname(std::string_view name);

// Whether a nonce has the RFC's shape: printable ASCII but ',', at least one character.
bool is_valid_nonce(std::string_view nonce);

}  // namespace tern::auth
