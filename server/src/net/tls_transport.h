#pragma once
// TLS over any transport: a decorator that is the inner transport's owner (its
// TransportEvents, which carry ciphertext) and the connection's Transport (which carries
// plaintext). OpenSSL works on memory, not on the socket (net/cipher_bio.h): the SSL reads
// what the inner transport received, and what it writes is handed to the inner transport's
// send(). So the same code serves both I/O backends, epoll and io_uring, with no backend
// code.
//
// - Handshake. It begins at start() and is driven by the inner transport's receives, which
//   the decorator asks for itself; its output goes out through inner sends, one at a time
//   (the rest queues). Nothing is reported to the connection until it is done: then
//   security() answers, and application data that came with the last handshake bytes is
//   delivered. A handshake that fails (plain text, an unsupported protocol version, a client
//   certificate the policy refuses) logs one line naming the peer and OpenSSL's reason,
//   sends the alert OpenSSL made (waiting for it at most a second), and the connection
//   hears ended(). So does any later failure (a record that does not decrypt; a TLS 1.2
//   renegotiation, which OpenSSL refuses, after which its client aborts).
// - Handshake timeout. start() sets the inner transport's deadline (Transport::end_at) to
//   `handshake_timeout` after it and clears it once the handshake is done; a handshake
//   still unfinished then ends the connection, logged. The backends' own timers enforce it,
//   so no sweep is needed, and tests drive it with a timeout that has already passed.
// - Receiving. The connection's receive() becomes an inner receive(), so input stays as
//   bounded as on plain TCP. Whatever ciphertext an inner delivery brings is decrypted at
//   once into the connection's receive_space() (asked for as much as the ciphertext and
//   one record: the plaintext is never longer) and delivered, even if the connection has
//   not asked again (the contract allows what was on its way), so no plaintext waits in
//   the decorator. An inner delivery that completes no record asks for more. An idle
//   connection holds no buffers (SSL_MODE_RELEASE_BUFFERS; the input buffer goes when read).
// - Sending. send() encrypts at once (SSL_write copies the bytes) and hands the ciphertext
//   to the inner transport, queued behind a send in flight. It returns true only if the
//   inner transport took everything at once; else sent() follows once all of it has gone,
//   so the connection's output limit still bounds what waits.
// - Ending. A close_notify from the peer, or TCP's end, is peer_closed(). linger() first
//   sends a close_notify, then lingers on the inner transport once the queue has drained.
//   close() closes at once. A failure inside a call of the connection (an SSL_write that
//   fails) is reported from the loop, never from inside the call: through an inner
//   deadline that has already passed.
//
// Single-threaded, on the connection's loop, like every transport.

#include <chrono>
#include <memory>
#include <string>

#include "net/transport.h"
#include "tls/tls_context.h"

namespace tern::net {

// How long a client may take to finish its handshake after connecting.
inline constexpr std::chrono::seconds kHandshakeTimeout{10};

struct TlsTransportOptions {
  std::string peer = "unknown peer";  // names the client in log lines
  std::chrono::steady_clock::duration handshake_timeout = kHandshakeTimeout;
};

// Serves TLS over `inner` (not yet started) with an SSL from `context`, which must outlive
// the transport (reloads do not affect connections already made).
std::unique_ptr<Transport> make_tls_transport(std::unique_ptr<Transport> inner,
                                              const tls::TlsContext& context,
                                              TlsTransportOptions options = {});

}  // namespace tern::net
