// start_uring_loops: loops that run on their threads and take posts through their gates,
// serve real connections (requests in, answers out), free every connection still open when
// they stop (the ASan stage's leak check), and after stop() drop posts and close the
// sockets serve() is given.
#include "uring/uring_loops.h"

#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "commands/dispatcher.h"
#include "commands/dispatcher_harness.h"
#include "commands/test_node.h"
#include "net/connection.h"
#include "net/server_stats.h"
#include "protocol/codec.h"
#include "uring/test_sockets.h"

namespace tern::uring {
namespace {

using commands::testing::Request;
using protocol::Opcode;
using testing::Client;
using testing::connected_pair;

// How many whole answers `bytes` holds.
size_t whole_answers(const std::vector<uint8_t>& bytes) {
  std::span<const uint8_t> rest(bytes);
  size_t count = 0;
  protocol::Frame frame;
  for (; protocol::decode_frame(rest, frame) == protocol::DecodeResult::Ok; ++count) {
    rest = rest.subspan(frame.size());
  }
  return count;
}

TEST(UringLoops, ServeConnectionsAndFreeThemAtStop) {
  TERN_SKIP_WITHOUT_URING();
  auto node = commands::testing::make_open_node();
  commands::Dispatcher dispatcher(*node);
  net::ServerStats stats("test", 2);
  auto loops = start_uring_loops(2);
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::weak_ptr<net::Connection>> connections;
  // A value larger than a provided buffer, so requests and answers span several.
  const std::string value(100 * 1024, 'v');
  for (int i = 0; i < 4; ++i) {
    auto pair = connected_pair();
    net::WorkerLoop& loop = loops->next();
    auto connection =
        std::make_shared<net::Connection>(loop.gate(), dispatcher, 1 << 20, stats, "test");
    connections.push_back(connection);
    loop.serve(pair.server, std::move(connection));
    auto client = std::make_unique<Client>();
    client->fd = pair.client;
    const std::string key = "key" + std::to_string(i);
    for (const Request& request :
         {Request{.opcode = Opcode::Set, .key = key, .value = value,
                  .extras = commands::testing::storage_extras(0, 0)},
          Request{.opcode = Opcode::Get, .key = key}, Request{.opcode = Opcode::Noop}}) {
      const auto bytes = commands::testing::encode(request);
      client->out.insert(client->out.end(), bytes.begin(), bytes.end());
    }
    clients.push_back(std::move(client));
  }
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  auto answered = [&] {
    for (auto& client : clients) {
      client->pump();
      if (whole_answers(client->in) < 3) return false;
    }
    return true;
  };
  while (!answered() && std::chrono::steady_clock::now() < limit) std::this_thread::yield();
  for (auto& client : clients) {
    const auto answers = commands::testing::decode_all(client->in);
    ASSERT_EQ(answers.size(), 3u);
    EXPECT_EQ(answers[0].status, protocol::Status::Success);
    EXPECT_EQ(answers[1].value, value);
    EXPECT_EQ(answers[2].opcode, static_cast<uint8_t>(Opcode::Noop));
  }
  EXPECT_EQ(stats.get(net::ServerCounter::curr_connections), 4u);

  loops->stop();
  for (const auto& connection : connections) EXPECT_TRUE(connection.expired());
  EXPECT_EQ(stats.get(net::ServerCounter::curr_connections), 0u);
}

TEST(UringLoops, EveryLoopRunsWhatIsPosted) {
  TERN_SKIP_WITHOUT_URING();
  auto loops = start_uring_loops(2);
  for (int i = 0; i < 4; ++i) {
    std::promise<void> ran;
    loops->next().gate()->post([&] { ran.set_value(); });
    ASSERT_EQ(ran.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  }
  loops->stop();
  loops->stop();  // idempotent
}

TEST(UringLoops, AfterStopPostsAreDroppedAndServeClosesTheSocket) {
  TERN_SKIP_WITHOUT_URING();
  auto loops = start_uring_loops(1);
  net::WorkerLoop& loop = loops->next();
  loops->stop();
  auto token = std::make_shared<int>(0);
  loop.gate()->post([token] { ++*token; });
  EXPECT_EQ(token.use_count(), 1);

  auto pair = connected_pair();
  Client client;
  client.fd = pair.client;
  loop.serve(pair.server, nullptr);
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!client.eof && client.error == 0 && std::chrono::steady_clock::now() < limit) {
    client.read_available();
  }
  EXPECT_TRUE(client.eof);
}

}  // namespace
}  // namespace tern::uring
