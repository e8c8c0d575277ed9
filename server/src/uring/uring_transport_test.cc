// UringTransport on real loopback sockets, driven turn by turn by the test: ordered input
// across many multishot completions (more than the buffer ring holds), a send larger than
// the socket's buffers, the peer's close or reset, input stopping when not asked for,
// linger, close() with a send in flight, a buffer ring too small for its connections, and
// the limit on what one ask takes.
//
// The kernel's loopback may deliver late on a busy machine: every step waits (turning the
// loop) for what it needs to have happened, with a bound only a broken transport reaches,
// and never for a fixed time.
#include "uring/uring_transport.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "uring/test_sockets.h"
#include "uring/uring_loop.h"

namespace tern::uring {
namespace {

using namespace testing;  // uring/test_sockets.h

// A small client receive buffer: a few MB then exceed what the kernel can hold in flight.
constexpr int kSmallBuffer = 64 * 1024;
constexpr size_t kLarge = 8 << 20;
// What one receive may take: its limit, and the buffer the kernel fills when it gets there.
constexpr size_t kMostOneAskTakes = RingOptions{}.receive_limit + RingOptions{}.buffer_size;

class UringTransportTest : public ::testing::Test {
 protected:
  // One connection: the recorder on the server end, the client end for the test.
  std::shared_ptr<Recorder> open(Client& client, bool small_client_buffer = false) {
    auto pair = small_client_buffer ? connected_pair(kSmallBuffer) : connected_pair();
    client.fd = pair.client;
    return Recorder::start(*loop_, pair.server);
  }

  // Requests still pending besides the loop's own eventfd read.
  uint64_t transport_requests() const { return loop_->in_flight() - 1; }

  void SetUp() override {
    TERN_SKIP_WITHOUT_URING();
    loop_.emplace();
  }

  std::optional<UringLoop> loop_;
};

TEST_F(UringTransportTest, InputArrivesInOrderAcrossManyReceives) {
  Client client;
  auto recorder = open(client);
  client.out = pattern(kLarge);
  recorder->transport->receive();
  ASSERT_TRUE(turn_until(
      *loop_, [&] { return recorder->used == kLarge; }, [&] { client.pump(); }));
  EXPECT_EQ(recorder->input, client.out);
  // Twice what the buffer ring holds: its buffers were given back and taken again.
  EXPECT_GT(recorder->deliveries, 1);
}

TEST_F(UringTransportTest, LargeSendArrivesWhole) {
  Client client;
  auto recorder = open(client, /*small_client_buffer=*/true);
  const auto answer = pattern(kLarge, 3);
  EXPECT_FALSE(recorder->transport->send(answer));
  ASSERT_TRUE(turn_until(
      *loop_, [&] { return recorder->sends_done == 1 && client.in.size() == kLarge; },
      [&] { client.pump(); }));
  EXPECT_EQ(client.in, answer);
  EXPECT_FALSE(recorder->end.has_value());
}

TEST_F(UringTransportTest, PeerCloseIsReported) {
  Client client;
  auto recorder = open(client);
  client.out = pattern(1000);
  recorder->transport->receive();
  ASSERT_TRUE(turn_until(
      *loop_, [&] { return recorder->used == 1000; }, [&] { client.pump(); }));
  client.close();
  ASSERT_TRUE(turn_until(*loop_, [&] { return recorder->peer_gone; }));
  EXPECT_FALSE(recorder->end.has_value());
  // Nothing stays armed on a socket that can bring nothing more.
  EXPECT_TRUE(turn_until(*loop_, [&] { return transport_requests() == 0; }));
}

TEST_F(UringTransportTest, ResetEndsWithAnError) {
  Client client;
  auto recorder = open(client);
  recorder->transport->receive();
  loop_->turn(std::chrono::milliseconds(0));  // the receive is armed
  client.reset();
  ASSERT_TRUE(turn_until(*loop_, [&] { return recorder->end.has_value(); }));
  EXPECT_TRUE(*recorder->end);
  EXPECT_FALSE(recorder->peer_gone);
}

TEST_F(UringTransportTest, InputStopsWhenNotAskedForAgain) {
  Client client;
  auto recorder = open(client);
  // More than the buffer ring (4 MiB) and the socket buffers hold: what arrives before the
  // cancel lands is delivered, within the receive's limit.
  constexpr size_t kTotal = 16 << 20;
  client.out = pattern(kTotal);
  recorder->ask_again = false;
  recorder->transport->receive();
  ASSERT_TRUE(turn_until(
      *loop_, [&] { return recorder->deliveries > 0; }, [&] { client.pump(); }));
  // What was in flight when the receive was cancelled may still come; then nothing.
  ASSERT_TRUE(turn_until(
      *loop_, [&] { return transport_requests() == 0; }, [&] { client.pump(); }));
  const size_t taken = recorder->used;
  for (int i = 0; i < 5; ++i) {
    client.pump();
    loop_->turn(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(recorder->used, taken);
  EXPECT_LE(taken, kMostOneAskTakes);
  // Asking again brings the rest, in order.
  recorder->ask_again = true;
  recorder->transport->receive();
  ASSERT_TRUE(turn_until(
      *loop_, [&] { return recorder->used == kTotal; }, [&] { client.pump(); }));
  EXPECT_EQ(recorder->input, client.out);
}

TEST_F(UringTransportTest, LingerEndsWhenThePeerCloses) {
  Client client;
  auto recorder = open(client);
  recorder->transport->linger(std::chrono::hours(1));
  // The server's side is shut: the client sees the end of the stream, and its later input
  // is dropped without a reset.
  ASSERT_TRUE(turn_until(
      *loop_, [&] { return client.eof; }, [&] { client.pump(); }));
  client.out = pattern(100 * 1024);
  ASSERT_TRUE(turn_until(
      *loop_, [&] { return client.written == client.out.size(); }, [&] { client.pump(); }));
  EXPECT_FALSE(recorder->end.has_value());
  client.close();
  ASSERT_TRUE(turn_until(*loop_, [&] { return recorder->end.has_value(); }));
  EXPECT_FALSE(*recorder->end);
  EXPECT_EQ(recorder->used, 0u);
}

TEST_F(UringTransportTest, LingerEndsWhenPatienceRunsOut) {
  Client client;
  auto recorder = open(client);
  recorder->transport->linger(std::chrono::milliseconds(20));
  ASSERT_TRUE(turn_until(*loop_, [&] { return recorder->end.has_value(); }));
  EXPECT_EQ(*recorder->end, std::errc::timed_out);
}

TEST_F(UringTransportTest, LingerAfterThePeerClosedEndsAtOnce) {
  Client client;
  auto recorder = open(client);
  recorder->transport->receive();
  client.close();
  ASSERT_TRUE(turn_until(*loop_, [&] { return recorder->peer_gone; }));
  recorder->transport->linger(std::chrono::hours(1));
  EXPECT_FALSE(recorder->end.has_value());  // never inside the owner's call
  ASSERT_TRUE(turn_until(*loop_, [&] { return recorder->end.has_value(); }));
  EXPECT_FALSE(*recorder->end);
}

TEST_F(UringTransportTest, CloseWithASendInFlightKeepsTheOwnerUntilItCompletes) {
  Client client;
  auto recorder = open(client, /*small_client_buffer=*/true);
  const auto answer = pattern(kLarge);
  recorder->transport->send(answer);
  // The client reads nothing: the send fills the socket's buffers and waits in the kernel.
  int available = 0;
  ASSERT_TRUE(turn_until(*loop_, [&] {
    ioctl(client.fd, FIONREAD, &available);
    return available > 0 && transport_requests() == 1;
  }));
  std::weak_ptr<Recorder> weak = recorder;
  recorder->transport->close();
  recorder.reset();
  EXPECT_FALSE(weak.expired());  // the kernel may still read `answer`'s bytes
  ASSERT_TRUE(turn_until(*loop_, [&] { return weak.expired(); }));
  EXPECT_EQ(transport_requests(), 0u);
}

TEST_F(UringTransportTest, CloseReportsNothing) {
  Client client;
  auto recorder = open(client);
  recorder->transport->receive();
  loop_->turn(std::chrono::milliseconds(0));
  client.out = pattern(1000);
  client.pump();
  recorder->transport->close();
  ASSERT_TRUE(turn_until(*loop_, [&] { return transport_requests() == 0; }));
  EXPECT_EQ(recorder->deliveries, 0);
  EXPECT_FALSE(recorder->peer_gone);
  EXPECT_FALSE(recorder->end.has_value());
  // The client sees the connection end.
  ASSERT_TRUE(turn_until(
      *loop_, [&] { return client.eof || client.error != 0; }, [&] { client.read_available(); }));
}

// A client that sends without reading: however much waits in the socket, one ask brings at
// most the receive's limit (the kernel's multishot limit, or one-shot receives of a buffer
// where the kernel has none), and asking again brings the rest, in order.
class UringTransportLimit : public ::testing::TestWithParam<bool> {};

TEST_P(UringTransportLimit, OneAskTakesAtMostTheLimit) {
  TERN_SKIP_WITHOUT_URING();
  const RingOptions options{.multishot_limit = GetParam()};
  UringLoop loop(options);
  auto pair = connected_pair();
  // Room for megabytes in the server's socket, as a busy connection's window grows to.
  const int large = 4 << 20;
  check(setsockopt(pair.server, SOL_SOCKET, SO_RCVBUF, &large, sizeof large) == 0, "setsockopt");
  Client client;
  client.fd = pair.client;
  client.out = pattern(4 << 20);
  auto recorder = Recorder::start(loop, pair.server);
  recorder->ask_again = false;
  // Far more than the limit waits before the connection asks.
  constexpr int kWaiting = 1 << 20;
  ASSERT_TRUE(turn_until(
      loop,
      [&] {
        int waiting = 0;
        ioctl(pair.server, FIONREAD, &waiting);
        return waiting >= kWaiting;
      },
      [&] { client.pump(); }));
  recorder->transport->receive();
  ASSERT_TRUE(turn_until(loop, [&] { return loop.in_flight() == 1; }));
  EXPECT_GT(recorder->used, 0u);
  EXPECT_LE(recorder->used, options.receive_limit + options.buffer_size);
  recorder->ask_again = true;
  recorder->transport->receive();
  ASSERT_TRUE(turn_until(
      loop, [&] { return recorder->used == client.out.size(); }, [&] { client.pump(); }));
  EXPECT_EQ(recorder->input, client.out);
  EXPECT_LE(recorder->largest_delivery, options.receive_limit + options.buffer_size);
}

INSTANTIATE_TEST_SUITE_P(KernelLimitOrOneShot, UringTransportLimit, ::testing::Bool());

// Four 1 KiB buffers for sixteen connections that all send at once: the receives run out of
// buffers again and again, are armed again, and lose nothing.
TEST(UringTransportBuffers, ExhaustionLosesNoByte) {
  TERN_SKIP_WITHOUT_URING();
  UringLoop loop(RingOptions{.entries = 64, .buffer_count = 4, .buffer_size = 1024});
  constexpr int kConnections = 16;
  constexpr size_t kEach = 256 * 1024;
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::shared_ptr<Recorder>> recorders;
  for (int i = 0; i < kConnections; ++i) {
    auto pair = connected_pair();
    clients.push_back(std::make_unique<Client>());
    clients.back()->fd = pair.client;
    clients.back()->out = pattern(kEach, static_cast<uint8_t>(i));
    recorders.push_back(Recorder::start(loop, pair.server));
    recorders.back()->transport->receive();
  }
  ASSERT_TRUE(turn_until(
      loop,
      [&] {
        for (const auto& recorder : recorders) {
          if (recorder->used != kEach) return false;
        }
        return true;
      },
      [&] {
        for (auto& client : clients) client->pump();
      }));
  for (int i = 0; i < kConnections; ++i) {
    EXPECT_EQ(recorders[i]->input, clients[i]->out) << "connection " << i;
  }
}

}  // namespace
}  // namespace tern::uring
