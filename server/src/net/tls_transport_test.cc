// The TLS transport over the epoll backend (the tests in net/tls_transport_tests.h; the
// io_uring backend runs them in uring/tls_transport_uring_test.cc), and a Connection that
// serves requests over TLS.
#include "net/tls_transport.h"

#include <gtest/gtest.h>

#include <asio.hpp>
#include <chrono>
#include <memory>
#include <vector>

#include "commands/dispatcher.h"
#include "commands/dispatcher_harness.h"
#include "commands/test_node.h"
#include "net/connection.h"
#include "net/epoll_transport.h"
#include "net/loop_gate.h"
#include "net/server_stats.h"
#include "net/tls_transport_tests.h"
#include "protocol/opcode.h"
#include "protocol/status.h"

namespace tern::net::testing {
namespace {

struct EpollBackend {
  static bool available() { return true; }

  Opened open() {
    asio::ip::tcp::acceptor acceptor(loop, {asio::ip::make_address("127.0.0.1"), 0});
    asio::ip::tcp::socket client(loop);
    client.connect(acceptor.local_endpoint());
    asio::ip::tcp::socket accepted = acceptor.accept();
    accepted.set_option(asio::ip::tcp::no_delay(true));  // as the server sets it
    client.non_blocking(true);
    const int fd = client.native_handle();
    clients.push_back(std::move(client));
    return {fd, make_epoll_transport(std::move(accepted))};
  }

  void turn() {
    loop.restart();
    loop.run_for(std::chrono::milliseconds(1));
  }

  asio::io_context loop{1};
  std::vector<asio::ip::tcp::socket> clients;  // the client ends, closed before the loop goes
};

INSTANTIATE_TYPED_TEST_SUITE_P(Epoll, TlsTransportTest, EpollBackend);

// A Connection given a TlsContext speaks TLS on the transport it starts with.
TEST(TlsConnection, ServesRequestsOverTls) {
  storage::TempDir dir;
  tls::testing::TestCertificates certificates(dir.path());
  tls::TlsContext context({.certificate = certificates.path("server.pem"),
                           .private_key = certificates.path("server.key")});
  auto node = commands::testing::make_open_node();
  commands::Dispatcher dispatcher(*node);
  ServerStats stats("test", 1);
  EpollBackend backend;
  auto gate = std::make_shared<LoopGate>(backend.loop);
  Opened opened = backend.open();
  auto connection =
      std::make_shared<Connection>(gate, dispatcher, 1 << 20, stats, "test", &context);
  connection->start(std::move(opened.server));
  std::weak_ptr<Connection> alive = connection;
  connection.reset();  // held by its transport's pending I/O, as in the server

  TlsTestClient client(opened.client, {.ca = certificates.path("ca.pem")});
  client.send(commands::testing::encode({.opcode = protocol::Opcode::Noop, .opaque = 0x1234}));
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::vector<commands::testing::Response> answers;
  while (answers.empty() && !client.failed() && std::chrono::steady_clock::now() < limit) {
    client.pump();
    backend.turn();
    if (client.in.size() >= protocol::kHeaderSize)
      answers = commands::testing::decode_all(client.in);
  }
  ASSERT_FALSE(client.failed()) << *client.error;
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].opaque, 0x1234u);
  EXPECT_EQ(answers[0].status, protocol::Status::Success);
  EXPECT_FALSE(alive.expired());
  gate->close();
}

}  // namespace
}  // namespace tern::net::testing
