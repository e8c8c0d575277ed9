// A Connection on a real socket pair and an event loop the test runs by hand, serving a
// persistent bucket whose tasks run on a ManualExecutor: the order of answers around a
// request that waits for the disk (a durable write, or a read of an evicted value that runs
// again once fetched), with and without UnorderedExecution, and connections that end while a
// request waits.
//
// The client's bytes reach the connection, and its answers the client, through the kernel's
// loopback, which on a busy machine may deliver them well after the write returned: every
// step waits (running the loop) for what it needs to have happened, with a bound only a
// broken connection reaches, and never for a fixed time.
#include "net/connection.h"

#include <gtest/gtest.h>

#include <asio.hpp>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "commands/dispatcher.h"
#include "commands/dispatcher_harness.h"
#include "commands/test_node.h"
#include "common/clock.h"
#include "engine/paging_hooks.h"
#include "engine/persistence_hooks.h"
#include "executor/manual_executor.h"
#include "net/epoll_transport.h"
#include "net/loop_gate.h"
#include "net/server_stats.h"
#include "protocol/codec.h"
#include "protocol/frame.h"
#include "protocol/opcode.h"
#include "protocol/status.h"
#include "storage/store.h"
#include "storage/temp_dir.h"

namespace tern::net {
namespace {

using commands::Feature;
using commands::testing::Bytes;
using commands::testing::Request;
using commands::testing::Response;
using protocol::Opcode;
using protocol::Status;

constexpr uint32_t kDurableOpaque = 1;
constexpr uint32_t kNoopOpaque = 2;
constexpr uint32_t kGetOpaque = 3;

Request durable_set(const std::string& key) {
  return Request{.opcode = Opcode::Set, .key = key, .value = "v",
                 .extras = commands::testing::storage_extras(0, 0),
                 .framing_extras = {0x11, 0x03},  // PersistToMajority
                 .opaque = kDurableOpaque};
}

const Request kNoop{.opcode = Opcode::Noop, .opaque = kNoopOpaque};

class ConnectionTest : public ::testing::Test {
 protected:
  ConnectionTest() {
    node_ = commands::testing::make_open_node(clock_, engine::Config{.persistent = true});
    engine::Bucket& bucket = *node_->buckets().front();
    bucket.make_persistent(storage::open_rocksdb_store(dir_.sub("default"), {}));
    bucket.persistence()->start(executor_, bucket.executor_owner());
    executor_.run_ready();  // warmup
    dispatcher_ = std::make_unique<commands::Dispatcher>(*node_);
    reconnect();
  }

  // Hangs up the client's connection, if any, and opens a new one.
  void reconnect() {
    asio::error_code ignored;
    client_.close(ignored);
    settle();
    asio::ip::tcp::acceptor acceptor(loop_, {asio::ip::make_address("127.0.0.1"), 0});
    client_.connect(acceptor.local_endpoint());
    auto connection = std::make_shared<Connection>(gate_, *dispatcher_, 1 << 20, stats_, "test");
    asio::ip::tcp::socket accepted = acceptor.accept();
    accepted.set_option(asio::ip::tcp::no_delay(true));  // as the server sets it
    connection->start(make_epoll_transport(std::move(accepted)));
    connection_ = connection;
  }

  ~ConnectionTest() override {
    asio::error_code ignored;
    client_.close(ignored);
    gate_->close();
    executor_.unregister(node_->buckets().front()->executor_owner());
  }

  void send(std::initializer_list<Request> requests) { send(std::vector<Request>(requests)); }
  void send(const std::vector<Request>& requests) {
    asio::write(client_, asio::buffer(wire(requests)));
  }

  static Bytes wire(const std::vector<Request>& requests) {
    Bytes bytes;
    for (const Request& r : requests) {
      const Bytes one = commands::testing::encode(r);
      bytes.insert(bytes.end(), one.begin(), one.end());
    }
    return bytes;
  }

  // Runs the loop until it has nothing left to do now, then a little longer. Only for what
  // must not happen (an answer held back): an event the kernel delivers later still shows
  // at the next step's wait, and what must happen is waited for with run_until.
  void settle() {
    for (int i = 0; i < 20; ++i) {
      loop_.restart();
      loop_.poll();
    }
    loop_.restart();
    loop_.run_for(std::chrono::milliseconds(10));
  }

  // Runs the loop until `condition` holds; false if it still does not after 30 s, which only
  // a broken connection takes.
  bool run_until(const std::function<bool()>& condition) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!condition()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      loop_.restart();
      if (loop_.run_for(std::chrono::milliseconds(1)) == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    return true;
  }

  // Moves what the client's socket holds into pending_, without blocking.
  void read_available() {
    while (client_.available() > 0) {
      const size_t at = pending_.size();
      pending_.resize(at + client_.available());
      pending_.resize(at + client_.read_some(asio::buffer(pending_.data() + at,
                                                          pending_.size() - at)));
    }
  }

  // The length of the whole answers at the front of pending_, and how many they are.
  std::pair<size_t, size_t> whole_answers() const {
    size_t length = 0, count = 0;
    while (pending_.size() - length >= protocol::kHeaderSize) {
      const size_t size = protocol::kHeaderSize + protocol::load_be32(&pending_[length + 8]);
      if (pending_.size() - length < size) break;
      length += size;
      ++count;
    }
    return {length, count};
  }

  // The whole answers received so far, taken out of pending_.
  std::vector<Response> take_answers() {
    const size_t length = whole_answers().first;
    const Bytes answers(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(length));
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(length));
    return commands::testing::decode_all(answers);
  }

  // Waits until `count` answers have arrived (failing the test if they do not), then settles
  // and returns every answer that came: any beyond `count` shows in the caller's checks.
  std::vector<Response> receive(size_t count) {
    EXPECT_TRUE(run_until([&] {
      read_available();
      return whole_answers().second >= count;
    })) << "only " << whole_answers().second << " of " << count << " answers arrived";
    settle();
    read_available();
    return take_answers();
  }

  // The requests the connection holds waiting (0 once it has gone).
  size_t parked() const {
    const std::shared_ptr<Connection> connection = connection_.lock();
    return connection ? connection->parked_count() : 0;
  }

  // Persists what is queued: durable writes are committed and their waiters told.
  void flush() {
    executor_.run_ready();
    settle();
  }

  // Stores `key`, persists it and evicts its value.
  void store_evicted(const std::string& key, const std::string& value) {
    send({{.opcode = Opcode::Set, .key = key, .value = value,
           .extras = commands::testing::storage_extras(0, 0)}});
    ASSERT_EQ(receive(1).size(), 1u);
    flush();
    engine::Engine& documents = node_->buckets().front()->documents();
    documents.paging().evict(std::numeric_limits<size_t>::max());
    ASSERT_TRUE(documents.persistence().evicted(key).has_value());
  }

  std::vector<uint32_t> opaques(const std::vector<Response>& answers) {
    std::vector<uint32_t> out;
    for (const Response& r : answers) out.push_back(r.opaque);
    return out;
  }

  void hello(std::initializer_list<Feature> features) {
    std::string value;
    for (Feature feature : features) {
      value += static_cast<char>(static_cast<uint16_t>(feature) >> 8);
      value += static_cast<char>(static_cast<uint16_t>(feature) & 0xff);
    }
    send({{.opcode = Opcode::Hello, .key = "test", .value = value}});
    ASSERT_EQ(receive(1).size(), 1u);
  }

  ManualClock clock_;
  storage::TempDir dir_;
  executor::ManualExecutor executor_{clock_};
  std::unique_ptr<commands::Node> node_;
  std::unique_ptr<commands::Dispatcher> dispatcher_;
  ServerStats stats_{"test", 1};
  asio::io_context loop_{1};  // after what connections use: destroying it frees them
  std::shared_ptr<LoopGate> gate_ = std::make_shared<LoopGate>(loop_);
  asio::ip::tcp::socket client_{loop_};
  std::weak_ptr<Connection> connection_;
  Bytes pending_;  // received bytes not yet taken as answers
};

TEST_F(ConnectionTest, AParkedRequestHoldsLaterAnswersBackUntilItIsAnswered) {
  send({durable_set("k"), kNoop});
  ASSERT_TRUE(run_until([&] { return parked() == 1; }));
  EXPECT_TRUE(receive(0).empty());
  ASSERT_FALSE(connection_.expired());  // kept alive while it waits
  EXPECT_EQ(connection_.lock()->parked_count(), 1u);

  flush();
  const std::vector<Response> answers = receive(2);
  EXPECT_EQ(opaques(answers), (std::vector<uint32_t>{kDurableOpaque, kNoopOpaque}));
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].status, Status::Success);
  EXPECT_NE(answers[0].cas, 0u);
  EXPECT_EQ(connection_.lock()->parked_count(), 0u);
}

TEST_F(ConnectionTest, WithUnorderedExecutionLaterRequestsAnswerFirst) {
  hello({Feature::Xerror, Feature::AltRequestSupport, Feature::SyncReplication,
         Feature::UnorderedExecution});
  send({durable_set("k"), kNoop});
  // The NOOP runs after the write was parked: it answers while the write waits.
  EXPECT_EQ(opaques(receive(1)), std::vector<uint32_t>{kNoopOpaque});
  EXPECT_EQ(parked(), 1u);

  flush();
  const std::vector<Response> answers = receive(1);
  ASSERT_EQ(opaques(answers), std::vector<uint32_t>{kDurableOpaque});
  EXPECT_EQ(answers[0].status, Status::Success);
}

// With UnorderedExecution requests keep running while others wait, but not without bound:
// past kMaxParked waiting, the connection leaves the rest in the socket until some are
// answered.
TEST_F(ConnectionTest, WithUnorderedExecutionTheWaitingRequestsAreBounded) {
  hello({Feature::Xerror, Feature::AltRequestSupport, Feature::SyncReplication,
         Feature::UnorderedExecution});
  // About 80 KB: what the loopback socket holds while the test's loop does not run.
  const size_t sent = 2 * Connection::kMaxParked;
  std::vector<Request> requests;
  for (size_t i = 0; i < sent; ++i) requests.push_back(durable_set("k" + std::to_string(i)));
  send(requests);
  ASSERT_TRUE(run_until([&] { return parked() >= Connection::kMaxParked; }))
      << parked() << " requests wait";
  EXPECT_TRUE(receive(0).empty()) << "nothing is on disk yet";
  const engine::Engine& documents = node_->buckets().front()->documents();
  EXPECT_GE(documents.persistence().prepared_count(), Connection::kMaxParked);
  EXPECT_LT(documents.persistence().prepared_count(), sent) << "the rest waits unread";

  // Each flush answers what waits, and the connection reads on.
  size_t answered = 0;
  EXPECT_TRUE(run_until([&] {
    flush();
    read_available();
    answered += take_answers().size();
    return answered >= sent;
  }));
  EXPECT_EQ(answered, sent);
  EXPECT_EQ(documents.persistence().prepared_count(), 0u);
}

TEST_F(ConnectionTest, AReadOfAnEvictedValueRunsAgainInItsPlaceOnceFetched) {
  for (bool unordered : {false, true}) {
    SCOPED_TRACE(unordered ? "unordered" : "ordered");
    reconnect();
    hello(unordered ? std::initializer_list<Feature>{Feature::Xerror, Feature::UnorderedExecution}
                    : std::initializer_list<Feature>{Feature::Xerror});
    store_evicted("k", "value");
    send({{.opcode = Opcode::Get, .key = "k", .opaque = kGetOpaque}, kNoop});
    ASSERT_TRUE(run_until([&] { return parked() == 1; }));
    const std::vector<uint32_t> at_once =
        unordered ? std::vector<uint32_t>{kNoopOpaque} : std::vector<uint32_t>{};
    EXPECT_EQ(opaques(receive(at_once.size())), at_once);
    EXPECT_EQ(connection_.lock()->parked_count(), 1u);

    flush();  // the fetch; the request runs again on the loop
    const std::vector<uint32_t> fetched = unordered
                                              ? std::vector<uint32_t>{kGetOpaque}
                                              : std::vector<uint32_t>{kGetOpaque, kNoopOpaque};
    const std::vector<Response> answers = receive(fetched.size());
    EXPECT_EQ(opaques(answers), fetched);
    ASSERT_FALSE(answers.empty());
    EXPECT_EQ(answers[0].status, Status::Success);
    EXPECT_EQ(answers[0].value, "value");
    EXPECT_EQ(connection_.lock()->parked_count(), 0u);
  }
}

TEST_F(ConnectionTest, AClientThatHangsUpWhileARequestWaitsIsClosedOnceItIsAnswered) {
  for (bool unordered : {false, true}) {
    SCOPED_TRACE(unordered ? "unordered" : "ordered");
    reconnect();
    if (unordered) {
      hello({Feature::Xerror, Feature::AltRequestSupport, Feature::SyncReplication,
             Feature::UnorderedExecution});
    }
    send({durable_set(unordered ? "b" : "a")});
    ASSERT_TRUE(run_until([&] { return parked() == 1; }));
    client_.shutdown(asio::ip::tcp::socket::shutdown_send);
    settle();
    EXPECT_EQ(stats_.curr_connections(), 1u);
    flush();
    EXPECT_TRUE(run_until([&] { return connection_.expired(); }));
    EXPECT_EQ(stats_.curr_connections(), 0u);
  }
}

TEST_F(ConnectionTest, AConnectionThatEndsWhileARequestWaitsDropsItsAnswer) {
  hello({Feature::Xerror, Feature::AltRequestSupport, Feature::SyncReplication,
         Feature::UnorderedExecution});
  send({durable_set("k")});
  ASSERT_TRUE(run_until([&] { return parked() == 1; }));
  // A bad magic byte ends the connection; the client then hangs up too.
  const uint8_t garbage[24] = {0x42};
  asio::write(client_, asio::buffer(garbage));
  settle();
  asio::error_code ignored;
  client_.close(ignored);
  EXPECT_TRUE(run_until([&] { return connection_.expired(); }));
  EXPECT_EQ(stats_.curr_connections(), 0u);

  flush();  // the write commits; its answer has nowhere to go
  EXPECT_EQ(node_->buckets().front()->persistence()->durability().committed(), 1u);
}

// After a read that drained the socket the connection waits for readiness before reading
// again: a frame whose bytes come in two parts is answered once its second part arrives, and
// the requests after it too.
TEST_F(ConnectionTest, ARequestSplitAcrossTwoReadsIsAnsweredWhenItsRestArrives) {
  const Bytes get = wire({{.opcode = Opcode::Get, .key = "missing", .opaque = kGetOpaque}});
  const size_t half = get.size() / 2;
  asio::write(client_, asio::buffer(get.data(), half));
  EXPECT_TRUE(receive(0).empty()) << "half a request is not answered";
  asio::write(client_, asio::buffer(get.data() + half, get.size() - half));
  const std::vector<Response> answers = receive(1);
  ASSERT_EQ(opaques(answers), std::vector<uint32_t>{kGetOpaque});
  EXPECT_EQ(answers[0].status, Status::KeyEnoent);

  for (int round = 0; round < 3; ++round) {
    send({kNoop});
    EXPECT_EQ(opaques(receive(1)), std::vector<uint32_t>{kNoopOpaque}) << "round " << round;
  }
}

// More requests than one read takes: a read that fills its buffer reads again at once, and
// every request is answered, in order.
TEST_F(ConnectionTest, RequestsBeyondOneReadAreAllAnswered) {
  std::vector<Request> requests;
  // 36 KB of NOOPs: more than two 16 KB reads, and less than what the loopback socket holds
  // while the test's loop does not run.
  for (uint32_t i = 0; i < 1500; ++i) {
    requests.push_back({.opcode = Opcode::Noop, .opaque = i});
  }
  send(requests);
  std::vector<uint32_t> expected;
  for (const Request& r : requests) expected.push_back(r.opaque);
  EXPECT_EQ(opaques(receive(requests.size())), expected);
}

// A client that hangs up after its answers came (the connection waiting for readiness) is
// closed.
TEST_F(ConnectionTest, AClientThatHangsUpAfterItsAnswersIsClosed) {
  send({kNoop});
  ASSERT_EQ(receive(1).size(), 1u);
  client_.shutdown(asio::ip::tcp::socket::shutdown_send);
  EXPECT_TRUE(run_until([&] { return connection_.expired(); }));
  EXPECT_EQ(stats_.curr_connections(), 0u);
}

}  // namespace
}  // namespace tern::net
