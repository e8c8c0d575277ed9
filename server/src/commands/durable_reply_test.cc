// Durable writes through the dispatcher, against a real persistent bucket (RocksDB in a
// temporary directory, its tasks on a ManualExecutor): which levels each bucket type takes,
// the shared path that parks a persisting write and answers it once the flusher wrote it (or
// its deadline passed), and what a persistent bucket adds elsewhere (warmup, OBSERVE_SEQNO,
// STAT).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cluster/vbucket_of.h"
#include "commands/dispatcher.h"
#include "commands/dispatcher_harness.h"
#include "commands/durable_reply.h"
#include "commands/persistent_bucket_harness.h"
#include "engine/bucket.h"
#include "protocol/codec.h"
#include "protocol/opcode.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using testing::be16;
using testing::be32;
using testing::Bytes;
using testing::Connection;
using testing::expect_error;
using testing::Request;
using testing::Response;

constexpr uint8_t kMajority = 1;
constexpr uint8_t kPersistToActive = 2;
constexpr uint8_t kPersistToMajority = 3;

// The frame info of a durability requirement: level, and a timeout when one is given.
Bytes durability(uint8_t level, uint16_t timeout_ms = 0) {
  if (timeout_ms == 0) return {0x11, level};
  return {0x13, level, static_cast<uint8_t>(timeout_ms >> 8), static_cast<uint8_t>(timeout_ms)};
}

Request durable_set(const std::string& key, const std::string& value, Bytes framing,
                    Opcode opcode = Opcode::Set) {
  return Request{.opcode = opcode, .key = key, .value = value,
                 .extras = testing::storage_extras(0, 0), .framing_extras = std::move(framing)};
}

class DurableTest : public testing::PersistentBucketTest {
 protected:
  // A write parked on `c` with its deadline `deadline_ms` from now, the flusher not run: the
  // durability timeout task's work a millisecond before the deadline answers nothing, and at
  // the deadline answers SyncWriteAmbiguous.
  void expect_ambiguous_at(Connection& c, int64_t deadline_ms) {
    clock_.advance_ms(deadline_ms - 1);
    bucket().persistence()->durability().expire_due();
    EXPECT_TRUE(c.parker().finish_ready().empty());
    clock_.advance_ms(1);
    bucket().persistence()->durability().expire_due();
    const std::vector<Response> answers = c.parker().finish_ready();
    ASSERT_EQ(answers.size(), 1u);
    expect_error(answers[0], Status::SyncWriteAmbiguous);
  }
};

// An ephemeral bucket has no disk: Majority (no replicas) is met once the write is applied,
// and the levels that persist are refused.
TEST_F(DurableTest, AnEphemeralBucketTakesMajorityAndRefusesThePersistLevels) {
  const std::pair<uint8_t, Status> cases[] = {
      {kMajority, Status::Success},
      {kPersistToActive, Status::DurabilityImpossible},
      {kPersistToMajority, Status::DurabilityImpossible},
  };
  open(false);
  Connection& c = connect();
  for (const auto& [level, answered] : cases) {
    SCOPED_TRACE(::testing::Message() << "level " << int{level});
    const std::vector<Response> answers = c.run(durable_set("k", "v", durability(level)));
    ASSERT_EQ(answers.size(), 1u);
    EXPECT_EQ(answers[0].status, answered);
    EXPECT_EQ(c.last_outcome(), Outcome::Continue);
  }
}

// A persistent bucket, one request shape per level, the flusher not yet run: only the levels
// that persist wait, and answer Success once the flusher has written the document; Majority
// and a write without the frame answer at once, while the document is still only in memory.
TEST_F(DurableTest, OnAPersistentBucketOnlyThePersistLevelsWaitForTheFlusher) {
  struct Case {
    const char* level;
    Bytes frame;
    bool waits;
  };
  const Case cases[] = {
      {"no durability frame", {}, false},
      {"Majority", durability(kMajority, 1000), false},
      {"MajorityAndPersistToActive", durability(kPersistToActive, 1000), true},
      {"PersistToMajority", durability(kPersistToMajority, 1000), true},
  };
  const uint16_t filed = cluster::vbucket_of("k", cluster::kVBucketCount);
  for (const Case& test : cases) {
    SCOPED_TRACE(test.level);
    close();
    open_warm();
    Connection& c = connect();
    storage::Store& store = bucket().persistence()->store();
    const std::vector<Response> answers = c.run(durable_set("k", "v", test.frame));
    ASSERT_FALSE(store.get(filed, "k").has_value()) << "the flusher has not run yet";
    if (test.waits) {
      EXPECT_TRUE(answers.empty());
      EXPECT_EQ(c.last_outcome(), Outcome::WouldBlock);
      EXPECT_EQ(c.parker().waiting(), 1u);
      EXPECT_TRUE(c.parker().finish_ready().empty());
    } else {
      ASSERT_EQ(answers.size(), 1u);
      EXPECT_EQ(answers[0].status, Status::Success);
      EXPECT_EQ(c.last_outcome(), Outcome::Continue);
    }
    flush();
    ASSERT_TRUE(store.get(filed, "k").has_value());
    const std::vector<Response> persisted = c.parker().finish_ready();
    if (test.waits) {
      ASSERT_EQ(persisted.size(), 1u);
      EXPECT_EQ(persisted[0].status, Status::Success);
    } else {
      EXPECT_TRUE(persisted.empty()) << "answered once, at once";
    }
  }
}

TEST_F(DurableTest, APersistedWriteIsCommittedAndAnsweredAsAnyMutation) {
  open_warm();
  Connection& c = connect();
  ASSERT_TRUE(c.run(durable_set("k", "v", durability(kPersistToMajority))).empty());

  // Held aside until on disk: readers see no document, writers wait their turn.
  EXPECT_EQ(c.get("k").status, Status::KeyEnoent);
  expect_error(c.one(durable_set("k", "w", {})), Status::SyncWriteInProgress);
  EXPECT_TRUE(c.parker().finish_ready().empty());

  flush();
  const std::vector<Response> answers = c.parker().finish_ready();
  ASSERT_EQ(answers.size(), 1u);
  const Response& stored = answers[0];
  EXPECT_EQ(stored.status, Status::Success);
  EXPECT_EQ(stored.opcode, static_cast<uint8_t>(Opcode::Set));
  EXPECT_EQ(stored.opaque, testing::kOpaque);
  EXPECT_EQ(stored.magic, 0x81);
  const Response read = c.get("k");
  EXPECT_EQ(read.value, "v");
  EXPECT_EQ(stored.cas, read.cas);
  // The mutation token: the uuid of the vbucket the key is filed under, and the seqno.
  ASSERT_EQ(stored.extras.size(), 16u);
  const uint16_t filed = cluster::vbucket_of("k", cluster::kVBucketCount);
  EXPECT_EQ(protocol::load_be64(stored.extras.data()), bucket().vbucket(filed)->uuid());
  EXPECT_EQ(protocol::load_be64(stored.extras.data() + 8), 1u);
  EXPECT_EQ(c.parker().waiting(), 0u);
}

// The harness sends every key on vbucket 0, as memcached clients do: a persistent bucket still
// files the document under the vbucket its key hashes to, so that a key written by both kinds
// of client has one record on disk, never two.
TEST_F(DurableTest, APersistentBucketFilesEachKeyUnderTheVBucketItHashesTo) {
  open_warm();
  Connection& c = connect();
  const uint16_t filed = cluster::vbucket_of("k", cluster::kVBucketCount);
  ASSERT_NE(filed, 0) << "pick a key that does not hash to vbucket 0";
  ASSERT_EQ(c.set("k", "v").status, Status::Success);
  flush();
  storage::Store& store = bucket().persistence()->store();
  ASSERT_TRUE(store.get(filed, "k").has_value());
  EXPECT_EQ(store.get(filed, "k")->value, "v");
  EXPECT_FALSE(store.get(0, "k").has_value());
  EXPECT_EQ(bucket().vbucket(filed)->high_seqno(), 1u);
  EXPECT_EQ(bucket().vbucket(0)->high_seqno(), 0u);
}

// Every mutation that may carry durability goes through the same path: parked, then the
// answer its handler gives (status, value) once persisted.
TEST_F(DurableTest, EveryMutationWaitsForTheDiskThenAnswersAsItWould) {
  struct Case {
    const char* name;
    Request request;
    Status status;
    std::string value;  // of the answer
  };
  std::string counter(8, '\0');
  counter[7] = 111;  // "100" + 11
  std::vector<Case> cases = {
      {"set", durable_set("k", "1", {}), Status::Success, ""},
      {"add", durable_set("new", "x", {}, Opcode::Add), Status::Success, ""},
      {"replace", durable_set("k", "10", {}, Opcode::Replace), Status::Success, ""},
      {"append", {.opcode = Opcode::Append, .key = "k", .value = "0"}, Status::Success, ""},
      {"increment",
       {.opcode = Opcode::Increment, .key = "k", .extras = testing::arithmetic_extras(11, 0, 0)},
       Status::Success, counter},
      {"subdoc",
       {.opcode = Opcode::SubdocDictUpsert, .key = "doc", .value = "a1",
        .extras = testing::concat({be16(1), Bytes{0x00}})},
       Status::Success, ""},
      {"delete", {.opcode = Opcode::Delete, .key = "new"}, Status::Success, ""},
  };
  // "doc" starts as a JSON object for the sub-document upsert of path "a" to 1.
  open_warm();
  Connection& c = connect();
  ASSERT_EQ(c.set("doc", "{}").status, Status::Success);
  for (Case& test : cases) {
    SCOPED_TRACE(test.name);
    test.request.framing_extras = durability(kPersistToActive);
    ASSERT_TRUE(c.run(test.request).empty());
    EXPECT_EQ(c.last_outcome(), Outcome::WouldBlock);
    flush();
    const std::vector<Response> answers = c.parker().finish_ready();
    ASSERT_EQ(answers.size(), 1u);
    EXPECT_EQ(answers[0].status, test.status);
    EXPECT_EQ(answers[0].value, test.value);
    EXPECT_EQ(answers[0].opcode, static_cast<uint8_t>(test.request.opcode));
    EXPECT_NE(answers[0].cas, 0u);
  }
  EXPECT_EQ(c.get("k").value, "111");
  EXPECT_EQ(c.get("new").status, Status::KeyEnoent);
  EXPECT_EQ(c.get("doc").value, R"({"a":1})");
}

TEST_F(DurableTest, AQuietDurableWriteStaysSilentWhenCommitted) {
  open_warm();
  Connection& c = connect();
  ASSERT_TRUE(c.run(durable_set("k", "v", durability(kPersistToActive), Opcode::SetQ)).empty());
  EXPECT_EQ(c.last_outcome(), Outcome::WouldBlock);
  flush();
  EXPECT_TRUE(c.parker().finish_ready().empty());
  EXPECT_EQ(c.parker().waiting(), 0u);
  EXPECT_EQ(c.get("k").value, "v");
}

TEST_F(DurableTest, AWriteNotPersistedByItsDeadlineIsAmbiguousAndStillCommits) {
  for (const uint8_t level : {kPersistToActive, kPersistToMajority}) {
    SCOPED_TRACE(::testing::Message() << "level " << int{level});
    close();
    open_warm();
    Connection& c = connect();
    ASSERT_TRUE(c.run(durable_set("k", "v", durability(level, 100))).empty());
    expect_ambiguous_at(c, 100);
    flush();
    EXPECT_EQ(c.get("k").value, "v");
  }
}

TEST_F(DurableTest, WithoutATimeoutTheDefaultDeadlineApplies) {
  open_warm();
  Connection& c = connect();
  ASSERT_TRUE(c.run(durable_set("k", "v", durability(kPersistToMajority, 0))).empty());
  expect_ambiguous_at(c, kDefaultDurabilityTimeoutMs);
}

TEST_F(DurableTest, DataCommandsAnswerEtmpfailUntilTheBucketIsWarm) {
  open(true);  // not started: warmup has not run
  Connection& c = connect();
  expect_error(c.get("k"), Status::Etmpfail);
  expect_error(c.set("k", "v"), Status::Etmpfail);
  expect_error(c.one({.opcode = Opcode::GetMeta, .key = "k"}), Status::Etmpfail);
  // What addresses no document still runs.
  EXPECT_EQ(c.one({.opcode = Opcode::Noop}).status, Status::Success);
  EXPECT_EQ(c.one({.opcode = Opcode::GetCollectionsManifest}).status, Status::Success);

  bucket().persistence()->start(executor_, bucket().executor_owner());
  executor_.run_ready();
  EXPECT_EQ(c.set("k", "v").status, Status::Success);
  EXPECT_EQ(c.get("k").value, "v");
}

// Format u8, vbucket u16, uuid u64, persisted seqno u64, current seqno u64.
// OBSERVE_SEQNO of one vbucket: (persisted seqno, current seqno).
std::pair<uint64_t, uint64_t> observe(Connection& c, engine::Bucket& bucket, uint16_t vbucket = 0) {
  const Response r = c.one({.opcode = Opcode::ObserveSeqno,
                            .value = testing::text_of(testing::be64(bucket.vbucket(vbucket)->uuid())),
                            .vbucket = vbucket});
  EXPECT_EQ(r.status, Status::Success);
  if (r.value.size() < 27) return {};
  const auto* body = reinterpret_cast<const uint8_t*>(r.value.data());
  return {protocol::load_be64(body + 11), protocol::load_be64(body + 19)};
}

TEST_F(DurableTest, ObserveSeqnoReportsWhatIsOnDiskBesideTheCurrentSeqno) {
  open_warm();
  Connection& c = connect();
  ASSERT_EQ(c.set("a", "1").status, Status::Success);
  ASSERT_EQ(c.set("a", "2").status, Status::Success);
  const uint16_t filed = cluster::vbucket_of("a", cluster::kVBucketCount);
  EXPECT_EQ(observe(c, bucket(), filed), std::make_pair(uint64_t{0}, uint64_t{2}));
  flush();
  EXPECT_EQ(observe(c, bucket(), filed), std::make_pair(uint64_t{2}, uint64_t{2}));
}

TEST_F(DurableTest, ObserveSeqnoOnAnEphemeralBucketReportsTheCurrentSeqnoAsPersisted) {
  open(false);
  Connection& c = connect();
  ASSERT_EQ(c.set("a", "1").status, Status::Success);
  EXPECT_EQ(observe(c, bucket()), std::make_pair(uint64_t{1}, uint64_t{1}));
}

// FLUSH on a persistent bucket empties its disk too, and answers once the disk is cleared
// (FLUSHQ then stays quiet); a flush with a delay is not supported there. An ephemeral
// bucket answers at once.
TEST_F(DurableTest, FlushOnAPersistentBucketAnswersOnceTheDiskIsCleared) {
  const uint16_t filed = cluster::vbucket_of("k", cluster::kVBucketCount);
  for (Opcode flush_opcode : {Opcode::Flush, Opcode::FlushQ}) {
    SCOPED_TRACE(flush_opcode == Opcode::Flush ? "FLUSH" : "FLUSHQ");
    close();
    open_warm();
    Connection& c = connect();
    storage::Store& store = bucket().persistence()->store();
    ASSERT_EQ(c.set("k", "v").status, Status::Success);
    flush();
    ASSERT_TRUE(store.get(filed, "k").has_value());

    expect_error(c.one({.opcode = Opcode::Flush, .extras = be32(10)}), Status::NotSupported);
    EXPECT_TRUE(c.run({.opcode = flush_opcode}).empty());
    EXPECT_EQ(c.last_outcome(), Outcome::WouldBlock);
    EXPECT_EQ(c.parker().waiting(), 1u);
    EXPECT_EQ(c.get("k").status, Status::KeyEnoent) << "memory is flushed at once";
    EXPECT_TRUE(store.get(filed, "k").has_value()) << "the flusher has not run yet";

    flush();
    EXPECT_FALSE(store.get(filed, "k").has_value());
    const std::vector<Response> answers = c.parker().finish_ready();
    if (flush_opcode == Opcode::Flush) {
      ASSERT_EQ(answers.size(), 1u);
      EXPECT_EQ(answers[0].status, Status::Success);
    } else {
      EXPECT_TRUE(answers.empty());
    }
  }
  close();
  open(false);
  Connection& c = connect();
  ASSERT_EQ(c.set("k", "v").status, Status::Success);
  EXPECT_EQ(c.one({.opcode = Opcode::Flush}).status, Status::Success);
  EXPECT_EQ(c.get("k").status, Status::KeyEnoent);
}

std::map<std::string, std::string> stats(Connection& c) {
  std::map<std::string, std::string> out;
  for (const Response& r : c.run({.opcode = Opcode::Stat})) out[r.key] = r.value;
  return out;
}

TEST_F(DurableTest, StatShowsPersistenceOnlyForAPersistentBucket) {
  open(false);
  Connection& ephemeral = connect();
  EXPECT_EQ(stats(ephemeral).count("ep_queue_size"), 0u);
  close();

  open_warm();
  Connection& c = connect();
  ASSERT_EQ(c.set("a", "1").status, Status::Success);
  ASSERT_TRUE(c.run(durable_set("b", "2", durability(kPersistToMajority))).empty());
  std::map<std::string, std::string> before = stats(c);
  EXPECT_EQ(before["ep_queue_size"], "2");
  EXPECT_EQ(before["ep_warmup_state"], "done");
  EXPECT_EQ(before["ep_durability_pending"], "1");
  flush();
  std::map<std::string, std::string> after = stats(c);
  EXPECT_EQ(after["ep_queue_size"], "0");
  EXPECT_EQ(after["ep_total_persisted"], "2");
  EXPECT_EQ(after["ep_durability_pending"], "0");
  EXPECT_EQ(after["ep_durability_committed"], "1");
}

}  // namespace
}  // namespace tern::commands
