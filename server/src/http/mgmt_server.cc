#include "http/mgmt_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <spdlog/spdlog.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <exception>
#include <stdexcept>

#include "http/route_groups.h"
#include "tls/tls_context.h"

namespace tern::http {

namespace {

// Nice value of the HTTP threads: the KV port's loops win the CPU when both want it.
constexpr int kHttpNice = 10;

// Runs on the listener thread before it starts the request threads: on Linux a thread
// inherits its creator's name and nice value, so the whole pool gets both. The name keeps
// the HTTP threads apart from the KV worker loops in ps and /proc.
void set_up_listener_thread() {
  pthread_setname_np(pthread_self(), "ternd-http");
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kHttpNice);
}

std::unique_ptr<httplib::Server> make_server(const tls::TlsContext* tls) {
  if (tls == nullptr) return std::make_unique<httplib::Server>();
  // The SSL_CTX is cpp-httplib's; the context installs its own pair and policy into it, and
  // each handshake takes the current pair, so a reload reaches this port too.
  auto server = std::make_unique<httplib::SSLServer>([tls](SSL_CTX& ctx) {
    tls->adopt(ctx);
    return true;
  });
  if (!server->is_valid()) throw std::runtime_error("management TLS port: no TLS context");
  return server;
}

}  // namespace

MgmtServer::MgmtServer(const MgmtServerConfig& config, MgmtContext& context)
    : server_(make_server(config.tls)) {
  const unsigned threads = config.threads;
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_payload_max_length(kMaxBodyBytes);
  server_->set_read_timeout(config.read_timeout);
  server_->set_keep_alive_timeout(config.idle_timeout.count());
  server_->set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr error) {
        std::string what = "unknown error";
        try {
          std::rethrow_exception(error);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        spdlog::error("management port: {} {} failed: {}", req.method, req.path, what);
        res.status = 500;
        res.set_content(fmt::format("\"Unexpected server error: {}\"", what), "application/json");
      });
  server_->set_logger([](const httplib::Request& req, const httplib::Response& res) {
    spdlog::debug("management port: {} {} -> {}", req.method, req.path, res.status);
  });

  Routes routes(*server_, context.node);
  add_all_routes(routes, context);

  const int bound = config.port == 0 ? server_->bind_to_any_port(config.listen)
                                     : (server_->bind_to_port(config.listen, config.port)
                                            ? static_cast<int>(config.port)
                                            : -1);
  if (bound <= 0) {
    throw std::runtime_error(fmt::format("management {}port: cannot listen on {}:{}",
                                         config.tls ? "TLS " : "", config.listen, config.port));
  }
  port_ = static_cast<uint16_t>(bound);
  (config.tls == nullptr ? context.address.mgmt_port : context.address.mgmt_tls_port) = port_;
}

MgmtServer::~MgmtServer() {
  // stop() does nothing to a server whose listener thread has not begun listening yet, which
  // would then listen forever: a SIGTERM right after start-up meets exactly that.
  if (listener_.joinable()) {
    while (!server_->is_running() && !listener_done_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  server_->stop();
  if (listener_.joinable()) listener_.join();
}

void MgmtServer::start() {
  listener_ = std::thread([this] {
    set_up_listener_thread();
    server_->listen_after_bind();
    listener_done_ = true;
  });
}

}  // namespace tern::http
