#pragma once
// What the network layer needs to know to serve clients.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tern::tls {
class TlsContext;
}

namespace tern::net {

struct ServerConfig {
  std::string listen = "127.0.0.1";            // address to bind
  uint16_t port = 11210;                       // 0 picks a free port
  unsigned threads = 1;                        // worker threads, each running its own event loop
  size_t max_item_size = 20ull * 1024 * 1024;  // largest value accepted, in bytes
  size_t max_connections = 4096;               // connections beyond this are refused
                                               // (plain and TLS together)
  // The TLS port (0 picks a free one), served with `tls`, which must then be set and
  // outlive the server; nullopt for none.
  std::optional<uint16_t> tls_port;
  const tls::TlsContext* tls = nullptr;
};

}  // namespace tern::net
