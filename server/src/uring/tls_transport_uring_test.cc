// The TLS transport over the io_uring backend: the tests in net/tls_transport_tests.h.
#include <unistd.h>

#include <chrono>
#include <memory>
#include <vector>

#include "net/tls_transport_tests.h"
#include "uring/test_sockets.h"
#include "uring/uring_loop.h"
#include "uring/uring_transport.h"

namespace tern::net::testing {
namespace {

struct UringBackend {
  static bool available() { return !uring::testing::uring_refused(); }

  ~UringBackend() {
    for (const int fd : clients) ::close(fd);
  }

  Opened open() {
    const uring::testing::SocketPair pair = uring::testing::connected_pair();
    clients.push_back(pair.client);
    return {pair.client, std::make_unique<uring::UringTransport>(loop, pair.server)};
  }

  void turn() { loop.turn(std::chrono::milliseconds(1)); }

  uring::UringLoop loop;
  std::vector<int> clients;  // the client ends, closed before the loop goes
};

INSTANTIATE_TYPED_TEST_SUITE_P(Uring, TlsTransportTest, UringBackend);

}  // namespace
}  // namespace tern::net::testing
