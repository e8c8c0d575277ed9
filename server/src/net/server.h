#pragma once
// The TCP server: accepts connections (on a loop of its own) on its port and, when configured,
// its TLS port; refuses those past the limit (both ports together), hands the rest
// round-robin to the worker loops (of either I/O backend, net/worker_loops.h), and shuts
// down cleanly on SIGINT/SIGTERM or stop().
// When a bucket's cluster map changes, it has every connection that subscribed told.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <asio.hpp>

#include "commands/dispatcher.h"
#include "common/mutex.h"
#include "engine/bucket.h"
#include "net/server_config.h"
#include "net/server_stats.h"
#include "net/worker_loops.h"

namespace tern::net {

class Connection;

class Server {
 public:
  // Binds and listens at once (throws std::system_error if it cannot); serves from run().
  // `dispatcher` must outlive the server. Serves connections on `loops`, and stops them at
  // the end of run(). Becomes the listener of the dispatcher's node for cluster map changes.
  Server(const ServerConfig& config, commands::Dispatcher& dispatcher, std::string version,
         std::unique_ptr<WorkerLoops> loops);
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // The address and port actually bound (the port chosen when config.port was 0).
  asio::ip::tcp::endpoint local_endpoint() const { return plain_.acceptor.local_endpoint(); }
  // The TLS port's, when there is one.
  std::optional<asio::ip::tcp::endpoint> tls_endpoint() const;

  // Serves on the calling thread until a signal or stop(), then closes every connection
  // and joins the workers.
  void run();

  // Has `handler` called on the acceptor's thread at each SIGHUP from now on, which then no
  // longer ends the process (ternd reloads its TLS certificate). Call before run().
  void on_hangup(std::function<void()> handler);

  // Ends run(). Safe from any thread.
  void stop();

  // The general STAT group; register it with the dispatcher.
  ServerStats& stats() { return stats_; }

 private:
  // One listening port, and what its connections speak.
  struct Listener {
    asio::ip::tcp::acceptor acceptor;
    const tls::TlsContext* tls;  // null: plain TCP
    asio::steady_timer retry_timer;
  };

  void accept_next(Listener& listener);
  void on_accept(Listener& listener, const asio::error_code& error, asio::ip::tcp::socket socket);
  void wait_for_signal();
  void shut_down();
  void notify_cluster_map(engine::Bucket& bucket);

  const ServerConfig config_;
  commands::Dispatcher& dispatcher_;
  ServerStats stats_;  // outlives the workers: connections count themselves out of it
  asio::io_context acceptor_loop_{1};
  Listener plain_;
  std::optional<Listener> tls_;
  asio::signal_set signals_;
  std::function<void()> on_hangup_;
  std::unique_ptr<WorkerLoops> workers_;
  Mutex connections_mutex_;
  // May hold closed ones.
  std::vector<std::weak_ptr<Connection>> connections_ TERN_GUARDED_BY(connections_mutex_);
};

}  // namespace tern::net
