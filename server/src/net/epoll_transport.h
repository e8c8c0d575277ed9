#pragma once
// The epoll backend's transport: a socket served through asio's reactor.
//
// A receive right after one that drained the socket would find it empty (the client is still
// waiting for the answers to what it sent), so it first waits for readiness, and then reads:
// a request costs one receive and one send. (asio's epoll reactor re-arms the socket with an
// epoll_ctl for each wait, so the syscall count stays; docs/performance.md has the figures.)
// Any other receive is tried at once, and completes through the loop's queue, so a
// connection with a full buffer does not starve the others on its loop. A send goes out at
// once as far as the socket takes it (usually all: this saves the loop a round trip per
// batch), and the rest asynchronously.

#include <memory>

#include <asio.hpp>

#include "net/transport.h"

namespace tern::net {

// `socket` must be connected, and belong to the loop the connection will run on.
std::unique_ptr<Transport> make_epoll_transport(asio::ip::tcp::socket socket);

}  // namespace tern::net
