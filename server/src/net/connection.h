#pragma once
// One client connection, served on the event loop that owns its socket. Reads requests,
// answers a whole batch with one write, and stops reading while a large answer is pending.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <asio.hpp>

#include "commands/dispatcher.h"
#include "commands/session.h"
#include "engine/bucket.h"
#include "net/read_buffer.h"
#include "net/request_stream.h"
#include "net/server_stats.h"

namespace tern::net {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // Counts itself open in `stats` until destroyed. Everything passed must outlive it.
  Connection(asio::ip::tcp::socket socket, commands::Dispatcher& dispatcher,
             size_t max_item_size, ServerStats& stats);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Starts serving; call on the socket's event loop.
  void start();

  // Sends `bucket`'s new cluster map to the client, if it selected that bucket and asked
  // for notifications (Duplex + ClustermapChangeNotification). Call on the socket's loop.
  void notify_cluster_map(engine::Bucket& bucket);

  // The event loop the connection runs on.
  asio::any_io_executor executor() { return socket_.get_executor(); }

 private:
  void pump();
  void start_read();
  void on_read(const asio::error_code& error, size_t n);
  void send_pending();
  void on_written(const asio::error_code& error, size_t n);
  void linger();
  void discard_input();
  void close();

  asio::ip::tcp::socket socket_;
  asio::steady_timer linger_timer_;  // bounds how long linger() waits for the peer
  ServerStats& stats_;
  const std::string peer_;  // for logs
  commands::Session session_;
  RequestStream requests_;
  ReadBuffer input_;
  std::vector<uint8_t> pending_;  // responses not yet handed to the socket
  std::vector<uint8_t> writing_;  // responses the socket is sending
  bool reading_ = false;
  bool write_in_flight_ = false;
  bool peer_done_ = false;  // the peer closed its side or the stream ended
  bool closed_ = false;
};

}  // namespace tern::net
