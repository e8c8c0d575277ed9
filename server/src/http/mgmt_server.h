#pragma once
// The management port: Couchbase's cluster-manager REST subset, /metrics and the console,
// over HTTP (or HTTPS, for the management TLS port: same routes, same logins) on its own threads
// (cpp-httplib's pool), so the KV worker loops never run a management request and a flood of them
// cannot stall the KV port's loops. Its threads run at a lower scheduling priority than the KV
// port's for the same reason.
//
// Limits: a body over kMaxBodyBytes answers 413; a request that does not arrive whole within
// read_timeout, or a connection idle for idle_timeout, is closed.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "http/mgmt_context.h"

namespace httplib {
class Server;
}

namespace tern::tls {
class TlsContext;
}

namespace tern::http {

inline constexpr size_t kMaxBodyBytes = 1024 * 1024;

struct MgmtServerConfig {
  std::string listen = "127.0.0.1";
  uint16_t port = 8091;                   // 0 picks a free port
  std::chrono::seconds read_timeout{10};  // a request must arrive whole within this
  // A connection that sends no request for this long is closed. Short, because cpp-httplib
  // gives each open connection one thread of the pool for its whole life: a browser keeps up
  // to six idle keep-alive connections, which with a long wait held every thread and queued
  // the next requests for the full timeout (the console's page took 20 s to load).
  std::chrono::seconds idle_timeout{2};
  unsigned threads = 8;  // at least a browser's six connections to one host
  // With a context, which must outlive the server, it speaks HTTPS with the context's
  // certificate (following its reloads) and client-certificate policy.
  const tls::TlsContext* tls = nullptr;
};

class MgmtServer {
 public:
  // Registers every route and binds the port; throws std::runtime_error naming the address
  // when it cannot bind. `context` must outlive the server; its address.mgmt_port (or, over
  // TLS, mgmt_tls_port) is set to the bound port. Serving starts with start().
  MgmtServer(const MgmtServerConfig& config, MgmtContext& context);
  ~MgmtServer();  // stops serving and joins its threads
  MgmtServer(const MgmtServer&) = delete;
  MgmtServer& operator=(const MgmtServer&) = delete;

  uint16_t port() const { return port_; }

  // Serves on a thread of its own until the destructor.
  void start();

 private:
  std::unique_ptr<httplib::Server> server_;
  uint16_t port_ = 0;
  std::thread listener_;
  std::atomic<bool> listener_done_ = false;  // listen_after_bind() returned
};

}  // namespace tern::http
