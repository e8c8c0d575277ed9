// UringLoop: stop() frees the owners of transports still open (whatever holds them: a
// pending receive, a send the peer does not read, keep_open), posts through the gate reach a
// loop asleep in the kernel, and are dropped once it has stopped. The ASan stage's leak
// check catches any owner that survives stop().
#include "uring/uring_loop.h"

#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "uring/test_sockets.h"

namespace tern::uring {
namespace {

using namespace testing;  // uring/test_sockets.h

TEST(UringLoop, StopFreesTheOwnersOfOpenTransports) {
  TERN_SKIP_WITHOUT_URING();
  UringLoop loop;
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::weak_ptr<Recorder>> owners;
  const auto answer = pattern(8 << 20);
  auto open = [&] {
    auto pair = connected_pair(64 * 1024);
    clients.push_back(std::make_unique<Client>());
    clients.back()->fd = pair.client;
    auto recorder = Recorder::start(loop, pair.server);
    owners.push_back(recorder);
    return recorder;
  };
  open()->transport->receive();             // held by its receive
  open()->transport->send(answer);          // held by a send the client never reads
  open()->transport->keep_open(true);       // held though nothing is pending
  auto lingering = open();                  // held by linger's receive and deadline
  lingering->transport->linger(std::chrono::hours(1));
  lingering.reset();
  loop.turn(std::chrono::milliseconds(0));  // everything submitted
  for (const auto& owner : owners) EXPECT_FALSE(owner.expired());

  loop.stop();
  for (const auto& owner : owners) EXPECT_TRUE(owner.expired());
  EXPECT_EQ(loop.in_flight(), 0u);
  // Their sockets are closed: each client sees the end.
  for (auto& client : clients) {
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!client->eof && client->error == 0 && std::chrono::steady_clock::now() < limit) {
      client->read_available();
    }
    EXPECT_TRUE(client->eof || client->error != 0);
  }
}

TEST(UringLoop, PostsAfterStopAreDropped) {
  TERN_SKIP_WITHOUT_URING();
  UringLoop loop;
  auto gate = loop.gate();
  loop.stop();
  auto token = std::make_shared<int>(0);
  gate->post([token] { ++*token; });
  EXPECT_EQ(token.use_count(), 1);  // the work was destroyed, not queued
  EXPECT_EQ(*token, 0);
}

TEST(UringLoop, PostsWakeASleepingLoop) {
  TERN_SKIP_WITHOUT_URING();
  UringLoop loop;
  std::thread runner([&] { loop.run(); });
  // Each post finds the loop asleep in the kernel (nothing else can wake it) or running.
  for (int i = 0; i < 100; ++i) {
    std::promise<void> ran;
    loop.gate()->post([&] { ran.set_value(); });
    ASSERT_EQ(ran.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  }
  loop.request_stop();
  runner.join();
  EXPECT_TRUE(loop.stopped());
  EXPECT_EQ(loop.in_flight(), 0u);  // stop() saw the kernel finish every request
}

TEST(UringLoop, WorkQueuedAtStopIsDestroyedNotRun) {
  TERN_SKIP_WITHOUT_URING();
  UringLoop loop;
  auto token = std::make_shared<int>(0);
  loop.gate()->post([token] { ++*token; });
  loop.stop();
  EXPECT_EQ(token.use_count(), 1);
  EXPECT_EQ(*token, 0);
}

}  // namespace
}  // namespace tern::uring
