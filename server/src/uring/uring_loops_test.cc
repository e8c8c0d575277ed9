// start_uring_loops: loops that run on their threads and take posts through their gates,
// and after stop(), drop posts and close the sockets serve() is given.
#include "uring/uring_loops.h"

#include <gtest/gtest.h>

#include <future>
#include <memory>

#include "uring/test_sockets.h"

namespace tern::uring {
namespace {

using testing::Client;
using testing::connected_pair;

TEST(UringLoops, EveryLoopRunsWhatIsPosted) {
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
