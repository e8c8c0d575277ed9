#include "net/server.h"

#include <csignal>
#include <memory>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "commands/node.h"
#include "net/connection.h"

namespace tern::net {

namespace {

asio::ip::tcp::acceptor bound_acceptor(asio::io_context& loop, const ServerConfig& config,
                                       uint16_t port) {
  asio::ip::tcp::endpoint endpoint(asio::ip::make_address(config.listen), port);
  asio::ip::tcp::acceptor acceptor(loop, endpoint.protocol());
  acceptor.set_option(asio::socket_base::reuse_address(true));
  acceptor.bind(endpoint);
  acceptor.listen(asio::socket_base::max_listen_connections);
  return acceptor;
}

std::string peer_name(const asio::ip::tcp::socket& socket) {
  asio::error_code error;
  auto endpoint = socket.remote_endpoint(error);
  if (error) return "unknown peer";
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

}  // namespace

Server::Server(const ServerConfig& config, commands::Dispatcher& dispatcher, std::string version,
               std::unique_ptr<WorkerLoops> loops)
    : config_(config),
      dispatcher_(dispatcher),
      stats_(std::move(version), std::max(config.threads, 1u)),
      plain_{bound_acceptor(acceptor_loop_, config, config.port), nullptr,
             asio::steady_timer(acceptor_loop_)},
      signals_(acceptor_loop_, SIGINT, SIGTERM),
      workers_(std::move(loops)) {
  if (config.tls_port) {
    if (config.tls == nullptr) throw std::invalid_argument("a TLS port needs a TLS context");
    tls_.emplace(Listener{bound_acceptor(acceptor_loop_, config, *config.tls_port), config.tls,
                          asio::steady_timer(acceptor_loop_)});
  }
  dispatcher_.node().set_cluster_map_listener(
      [this](engine::Bucket& bucket) { notify_cluster_map(bucket); });
}

void Server::notify_cluster_map(engine::Bucket& bucket) {
  MutexLock lock(connections_mutex_);
  for (const auto& weak : connections_) {
    if (auto connection = weak.lock()) {
      connection->post([connection, &bucket] { connection->notify_cluster_map(bucket); });
    }
  }
}

std::optional<asio::ip::tcp::endpoint> Server::tls_endpoint() const {
  if (!tls_) return std::nullopt;
  return tls_->acceptor.local_endpoint();
}

void Server::on_hangup(std::function<void()> handler) {
  on_hangup_ = std::move(handler);
  signals_.add(SIGHUP);
}

void Server::wait_for_signal() {
  signals_.async_wait([this](const asio::error_code& error, int signal) {
    if (error) return;
    if (signal == SIGHUP) {
      on_hangup_();
      wait_for_signal();
      return;
    }
    spdlog::info("signal {} received: shutting down", signal);
    shut_down();
  });
}

void Server::run() {
  wait_for_signal();
  accept_next(plain_);
  if (tls_) accept_next(*tls_);
  acceptor_loop_.run();
  workers_->stop();
  spdlog::info("stopped");
}

void Server::stop() {
  asio::post(acceptor_loop_, [this] { shut_down(); });
}

void Server::shut_down() {
  asio::error_code ignored;
  signals_.cancel(ignored);
  for (Listener* listener : {&plain_, tls_ ? &*tls_ : nullptr}) {
    if (listener == nullptr) continue;
    listener->acceptor.close(ignored);
    listener->retry_timer.cancel();
  }
}

void Server::accept_next(Listener& listener) {
  listener.acceptor.async_accept(acceptor_loop_, [this, &listener](const asio::error_code& error,
                                                                   asio::ip::tcp::socket socket) {
    on_accept(listener, error, std::move(socket));
  });
}

void Server::on_accept(Listener& listener, const asio::error_code& error,
                       asio::ip::tcp::socket socket) {
  if (!listener.acceptor.is_open()) return;
  if (error) {
    // Out of descriptors or a similar transient failure: back off instead of spinning.
    spdlog::warn("accept failed: {}", error.message());
    listener.retry_timer.expires_after(std::chrono::milliseconds(100));
    listener.retry_timer.async_wait([this, &listener](const asio::error_code& timer_error) {
      if (!timer_error && listener.acceptor.is_open()) accept_next(listener);
    });
    return;
  }
  if (stats_.curr_connections() >= config_.max_connections) {
    stats_.connection_rejected();
    spdlog::debug("refusing a connection: {} connections already open", stats_.curr_connections());
    asio::error_code ignored;
    socket.close(ignored);
  } else {
    WorkerLoop& loop = workers_->next();
    auto connection = std::make_shared<Connection>(loop.gate(), dispatcher_, config_.max_item_size,
                                                   stats_, peer_name(socket), listener.tls);
    {
      MutexLock lock(connections_mutex_);
      std::erase_if(connections_, [](const auto& weak) { return weak.expired(); });
      connections_.push_back(connection);
    }
    asio::error_code error;
    // Answers are small and the client waits for them: Nagle's algorithm would hold one back
    // until the previous is acknowledged, which the peer may delay by 40 ms.
    socket.set_option(asio::ip::tcp::no_delay(true), error);
    const int fd = socket.release(error);
    if (error) {
      spdlog::warn("could not hand over a connection from {}: {}", connection->peer(),
                   error.message());
    } else {
      loop.serve(fd, std::move(connection));
    }
  }
  accept_next(listener);
}

}  // namespace tern::net
