#pragma once
// How a Connection moves its bytes. A transport owns one connected socket and does the I/O
// on the event loop the connection lives on. The connection decides what to read and send,
// and when (net/connection.h); the transport tells it what happened through TransportEvents,
// always on that loop and never from inside a call the connection made to the transport.
//
// Two backends implement it: epoll, through asio's reactor (net/epoll_transport.h), and
// io_uring, with a multishot receive into provided buffers and sends that every connection
// on a loop submits together, once per turn of the loop (uring/).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <system_error>

namespace tern::net {

struct TransportSecurity;  // net/transport_security.h

// What a transport reports to its connection.
class TransportEvents {
 public:
  virtual ~TransportEvents() = default;

  // Free space for at least `at_least` received bytes, after the input not yet consumed.
  // Valid until received() or the next receive_space().
  virtual std::span<uint8_t> receive_space(size_t at_least) = 0;

  // `n` (> 0) bytes were written at the start of the last receive_space().
  virtual void received(size_t n) = 0;

  // The peer closed its side: nothing more will be received.
  virtual void peer_closed() = 0;

  // The bytes of the last send() that returned false are all sent.
  virtual void sent() = 0;

  // The transport can do no more: receiving or sending failed, or linger() ended. The
  // connection closes.
  virtual void ended(std::error_code error) = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;

  // Reports to `owner` from now on. The transport keeps `owner` alive while any I/O of its
  // own is pending, or while keep_open(true) holds, and no longer: a connection whose loop
  // ends is freed with the loop. Call once, on the loop, before anything else.
  virtual void start(std::shared_ptr<TransportEvents> owner) = 0;

  // Asks for input: one of received(), peer_closed() or ended() follows once something
  // arrives. The connection asks again each time it wants more; until it does, the
  // transport stops taking input from the socket, so a client cannot make the server hold
  // more than it asked for (beyond what was already on its way: a transport may still
  // deliver bytes that were in flight when it stopped, and the connection takes them).
  virtual void receive() = 0;

  // Sends `bytes`, which must stay valid and unchanged until sent() or ended(). Returns
  // true if the socket took them all at once (then no sent() follows); false if they go
  // asynchronously. At most one send is in progress at a time.
  virtual bool send(std::span<const uint8_t> bytes) = 0;

  // Ends a connection the peer may still be sending on, without losing what was sent:
  // shuts down the sending side (after bytes already sent), drops input until the peer
  // closes or `patience` passes, then reports ended(). Closing a socket that still holds
  // unread input would make the kernel reset it, discarding the answers on their way.
  virtual void linger(std::chrono::steady_clock::duration patience) = 0;

  // While true, keeps the owner alive though no I/O is pending (requests wait elsewhere,
  // and their completions hold the connection only weakly).
  virtual void keep_open(bool keep) = 0;

  // Closes the socket now and ends any keep_open(true). Pending I/O ends without reporting
  // to the owner. Idempotent.
  virtual void close() = 0;

  // Reports ended(std::errc::timed_out) once `when` has passed, unless end_at() is called
  // again before (time_point::max() clears the deadline). One deadline at a time: for a
  // phase the peer must finish in time, such as a TLS handshake. The deadline does not keep
  // the owner alive.
  virtual void end_at(std::chrono::steady_clock::time_point when) = 0;

  // What the transport knows of the peer's security: nullptr for plain TCP. A TLS transport
  // answers once its handshake is done, which is before its first received().
  virtual const TransportSecurity* security() const { return nullptr; }
};

}  // namespace tern::net
