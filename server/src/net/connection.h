#pragma once
// One client connection, served on the event loop that owns its socket. Reads requests,
// answers a whole batch with one write, and stops reading while a large answer is pending.
// Its bytes move through a Transport (net/transport.h), of either I/O backend.
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
#include <utility>
#include <vector>

#include "commands/dispatcher.h"
#include "commands/parked_request.h"
#include "commands/session.h"
#include "engine/bucket.h"
#include "net/loop_gate.h"
#include "net/read_buffer.h"
#include "net/request_stream.h"
#include "net/server_stats.h"
#include "net/transport.h"
#include "tls/tls_context.h"

namespace tern::net {

class Connection : public std::enable_shared_from_this<Connection>,
                   public TransportEvents,
                   private commands::RequestParker {
 public:
  // With UnorderedExecution, how many requests may wait (parked) before the connection stops
  // reading until some are answered: each holds a copy of its frame, and a client must not
  // be able to pile them up without bound. (What one read brought is still executed, so
  // the bound is this plus one read's requests.) Without it, one parked request stops it.
  static constexpr size_t kMaxParked = 1024;

  // Counts itself open in `stats` until destroyed. `gate` leads into the loop it will run
  // on (without one, no request may wait). `peer` names the client in logs. Everything
  // passed by reference must outlive it. May be built on any thread. With `tls`, which
  // must outlive it too, the connection speaks TLS (net/tls_transport.h) over the
  // transport start() is given, and its session is secure once the handshake is done.
  Connection(std::shared_ptr<LoopGate> gate, commands::Dispatcher& dispatcher,
             size_t max_item_size, ServerStats& stats, std::string peer,
             const tls::TlsContext* tls = nullptr);
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Starts serving through `transport` (of the backend, plain TCP); call on its event loop.
  void start(std::unique_ptr<Transport> transport);

  // Sends `bucket`'s new cluster map to the client, if it selected that bucket and asked
  // for notifications (Duplex + ClustermapChangeNotification). Call on the socket's loop.
  void notify_cluster_map(engine::Bucket& bucket);

  // Runs `work` on the connection's loop, from any thread (dropped once the loop ends).
  template <class Work>
  void post(Work&& work) {
    if (gate_ != nullptr) gate_->post(std::forward<Work>(work));
  }

  // The client's address and port, for logs.
  const std::string& peer() const { return peer_; }

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

  // TransportEvents.
  std::span<uint8_t> receive_space(size_t at_least) override;
  void received(size_t n) override;
  void peer_closed() override;
  void sent() override;
  void ended(std::error_code error) override;

  // At the first input: what the transport learned of the peer's security goes to the
  // session.
  void learn_security();
  void pump();
  void start_read();
  void send_pending();
  void close();

  const tls::TlsContext* const tls_;  // null for plain TCP
  std::unique_ptr<Transport> transport_;
  const std::shared_ptr<LoopGate> gate_;
  ServerStats& stats_;
  const std::string peer_;  // for logs
  commands::Session session_;
  RequestStream requests_;
  ReadBuffer input_;
  std::vector<uint8_t> pending_;  // responses not yet handed to the socket
  std::vector<uint8_t> writing_;  // responses the socket is sending
  std::map<uint64_t, std::unique_ptr<commands::ParkedRequest>> parked_;  // by ticket id
  uint64_t next_ticket_ = 0;
  bool reading_ = false;  // a receive was asked for and has not been reported yet
  bool write_in_flight_ = false;
  bool lingering_ = false;  // the transport was told to end the connection
  bool peer_done_ = false;  // the peer closed its side or the stream ended
  bool closed_ = false;
  bool security_learned_ = false;  // learn_security() ran
};

}  // namespace tern::net
