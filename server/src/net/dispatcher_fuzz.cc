// libFuzzer target: the whole command path. Fuzzed bytes go, as a client's stream, into a
// real net::Connection (its RequestStream frames them, the Dispatcher executes them on the
// connection's Session) on a node with real buckets, whose tasks run on a ManualExecutor; the
// connection's transport is in memory and its loop is run by hand. Everything is built anew
// for each input, so a run depends on its input alone.
//
// Input: one byte of set-up, then the stream. Set-up bits:
//   0x01 a node with users (PLAIN accepted, bucket "default" anonymous with 0x08), else one
//        open to every client; 0x02 "default" is persistent (its disk in memory), 0x04 with
//        full eviction; 0x10 a small memory quota (the pagers and eviction run).
// The stream is cut where each frame's header says the frame ends; each piece is one read.
// A piece starting with 0xff is no read but a tick: the ManualClock advances by the next
// byte's seconds and the due tasks run. Between pieces the executor runs what is due and the
// loop finishes what it posted, so parked requests (durable writes, background fetches)
// complete. A connection that closes (QUIT, a framing error) is replaced by a new one on the
// same node.
//
// Invariants besides ASan's and UBSan's (a broken one aborts): whatever the connection sends
// is whole response frames (magic 0x81 or 0x18, lengths adding up to the bytes), each
// answering a request of this connection (same opcode and opaque), in request order unless
// HELLO accepted UnorderedExecution; a request that waits is answered once its tasks have run
// and time has passed, so an ordered connection never hangs; and when the client hangs up,
// every whole request it sent whose opcode is not quiet has been answered.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "auth/user.h"
#include "cluster/collections_manifest.h"
#include "commands/dispatcher.h"
#include "commands/features.h"
#include "commands/node.h"
#include "commands/test_node.h"
#include "common/clock.h"
#include "common/fuzz_check.h"
#include "engine/bucket.h"
#include "engine/expiry_pager.h"
#include "engine/item_pager.h"
#include "engine/test_store.h"
#include "executor/manual_executor.h"
#include "net/connection.h"
#include "net/loop_gate.h"
#include "net/server_stats.h"
#include "net/transport.h"
#include "protocol/codec.h"
#include "protocol/frame.h"
#include "protocol/opcode.h"

namespace tern::net {
namespace {

constexpr uint8_t kSecure = 0x01;
constexpr uint8_t kPersistent = 0x02;
constexpr uint8_t kFullEviction = 0x04;
constexpr uint8_t kAnonymous = 0x08;
constexpr uint8_t kSmallQuota = 0x10;
constexpr uint8_t kTick = 0xff;

// TERN_FUZZ_TRACE=1 lists every answer on stderr: what an input does, when one is debugged.
bool trace = false;

// Small, so that an oversized body (refused from its header) is cheap to reach.
constexpr size_t kMaxItemSize = 64 * 1024;

// A transport whose input the fuzzer hands over piece by piece and whose output it keeps.
// Events reach the connection only from deliver()/finish(), never from inside its calls.
class MemoryTransport final : public Transport {
 public:
  void start(std::shared_ptr<TransportEvents> owner) override { owner_ = std::move(owner); }
  void receive() override { wants_input_ = true; }
  bool send(std::span<const uint8_t> bytes) override {
    sent_.insert(sent_.end(), bytes.begin(), bytes.end());
    return true;
  }
  void linger(std::chrono::steady_clock::duration) override { lingering_ = true; }
  void keep_open(bool) override {}
  void close() override { closed_ = true; }
  // No deadline ever passes: the fuzzer's time is the ManualClock's, not the transport's.
  void end_at(std::chrono::steady_clock::time_point) override {}

  bool wants_input() const { return wants_input_ && !closed_; }
  bool closed() const { return closed_; }

  // Hands `bytes` to the connection as one read.
  void deliver(std::span<const uint8_t> bytes) {
    wants_input_ = false;
    const std::shared_ptr<TransportEvents> owner = owner_.lock();
    if (owner == nullptr) return;
    std::span<uint8_t> space = owner->receive_space(bytes.size());
    TERN_FUZZ_CHECK(space.size() >= bytes.size());
    std::copy(bytes.begin(), bytes.end(), space.begin());
    owner->received(bytes.size());
  }

  // The client hangs up: the end of the input.
  void hang_up() {
    wants_input_ = false;
    const std::shared_ptr<TransportEvents> owner = owner_.lock();
    if (owner == nullptr) return;
    owner->peer_closed();
  }

  // A linger the connection asked for ends (the client read everything and closed).
  void end_linger() {
    if (!lingering_ || closed_) return;
    lingering_ = false;
    const std::shared_ptr<TransportEvents> owner = owner_.lock();
    if (owner == nullptr) return;
    owner->ended({});
  }

  std::vector<uint8_t>& sent() { return sent_; }

 private:
  // The harness owns the connection (which owns this transport).
  std::weak_ptr<TransportEvents> owner_;
  std::vector<uint8_t> sent_;
  bool wants_input_ = false;
  bool lingering_ = false;
  bool closed_ = false;
};

// The users, made once: deriving SCRAM credentials costs thousands of hash rounds.
const auth::UserDirectory& users() {
  static const auth::UserDirectory directory = [] {
    auth::UserDirectory users;
    users.add(commands::testing::test_user("Administrator", "password", {"*"}, true));
    users.add(commands::testing::test_user("reader", "password", {"default"}, false));
    return users;
  }();
  return directory;
}

// One input's world: the node, its tasks, the loop, and the client's connection.
class World {
 public:
  explicit World(uint8_t setup) {
    // 16 shards, not one per vbucket: each input builds two buckets, and 1024 shards each
    // halved the executions per second. Fewer shards fold vbuckets together (engine.h), so
    // keys of several vbuckets share a table, the case that has the more to get wrong.
    engine::Config config;
    config.shard_count = 16;
    config.max_item_size = kMaxItemSize;
    config.persistent = (setup & kPersistent) != 0;
    config.full_eviction = config.persistent && (setup & kFullEviction) != 0;
    if ((setup & kSmallQuota) != 0) config.memory_quota_bytes = 8 * 1024;
    cluster::CollectionsManifest manifest(
        2, {{"_default", 0, {{"_default", 0}}}, {"app", 8, {{"users", 8}, {"orders", 9}}}});
    std::vector<std::unique_ptr<engine::Bucket>> buckets;
    buckets.push_back(std::make_unique<engine::Bucket>("default", config, manifest, 1, clock_));
    buckets.push_back(std::make_unique<engine::Bucket>(
        "other", engine::Config{.max_item_size = kMaxItemSize, .shard_count = 16},
        cluster::CollectionsManifest::default_only(), 2, clock_));
    commands::NodeSettings settings;
    settings.max_item_size = kMaxItemSize;
    if ((setup & kSecure) != 0) {
      settings.open_access = false;
      settings.allow_plain_auth = true;
      if ((setup & kAnonymous) != 0) settings.anonymous_bucket = "default";
    }
    node_ =
        std::make_unique<commands::Node>(std::move(settings), std::move(buckets), users(), clock_);
    node_->start_range_scans(executor_);
    for (const auto& bucket : node_->buckets()) {
      commands::testing::install_test_map(*node_, *bucket);
      start_tasks(*bucket);
    }
    settle();
    dispatcher_ = std::make_unique<commands::Dispatcher>(*node_);
    dispatcher_->add_stat_provider(stats_);
    connect();
  }

  ~World() {
    connection_.reset();
    transport_ = nullptr;
    gate_->close();
    for (const auto& bucket : node_->buckets()) executor_.unregister(bucket->executor_owner());
    loop().restart();
    loop().poll();
  }

  // One read of the stream, or a tick.
  void piece(std::span<const uint8_t> bytes) {
    if (bytes[0] == kTick) {
      clock_.advance_seconds(bytes.size() > 1 ? bytes[1] : 1);
      settle();
      check_answers();
      return;
    }
    if (transport_->closed()) connect();
    wait_until_reading();
    record_request(bytes);
    transport_->deliver(bytes);
    settle();
    check_answers();
  }

  // The client hangs up; what waits must still finish, and the connection close.
  void finish() {
    if (transport_->closed()) return;
    wait_until_reading();
    if (!transport_->wants_input()) return;  // closed meanwhile
    transport_->hang_up();
    for (int step = 0; step < 8 && !transport_->closed(); ++step) {
      settle();
      clock_.advance_seconds(30);
    }
    check_answers();
    TERN_FUZZ_CHECK(transport_->closed());
    // Closed by the hang-up, not by QUIT or an error: nothing owed was dropped.
    for (const Request& request : requests_) {
      if (request.must_answer) TERN_FUZZ_CHECK(request.answers > 0);
    }
  }

 private:
  static asio::io_context& loop() {
    static asio::io_context context;
    return context;
  }

  // As ternd starts a bucket's tasks (ternd/bucket_lifecycle.cc).
  void start_tasks(engine::Bucket& bucket) {
    executor_.schedule(
        std::make_shared<engine::ExpiryPager>(bucket.documents(), 10.0, bucket.executor_owner()),
        10.0);
    engine::attach_item_pager(bucket.documents(), executor_, bucket.executor_owner());
    if (bucket.documents().config().persistent) {
      bucket.make_persistent(std::make_unique<engine::TestStore>());
      bucket.persistence()->start(executor_, bucket.executor_owner());
    }
    bucket.start_collection_purger(executor_);
  }

  void connect() {
    connection_.reset();
    auto transport = std::make_unique<MemoryTransport>();
    transport_ = transport.get();
    requests_.clear();
    last_answered_ = 0;
    unordered_ = false;
    connection_ = std::make_shared<Connection>(gate_, *dispatcher_, kMaxItemSize, stats_, "fuzz");
    connection_->start(std::move(transport));
  }

  // Runs what is due and what the tasks posted to the loop, until neither has more.
  void settle() {
    for (int round = 0; round < 64; ++round) {
      const size_t tasks = executor_.run_ready();
      loop().restart();
      const size_t handlers = loop().poll();
      transport_end_linger();
      if (tasks == 0 && handlers == 0) return;
    }
  }

  void transport_end_linger() {
    if (transport_ != nullptr) transport_->end_linger();
  }

  // A connection held back by a parked request reads again once its answer is out: the
  // tasks it waits for run, and time passes for those that wait for a timeout.
  void wait_until_reading() {
    for (int step = 0; step < 8 && !transport_->wants_input() && !transport_->closed(); ++step) {
      settle();
      if (transport_->wants_input() || transport_->closed()) break;
      clock_.advance_seconds(30);
    }
    TERN_FUZZ_CHECK(transport_->wants_input() || transport_->closed());
  }

  // Remembers who may be answered: every header the client sent, in order.
  void record_request(std::span<const uint8_t> bytes) {
    if (bytes.size() < protocol::kHeaderSize) return;
    const protocol::Header header = protocol::decode_header(bytes);
    // A whole request whose opcode is not quiet is answered, if only with an error.
    const bool must_answer = protocol::is_client_request_magic(header.magic) &&
                             bytes.size() == protocol::kHeaderSize + uint64_t{header.body_length} &&
                             !protocol::is_quiet(static_cast<protocol::Opcode>(header.opcode));
    requests_.push_back({header.opcode, header.opaque, must_answer});
    if (trace) {
      std::fprintf(stderr, "request: magic 0x%02x opcode 0x%02x opaque 0x%x, %zu bytes\n",
                   header.magic, header.opcode, header.opaque, bytes.size());
    }
  }

  void check_answers() {
    std::vector<uint8_t>& sent = transport_->sent();
    std::span<const uint8_t> rest(sent);
    while (!rest.empty()) {
      protocol::Frame frame;
      TERN_FUZZ_CHECK(protocol::decode_frame(rest, frame) == protocol::DecodeResult::Ok);
      TERN_FUZZ_CHECK(frame.magic == static_cast<uint8_t>(protocol::Magic::ClientResponse) ||
                      frame.magic == static_cast<uint8_t>(protocol::Magic::AltClientResponse));
      match_answer(frame);
      if (trace) {
        std::fprintf(stderr, "answer: opcode 0x%02x opaque 0x%x status 0x%02x %zu-byte value\n",
                     frame.opcode, frame.opaque, frame.vbucket_or_status, frame.value.size());
      }
      rest = rest.subspan(frame.size());
    }
    sent.clear();
  }

  // Finds the request `answer` answers (same opcode and opaque): the first unanswered one, else
  // one answered already (STAT answers many times). Without UnorderedExecution it may not
  // come before the last request answered.
  void match_answer(const protocol::Frame& answer) {
    const auto from = unordered_ ? requests_.begin() : requests_.begin() + last_answered_;
    const auto matches = [&answer](const Request& r) {
      return r.opcode == answer.opcode && r.opaque == answer.opaque;
    };
    auto it = std::find_if(from, requests_.end(),
                           [&](const Request& r) { return matches(r) && r.answers == 0; });
    if (it == requests_.end()) it = std::find_if(from, requests_.end(), matches);
    TERN_FUZZ_CHECK(it != requests_.end());  // answers a request, in order unless unordered
    ++it->answers;
    if (!unordered_) last_answered_ = static_cast<size_t>(it - requests_.begin());
    // What HELLO accepted is the session's features from now on.
    if (answer.opcode == static_cast<uint8_t>(protocol::Opcode::Hello) &&
        answer.vbucket_or_status == 0) {
      unordered_ = false;
      for (size_t i = 0; i + 1 < answer.value.size(); i += 2) {
        unordered_ = unordered_ || protocol::load_be16(answer.value.data() + i) ==
                                       static_cast<uint16_t>(commands::Feature::UnorderedExecution);
      }
    }
  }

  ManualClock clock_;
  executor::ManualExecutor executor_{clock_};
  std::unique_ptr<commands::Node> node_;
  ServerStats stats_{"1.0.0-tern", 1};
  std::unique_ptr<commands::Dispatcher> dispatcher_;
  std::shared_ptr<LoopGate> gate_ = std::make_shared<LoopGate>(loop());
  std::shared_ptr<Connection> connection_;
  MemoryTransport* transport_ = nullptr;  // owned by connection_
  struct Request {
    uint8_t opcode = 0;
    uint32_t opaque = 0;
    bool must_answer = false;
    size_t answers = 0;
  };
  std::vector<Request> requests_;  // sent on the connection, in order
  size_t last_answered_ = 0;       // index in requests_
  bool unordered_ = false;         // the session negotiated UnorderedExecution
};

// The length of the piece at the front of `rest`: a tick, a whole frame as its header
// announces it (or what is left), or a partial header.
size_t piece_length(std::span<const uint8_t> rest) {
  if (rest[0] == kTick) return std::min<size_t>(2, rest.size());
  if (rest.size() < protocol::kHeaderSize) return rest.size();
  const uint64_t frame =
      uint64_t{protocol::kHeaderSize} + protocol::decode_header(rest).body_length;
  return static_cast<size_t>(std::min<uint64_t>(frame, rest.size()));
}

}  // namespace
}  // namespace tern::net

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tern::net::trace = std::getenv("TERN_FUZZ_TRACE") != nullptr;
  spdlog::set_level(tern::net::trace ? spdlog::level::debug : spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::span<const uint8_t> rest(data + 1, size - 1);
  tern::net::World world(data[0]);
  while (!rest.empty()) {
    const size_t n = tern::net::piece_length(rest);
    world.piece(rest.first(n));
    rest = rest.subspan(n);
  }
  world.finish();
  return 0;
}
