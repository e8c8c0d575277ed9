#pragma once
// What the network layer needs to know to serve clients.

#include <cstddef>
#include <cstdint>
#include <string>

namespace tern::net {

struct ServerConfig {
  std::string listen = "127.0.0.1";  // address to bind
  uint16_t port = 11210;             // 0 picks a free port
  unsigned threads = 1;              // worker threads, each running its own event loop
  size_t max_item_size = 20ull * 1024 * 1024;  // largest value accepted, in bytes
  size_t max_connections = 4096;               // connections beyond this are refused
};

}  // namespace tern::net
