// Drives the dispatcher with encoded request frames against a real engine and decodes what
// it answers.
#include "commands/dispatcher.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "commands/command_results.h"
#include "commands/dispatcher_harness.h"
#include "commands/session.h"
#include "commands/test_node.h"
#include "common/clock.h"
#include "engine/engine.h"
#include "protocol/codec.h"
#include "protocol/opcode.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using testing::arithmetic_extras;
using testing::be32;
using testing::Bytes;
using testing::bytes_of;
using testing::Connection;
using testing::decode_all;
using testing::kOpaque;
using testing::Request;
using testing::Response;
using testing::storage_extras;

class DispatcherTest : public ::testing::Test {
 protected:
  DispatcherTest()
      : node_(testing::make_open_node(clock_)),
        engine_(node_->buckets().front()->documents()),
        dispatcher_(*node_),
        connection_(dispatcher_, *node_) {}

  std::vector<Response> run(const Request& r) {
    std::vector<Response> answers = connection_.run(r);
    last_outcome_ = connection_.last_outcome();
    return answers;
  }
  Response one(const Request& r) {
    Response answer = connection_.one(r);
    last_outcome_ = connection_.last_outcome();
    return answer;
  }
  Response set(const std::string& key, const std::string& value, uint32_t flags = 0,
               uint32_t expiry = 0) {
    return connection_.set(key, value, flags, expiry);
  }
  Response get(const std::string& key) { return connection_.get(key); }

  ManualClock clock_;
  std::unique_ptr<Node> node_;
  engine::Engine& engine_;
  Dispatcher dispatcher_;
  Connection connection_;
  Outcome last_outcome_ = Outcome::Continue;
};

void expect_error(const Response& r, Status status, std::string_view text) {
  EXPECT_EQ(r.status, status);
  EXPECT_EQ(r.value, text);
  EXPECT_EQ(r.cas, 0u);
  EXPECT_TRUE(r.extras.empty());
  EXPECT_TRUE(r.key.empty());
}

TEST_F(DispatcherTest, SetThenGetReturnsValueFlagsAndCas) {
  const Response stored =
      one({.opcode = Opcode::Set, .key = "k", .value = "{\"a\":1}",
           .extras = storage_extras(0xcafef00d, 0), .datatype = 0x01});
  EXPECT_EQ(stored.magic, 0x81);
  EXPECT_EQ(stored.opcode, static_cast<uint8_t>(Opcode::Set));
  EXPECT_EQ(stored.status, Status::Success);
  EXPECT_EQ(stored.opaque, kOpaque);
  EXPECT_NE(stored.cas, 0u);
  EXPECT_TRUE(stored.value.empty() && stored.key.empty() && stored.extras.empty());

  const Response got = get("k");
  EXPECT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.value, "{\"a\":1}");
  EXPECT_EQ(got.extras, be32(0xcafef00d));
  // Raw, as memcached answers: this client did not ask for JSON with HELLO.
  EXPECT_EQ(got.datatype, 0x00);
  EXPECT_EQ(got.cas, stored.cas);
  EXPECT_TRUE(got.key.empty());
}

TEST_F(DispatcherTest, GetMissAnswersNotFound) {
  expect_error(get("absent"), Status::KeyEnoent, "Not found");
}

TEST_F(DispatcherTest, GetkEchoesTheKeyOnHitAndMiss) {
  const Response miss = one({.opcode = Opcode::GetK, .key = "absent"});
  EXPECT_EQ(miss.status, Status::KeyEnoent);
  EXPECT_EQ(miss.key, "absent");
  EXPECT_TRUE(miss.value.empty());
  set("k", "v", 7);
  const Response hit = one({.opcode = Opcode::GetK, .key = "k"});
  EXPECT_EQ(hit.status, Status::Success);
  EXPECT_EQ(hit.key, "k");
  EXPECT_EQ(hit.value, "v");
  EXPECT_EQ(hit.extras, be32(7));
}

TEST_F(DispatcherTest, QuietGetsAreSilentOnMissAndAnswerHits) {
  EXPECT_TRUE(run({.opcode = Opcode::GetQ, .key = "absent"}).empty());
  EXPECT_TRUE(run({.opcode = Opcode::GetKQ, .key = "absent"}).empty());
  set("k", "v");
  const Response hit = one({.opcode = Opcode::GetKQ, .key = "k"});
  EXPECT_EQ(hit.opcode, static_cast<uint8_t>(Opcode::GetKQ));
  EXPECT_EQ(hit.key, "k");
  EXPECT_EQ(hit.value, "v");
  EXPECT_EQ(one({.opcode = Opcode::GetQ, .key = "k"}).value, "v");
}

TEST_F(DispatcherTest, QuietGetStillAnswersErrorsOtherThanMiss) {
  expect_error(one({.opcode = Opcode::GetQ}), Status::Einval, "Invalid arguments");
}

TEST_F(DispatcherTest, CasIsHonoured) {
  const uint64_t cas = set("k", "v1").cas;
  const Response mismatch = one({.opcode = Opcode::Set, .key = "k", .value = "v2",
                                 .extras = storage_extras(0, 0), .cas = cas + 1});
  expect_error(mismatch, Status::KeyEexists, "Data exists for key.");
  const Response match = one({.opcode = Opcode::Set, .key = "k", .value = "v3",
                              .extras = storage_extras(0, 0), .cas = cas});
  EXPECT_EQ(match.status, Status::Success);
  EXPECT_NE(match.cas, cas);
  EXPECT_EQ(get("k").value, "v3");
}

TEST_F(DispatcherTest, QuietMutationsAnswerOnlyErrors) {
  EXPECT_TRUE(run({.opcode = Opcode::SetQ, .key = "k", .value = "v",
                   .extras = storage_extras(0, 0)}).empty());
  EXPECT_EQ(get("k").value, "v");
  const Response exists = one({.opcode = Opcode::AddQ, .key = "k", .value = "v",
                               .extras = storage_extras(0, 0)});
  EXPECT_EQ(exists.opcode, static_cast<uint8_t>(Opcode::AddQ));
  EXPECT_EQ(exists.status, Status::KeyEexists);
  EXPECT_EQ(one({.opcode = Opcode::DeleteQ, .key = "absent"}).status, Status::KeyEnoent);
  EXPECT_TRUE(run({.opcode = Opcode::DeleteQ, .key = "k"}).empty());
}

TEST_F(DispatcherTest, AddAndReplaceFollowPresence) {
  const Request add{.opcode = Opcode::Add, .key = "k", .value = "v",
                    .extras = storage_extras(0, 0)};
  EXPECT_EQ(one(add).status, Status::Success);
  EXPECT_EQ(one(add).status, Status::KeyEexists);
  const Request replace{.opcode = Opcode::Replace, .key = "other", .value = "v",
                        .extras = storage_extras(0, 0)};
  expect_error(one(replace), Status::KeyEnoent, "Not found");
  set("other", "old");
  EXPECT_EQ(one(replace).status, Status::Success);
  EXPECT_EQ(get("other").value, "v");
}

TEST_F(DispatcherTest, DeleteAnswersWithoutCasAndRemoves) {
  set("k", "v");
  const Response deleted = one({.opcode = Opcode::Delete, .key = "k"});
  EXPECT_EQ(deleted.status, Status::Success);
  EXPECT_EQ(deleted.cas, 0u);  // memcached (and memccapable) answer a delete with CAS 0
  EXPECT_EQ(get("k").status, Status::KeyEnoent);
  expect_error(one({.opcode = Opcode::Delete, .key = "k"}), Status::KeyEnoent, "Not found");
}

TEST_F(DispatcherTest, IncrementCreatesThenCounts) {
  const Request incr{.opcode = Opcode::Increment, .key = "n",
                     .extras = arithmetic_extras(5, 100, 0)};
  const Response created = one(incr);
  EXPECT_EQ(created.status, Status::Success);
  ASSERT_EQ(created.value.size(), 8u);
  EXPECT_EQ(protocol::load_be64(bytes_of(created.value).data()), 100u);
  EXPECT_NE(created.cas, 0u);
  const Response counted = one(incr);
  EXPECT_EQ(protocol::load_be64(bytes_of(counted.value).data()), 105u);
  EXPECT_EQ(get("n").value, "105");
}

TEST_F(DispatcherTest, DecrementStopsAtZero) {
  const Request decr{.opcode = Opcode::Decrement, .key = "n",
                     .extras = arithmetic_extras(7, 5, 0)};
  one(decr);
  const Response floored = one(decr);
  EXPECT_EQ(protocol::load_be64(bytes_of(floored.value).data()), 0u);
}

TEST_F(DispatcherTest, ArithmeticWithNoCreateExpiryMissesAndBadValueFails) {
  expect_error(one({.opcode = Opcode::Increment, .key = "n",
                    .extras = arithmetic_extras(1, 0, 0xffffffff)}),
               Status::KeyEnoent, "Not found");
  set("text", "abc");
  expect_error(one({.opcode = Opcode::Increment, .key = "text",
                    .extras = arithmetic_extras(1, 0, 0)}),
               Status::DeltaBadval, "Non-numeric server-side value for incr or decr");
  EXPECT_TRUE(run({.opcode = Opcode::IncrementQ, .key = "q",
                   .extras = arithmetic_extras(1, 0, 0)}).empty());
  EXPECT_EQ(get("q").value, "0");
}

TEST_F(DispatcherTest, AppendAndPrependConcatenate) {
  set("k", "mid", 3);
  EXPECT_EQ(one({.opcode = Opcode::Append, .key = "k", .value = "-end"}).status,
            Status::Success);
  EXPECT_TRUE(run({.opcode = Opcode::PrependQ, .key = "k", .value = "start-"}).empty());
  const Response got = get("k");
  EXPECT_EQ(got.value, "start-mid-end");
  EXPECT_EQ(got.extras, be32(3));
  expect_error(one({.opcode = Opcode::Append, .key = "absent", .value = "x"}),
               Status::NotStored, "Not stored.");
}

TEST_F(DispatcherTest, TouchAndGatSetANewExpiry) {
  set("k", "v", 9);
  const Response touched = one({.opcode = Opcode::Touch, .key = "k", .extras = be32(10)});
  EXPECT_EQ(touched.status, Status::Success);
  EXPECT_NE(touched.cas, 0u);
  const Response gat = one({.opcode = Opcode::Gat, .key = "k", .extras = be32(100)});
  EXPECT_EQ(gat.value, "v");
  EXPECT_EQ(gat.extras, be32(9));
  clock_.advance_seconds(50);
  EXPECT_EQ(get("k").status, Status::Success);
  clock_.advance_seconds(51);
  EXPECT_EQ(get("k").status, Status::KeyEnoent);
  EXPECT_TRUE(run({.opcode = Opcode::GatQ, .key = "k", .extras = be32(1)}).empty());
  expect_error(one({.opcode = Opcode::Touch, .key = "k", .extras = be32(1)}),
               Status::KeyEnoent, "Not found");
}

// An absolute expiry already past expires the item as it is touched; GAT still answers
// with the value it touched (as memcached does) rather than crashing on the missing item.
TEST_F(DispatcherTest, GatWithAPastAbsoluteExpiryAnswersTheValueThenExpiresIt) {
  set("k", "v", 9);
  const auto past = static_cast<uint32_t>(clock_.unix_seconds() - 5);
  const Response gat = one({.opcode = Opcode::Gat, .key = "k", .extras = be32(past)});
  EXPECT_EQ(gat.status, Status::Success);
  EXPECT_EQ(gat.value, "v");
  EXPECT_EQ(gat.extras, be32(9));
  EXPECT_NE(gat.cas, 0u);
  EXPECT_EQ(get("k").status, Status::KeyEnoent);
}

TEST_F(DispatcherTest, StoredExpiryIsApplied) {
  set("k", "v", 0, 2);
  clock_.advance_seconds(1);
  EXPECT_EQ(get("k").status, Status::Success);
  clock_.advance_seconds(2);
  EXPECT_EQ(get("k").status, Status::KeyEnoent);
}

TEST_F(DispatcherTest, GetLockedLocksUntilUnlockedWithItsCas) {
  set("k", "v");
  const Response locked = one({.opcode = Opcode::GetLocked, .key = "k", .extras = be32(10)});
  EXPECT_EQ(locked.status, Status::Success);
  EXPECT_EQ(locked.value, "v");
  EXPECT_EQ(locked.extras.size(), 4u);
  EXPECT_NE(locked.cas, 0u);
  EXPECT_EQ(set("k", "w").status, Status::Locked);
  EXPECT_EQ(one({.opcode = Opcode::UnlockKey, .key = "k", .cas = locked.cas + 1}).status,
            Status::Locked);
  expect_error(one({.opcode = Opcode::UnlockKey, .key = "k"}), Status::Einval,
               "Invalid arguments");
  EXPECT_EQ(one({.opcode = Opcode::UnlockKey, .key = "k", .cas = locked.cas}).status,
            Status::Success);
  EXPECT_EQ(set("k", "w").status, Status::Success);
  EXPECT_EQ(one({.opcode = Opcode::GetLocked, .key = "k"}).status, Status::Success);
}

TEST_F(DispatcherTest, NoopVersionAndQuit) {
  const Response noop = one({.opcode = Opcode::Noop});
  EXPECT_EQ(noop.status, Status::Success);
  EXPECT_EQ(noop.cas, 0u);
  EXPECT_EQ(one({.opcode = Opcode::Version}).value, "1.0.0-tern");
  EXPECT_EQ(last_outcome_, Outcome::Continue);
  EXPECT_EQ(one({.opcode = Opcode::Quit}).status, Status::Success);
  EXPECT_EQ(last_outcome_, Outcome::Close);
  EXPECT_TRUE(run({.opcode = Opcode::QuitQ}).empty());
  EXPECT_EQ(last_outcome_, Outcome::Close);
}

TEST_F(DispatcherTest, FlushInvalidatesEverythingWithOrWithoutDelayExtras) {
  set("a", "1");
  ASSERT_EQ(get("a").status, Status::Success);
  EXPECT_EQ(one({.opcode = Opcode::Flush}).status, Status::Success);
  EXPECT_EQ(get("a").status, Status::KeyEnoent);
  set("b", "2");
  ASSERT_EQ(get("b").status, Status::Success);
  EXPECT_TRUE(run({.opcode = Opcode::FlushQ, .extras = be32(0)}).empty());
  EXPECT_EQ(get("b").status, Status::KeyEnoent);
}

class FakeStats final : public StatProvider {
 public:
  bool collect(std::string_view group, metrics::Collector& collector) override {
    if (group.empty()) {
      collector.add(metrics::stat::pid, 42);
      return true;
    }
    if (group == "settings") {
      collector.add(metrics::stat::settings_threads, 4);
      return true;
    }
    return false;
  }
};

// GET /metrics's per-opcode latency and results: every answered request is counted in its
// bucket's histogram with its result class, a quiet miss too.
TEST_F(DispatcherTest, EveryAnsweredRequestIsTimedInItsBucketWithItsResult) {
  metrics::CommandStats& commands = node_->buckets().front()->command_stats();
  set("k", "v");
  get("k");
  get("absent");
  EXPECT_TRUE(run({.opcode = Opcode::GetQ, .key = "absent"}).empty());
  run({.opcode = static_cast<Opcode>(0xee)});  // unknown: not counted, it has no name of its own

  const metrics::LatencyHistogram* gets = commands.opcode(static_cast<uint8_t>(Opcode::Get));
  ASSERT_NE(gets, nullptr);
  const metrics::HistogramSnapshot snapshot = gets->snapshot();
  EXPECT_EQ(snapshot.count, 2u);
  EXPECT_GT(snapshot.sum_ns, 0u);
  EXPECT_EQ(snapshot.outcomes[static_cast<size_t>(CommandResult::Success)], 1u);
  EXPECT_EQ(snapshot.outcomes[static_cast<size_t>(CommandResult::NotFound)], 1u);
  const metrics::LatencyHistogram* quiet = commands.opcode(static_cast<uint8_t>(Opcode::GetQ));
  ASSERT_NE(quiet, nullptr);
  EXPECT_EQ(quiet->snapshot().outcomes[static_cast<size_t>(CommandResult::NotFound)], 1u);
  EXPECT_NE(commands.opcode(static_cast<uint8_t>(Opcode::Set)), nullptr);
  EXPECT_EQ(commands.opcode(0xee), nullptr);
  // The default collection's operations.
  EXPECT_EQ(commands.collection_ops(0, metrics::CollectionOp::Get), 3u);
  EXPECT_EQ(commands.collection_ops(0, metrics::CollectionOp::Store), 1u);
}

TEST_F(DispatcherTest, StatGeneralGroupHasEngineAndProviderStatsThenATerminator) {
  FakeStats provider;
  dispatcher_.add_stat_provider(provider);
  set("k", "v");
  const std::vector<Response> answers = run({.opcode = Opcode::Stat, .opaque = 77});
  ASSERT_GE(answers.size(), 3u);
  std::map<std::string, std::string> stats;
  for (const Response& r : answers) {
    EXPECT_EQ(r.status, Status::Success);
    EXPECT_EQ(r.opcode, static_cast<uint8_t>(Opcode::Stat));
    EXPECT_EQ(r.opaque, 77u);
    EXPECT_EQ(r.cas, 0u);
    EXPECT_TRUE(r.extras.empty());
    stats[r.key] = r.value;
  }
  EXPECT_TRUE(answers.back().key.empty() && answers.back().value.empty());
  EXPECT_EQ(stats["curr_items"], "1");
  EXPECT_EQ(stats["cmd_set"], "1");
  EXPECT_EQ(stats["pid"], "42");
  for (const char* name : {"total_items", "bytes", "mem_quota", "get_hits", "get_misses",
                           "cmd_get", "evictions", "expired_items"}) {
    EXPECT_EQ(stats.count(name), 1u) << name;
  }
}

TEST_F(DispatcherTest, StatGroupsAreAskedOfProviders) {
  FakeStats provider;
  dispatcher_.add_stat_provider(provider);
  const std::vector<Response> answers = run({.opcode = Opcode::Stat, .key = "settings"});
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].key, "threads");
  EXPECT_EQ(answers[0].value, "4");
  EXPECT_TRUE(answers[1].key.empty());
  expect_error(one({.opcode = Opcode::Stat, .key = "nonesuch"}), Status::KeyEnoent,
               "Not found");
}

TEST_F(DispatcherTest, MalformedRequestsAnswerEinval) {
  const std::vector<Request> bad = {
      {.opcode = Opcode::Set, .key = "k", .value = "v"},                       // no extras
      {.opcode = Opcode::Set, .key = "k", .value = "v", .extras = be32(0)},    // short extras
      {.opcode = Opcode::Set, .value = "v", .extras = storage_extras(0, 0)},   // no key
      {.opcode = Opcode::Get},                                                 // no key
      {.opcode = Opcode::Get, .key = std::string(251, 'x')},                   // key too long
      {.opcode = Opcode::Get, .key = "k", .value = "v"},                       // value on GET
      {.opcode = Opcode::Get, .key = "k", .extras = be32(0)},                  // extras on GET
      {.opcode = Opcode::Append, .key = "k", .value = "v", .extras = be32(0)}, // extras on APPEND
      {.opcode = Opcode::Increment, .key = "n", .extras = storage_extras(0, 0)},
      {.opcode = Opcode::Touch, .key = "k"},                                   // no expiry
      {.opcode = Opcode::Noop, .key = "k"},                                    // key on NOOP
      {.opcode = Opcode::Flush, .key = "k"},
      {.opcode = Opcode::Flush, .extras = storage_extras(0, 0)},
      {.opcode = Opcode::Version, .value = "v"},
      {.opcode = Opcode::Set, .key = "k", .value = "v", .extras = storage_extras(0, 0),
       .datatype = 0x80},                                                      // unknown datatype
  };
  for (const Request& r : bad) {
    const Response answer = one(r);
    expect_error(answer, Status::Einval, "Invalid arguments");
    EXPECT_EQ(answer.opcode, static_cast<uint8_t>(r.opcode));
    EXPECT_EQ(answer.opaque, kOpaque);
  }
  EXPECT_EQ(engine_.stats().curr_items, 0u);
}

TEST_F(DispatcherTest, KeyOfTwoHundredFiftyBytesIsAccepted) {
  const std::string key(250, 'k');
  EXPECT_EQ(set(key, "v").status, Status::Success);
  EXPECT_EQ(get(key).value, "v");
}

TEST_F(DispatcherTest, UnknownOpcodesAnswerUnknownCommand) {
  for (uint8_t op : {0x1b, 0x42, 0xf0, 0xff}) {
    const Response answer = one({.opcode = static_cast<Opcode>(op)});
    expect_error(answer, Status::UnknownCommand, "Unknown command");
    EXPECT_EQ(answer.opcode, op);
  }
}

TEST_F(DispatcherTest, AltRequestsAcceptBarrierAndMajorityDurability) {
  const Request durable{.opcode = Opcode::Set, .key = "k", .value = "v",
                        .extras = storage_extras(0, 0), .framing_extras = {0x00, 0x11, 0x01}};
  const Response stored = one(durable);
  EXPECT_EQ(stored.status, Status::Success);
  EXPECT_EQ(stored.magic, 0x81);
  EXPECT_EQ(get("k").value, "v");
}

TEST_F(DispatcherTest, AltRequestsRefuseWhatCannotBeHonoured) {
  auto with_framing = [](Opcode op, Bytes framing) {
    Request r{.opcode = op, .key = "k", .framing_extras = std::move(framing)};
    if (op == Opcode::Set) r.extras = storage_extras(0, 0);
    return r;
  };
  EXPECT_EQ(one(with_framing(Opcode::Set, {0x11, 0x02})).status, Status::DurabilityImpossible);
  EXPECT_EQ(one(with_framing(Opcode::Set, {0x11, 0x09})).status,
            Status::DurabilityInvalidLevel);
  EXPECT_EQ(one(with_framing(Opcode::Get, {0x11, 0x01})).status, Status::Einval);
  EXPECT_EQ(one(with_framing(Opcode::Get, {0x50})).status, Status::Einval);
  EXPECT_EQ(one(with_framing(Opcode::Delete, {0x50})).status, Status::Einval);
  EXPECT_EQ(one(with_framing(Opcode::Set, {0x51, 0x00})).status, Status::Einval);
  EXPECT_EQ(one(with_framing(Opcode::Set, {0x61, 0x00})).status, Status::UnknownFrameInfo);
  EXPECT_EQ(one(with_framing(Opcode::Set, {0x12, 0x01})).status, Status::Einval);
  EXPECT_EQ(engine_.stats().curr_items, 0u);
}

TEST_F(DispatcherTest, AppendErrorAddressesTheRequest) {
  protocol::Frame request;
  request.magic = 0x80;
  request.opcode = static_cast<uint8_t>(Opcode::Set);
  request.opaque = 99;
  Bytes out;
  Dispatcher::append_error(request, Status::E2big, connection_.session(), out);
  const std::vector<Response> answers = decode_all(out);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].opcode, static_cast<uint8_t>(Opcode::Set));
  EXPECT_EQ(answers[0].opaque, 99u);
  expect_error(answers[0], Status::E2big, "Too large.");
}

TEST_F(DispatcherTest, RandomRequestsAlwaysGetWellFormedAnswers) {
  std::mt19937 rng(12345);
  auto pick = [&rng](uint32_t bound) { return static_cast<uint32_t>(rng() % bound); };
  const uint8_t lengths[] = {0, 1, 4, 8, 20, 24};
  std::map<Status, int> seen;
  for (int i = 0; i < 20000; ++i) {
    Request r;
    r.opcode = static_cast<Opcode>(pick(2) == 0 ? pick(0x20) : pick(256));
    r.key = std::string(pick(4) == 0 ? pick(300) : pick(8), static_cast<char>('a' + pick(3)));
    r.value = std::string(pick(3) == 0 ? pick(10) : 0, '7');
    r.extras = Bytes(lengths[pick(6)], static_cast<uint8_t>(pick(3) == 0 ? 0xff : 0));
    r.cas = pick(4) == 0 ? pick(5) : 0;
    r.datatype = static_cast<uint8_t>(pick(8) == 0 ? pick(256) : 0);
    if (pick(8) == 0) r.framing_extras = Bytes(1 + pick(3), static_cast<uint8_t>(pick(256)));
    r.opaque = static_cast<uint32_t>(i);
    for (const Response& answer : run(r)) {
      EXPECT_EQ(answer.magic, 0x81);
      EXPECT_EQ(answer.opcode, static_cast<uint8_t>(r.opcode));
      EXPECT_EQ(answer.opaque, r.opaque);
      ++seen[answer.status];
    }
    if (::testing::Test::HasFailure()) break;
  }
  // The mix reached the handlers, not only the checks in front of them.
  EXPECT_GT(seen[Status::Success], 100);
  EXPECT_GT(seen[Status::Einval], 100);
  EXPECT_GT(seen[Status::UnknownCommand], 100);
  EXPECT_GT(seen[Status::KeyEnoent], 10);
}

}  // namespace
}  // namespace tern::commands
