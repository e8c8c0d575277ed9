#pragma once
// One client connection, served on the event loop that owns its socket. Reads requests,
// answers a whole batch with one write, and stops reading while a large answer is pending.
//
// A request may wait (commands/parked_request.h): its handler parks it, and its completion
// comes back through the loop's gate, holding only a weak reference to the connection. Until
// then, unless the client negotiated UnorderedExecution, the connection neither reads nor
// runs later requests, so answers leave in request order; with it, later requests run and the
// parked answer leaves when it is ready. A connection that closed meanwhile drops it. A
// request parked to run again (after a background fetch) is executed again in its place.

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <asio.hpp>

#include "commands/dispatcher.h"
#include "commands/parked_request.h"
#include "commands/session.h"
#include "engine/bucket.h"
#include "net/loop_gate.h"
#include "net/read_buffer.h"
#include "net/request_stream.h"
#include "net/server_stats.h"

namespace tern::net {

class Connection : public std::enable_shared_from_this<Connection>,
                   private commands::RequestParker {
 public:
  // With UnorderedExecution, how many requests may wait (parked) before the connection stops
  // reading until some are answered: each holds a copy of its frame, and a client must not
  // be able to pile them up without bound. (What one read brought is still executed, so
  // the bound is this plus one read's requests.) Without it, one parked request stops it.
  static constexpr size_t kMaxParked = 1024;

  // Counts itself open in `stats` until destroyed. `gate` leads into the socket's loop.
  // Everything passed by reference must outlive it.
  Connection(asio::ip::tcp::socket socket, std::shared_ptr<LoopGate> gate,
             commands::Dispatcher& dispatcher, size_t max_item_size, ServerStats& stats);
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

  // Requests parked and not yet finished.
  size_t parked_count() const { return parked_.size(); }

 private:
  class Ticket;  // one parked request's way back (connection.cc)

  commands::ParkedNotifier park(const protocol::Frame& request,
                                const commands::ReplyContext& context) override;
  // On the loop: appends the parked request's answer, or executes it again for an empty
  // completion (unless the connection is ending), and makes what progress that allows.
  void finish_parked(uint64_t id, const commands::Completion& completion);
  // Whether a parked request holds back the requests after it.
  bool held_back() const;

  void pump();
  void start_read();
  // Free space for the next read, sized for the frame being received.
  std::span<uint8_t> read_space();
  void wait_readable();
  void on_readable(const asio::error_code& error);
  // `offered`: the space the read was given; a read that did not fill it drained the socket.
  void on_read(const asio::error_code& error, size_t n, size_t offered);
  void send_pending();
  void on_written(const asio::error_code& error, size_t n);
  void linger();
  void discard_input();
  void close();

  asio::ip::tcp::socket socket_;
  const std::shared_ptr<LoopGate> gate_;
  asio::steady_timer linger_timer_;  // bounds how long linger() waits for the peer
  // Armed while requests are parked: its pending wait holds the connection alive (the
  // completions hold it only weakly), and the loop's end frees it like any pending handler.
  asio::steady_timer parked_timer_;
  ServerStats& stats_;
  const std::string peer_;  // for logs
  commands::Session session_;
  RequestStream requests_;
  ReadBuffer input_;
  std::vector<uint8_t> pending_;  // responses not yet handed to the socket
  std::vector<uint8_t> writing_;  // responses the socket is sending
  std::map<uint64_t, std::unique_ptr<commands::ParkedRequest>> parked_;  // by ticket id
  uint64_t next_ticket_ = 0;
  bool reading_ = false;
  // The read being completed drained the socket: the next read waits for readiness first.
  bool drained_ = false;
  bool write_in_flight_ = false;
  bool peer_done_ = false;  // the peer closed its side or the stream ended
  bool closed_ = false;
};

}  // namespace tern::net
