// The persistence proof: ternd is killed with SIGKILL at a random moment while clients drive
// PersistToMajority upserts, restarted on the same data directory, and every write it had
// acknowledged must read back with its value and CAS. Each write goes to a fresh key, so an
// acknowledged key has exactly one right answer. Ten rounds, each with its own directory, each
// killed only after at least 100 durable acknowledgements. A durable write answers Success or,
// if its timeout passed first, SyncWriteAmbiguous (counted, not checked: it may or may not
// have been applied); any other answer fails the test.
//
// Non-durable writes run beside them: those acknowledged but not yet flushed when the process
// died are lost, by design (a couchbase bucket acknowledges a plain write once it is in
// memory). The test prints how many, and bounds the loss by what the flusher had not yet
// persisted: a lost plain write must be numbered after the last seqno its vbucket has on disk
// (what the restarted server reports as persisted), since the flusher persists each vbucket's
// mutations in seqno order.
//
// The kill moments come from a std::mt19937 whose seed is printed; TERN_CRASH_SEED=N replays
// a run.

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "storage/temp_dir.h"
#include "couchbase_session.h"
#include "seqnos.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

constexpr int kRounds = 10;
constexpr int kDurableWriters = 4;
// Durable acknowledgements before a round's kill: fewer would prove little.
constexpr int kMinDurableAcks = 100;
// Bounds, so that a server that never dies (or a test that never kills) cannot loop forever.
constexpr int kMaxWritesPerWriter = 20000;
constexpr auto kMinKillDelay = std::chrono::milliseconds(20);
constexpr auto kMaxKillDelay = std::chrono::milliseconds(300);
constexpr auto kWarmTimeout = std::chrono::seconds(60);  // generous: a busy machine

// The durable writes' requirement: PersistToMajority, timeout 30 s. A timeout that passes
// answers SyncWriteAmbiguous: not acknowledged, so not checked.
const std::string kDurable = durability_frame(kLevelPersistToMajority, 30'000);

struct AckedWrite {
  std::string key, value;
  uint64_t cas = 0;
  uint64_t seqno = 0;  // from the answer's mutation token
};

// What one writer's requests were answered with, up to the kill.
struct Answers {
  std::vector<AckedWrite> acked;           // Success
  int ambiguous = 0;                       // SyncWriteAmbiguous
  std::vector<std::string> unexpected;     // anything else, described
};

// Counts shared with the thread that decides when to kill.
struct Progress {
  std::atomic<int> durable_acked{0};
  std::atomic<int> unexpected{0};
};

// A fresh directory for the round's config file and data, removed with the object.
class RoundDirectory {
 public:
  RoundDirectory() {
    // One couchbase bucket, open to connections that do not log in: the test is about the
    // disk, not authentication.
    std::ofstream(config_path()) << "[server]\nanonymous_bucket = \"default\"\n"
                                    "[[bucket]]\nname = \"default\"\ntype = \"couchbase\"\n"
                                    "memory_quota_mb = 256\n";
  }
  std::string config_path() const { return dir_.sub("tern.toml"); }
  std::vector<std::string> ternd_args() const {
    return {"--config", config_path(), "--data-dir", dir_.sub("data"), "--threads", "2"};
  }

 private:
  storage::TempDir dir_;
};

std::string to_hex(Status status) {
  std::ostringstream out;
  out << std::hex << static_cast<int>(status);
  return out.str();
}

// Writes fresh keys one at a time until the server goes away or the bound is reached, and
// returns the answers. Sends and receives separately: a missing answer (the kill) is the
// expected end, not a failure. The server is warm (TerndProcess waits for it), so a plain
// write answers Success, and a durable one Success or SyncWriteAmbiguous; anything else is
// unexpected, and so is a Success without a mutation token.
Answers write_until_killed(uint16_t port, const std::string& prefix, bool durable,
                           Progress& progress) {
  Answers answers;
  CouchbaseSession session(port);
  if (!session.connected()) return answers;
  session.hello({kAltRequestSupport, kSyncReplication, kXerror, kMutationSeqno});
  for (int i = 0; i < kMaxWritesPerWriter; ++i) {
    const std::string key = prefix + std::to_string(i);
    const std::string value = "{\"key\":\"" + key + "\",\"n\":" + std::to_string(i) + "}";
    Request request = store(Opcode::Set, key, value);
    if (durable) request = alt(std::move(request), kDurable);
    if (!session.send(request)) break;
    const std::optional<Response> answer = session.receive();
    if (!answer) break;
    const std::optional<uint64_t> seqno = token_seqno(*answer);
    if (answer->status == Status::Success && seqno) {
      answers.acked.push_back({key, value, answer->cas, *seqno});
      if (durable) progress.durable_acked.fetch_add(1, std::memory_order_relaxed);
    } else if (durable && answer->status == Status::SyncWriteAmbiguous) {
      ++answers.ambiguous;
    } else {
      answers.unexpected.push_back(
          key + ": status 0x" + to_hex(answer->status) +
          (answer->status == Status::Success ? ", without a mutation token" : ""));
      progress.unexpected.fetch_add(1, std::memory_order_relaxed);
    }
  }
  return answers;
}

// GETs `key` until the bucket is warm (Etmpfail until then); the answer, or nullopt past the
// bound.
std::optional<Response> get_when_warm(CouchbaseSession& session, const std::string& key) {
  const auto deadline = std::chrono::steady_clock::now() + kWarmTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    Response answer = session.call(simple(Opcode::Get, key));
    if (answer.status != Status::Etmpfail) return answer;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

uint32_t seed() {
  if (const char* given = ::getenv("TERN_CRASH_SEED")) {
    return static_cast<uint32_t>(std::strtoul(given, nullptr, 10));
  }
  return std::random_device{}();
}

TEST(CrashTest, AcknowledgedDurableWritesSurviveKillNine) {
  const uint32_t the_seed = seed();
  std::cout << "crash test seed " << the_seed << " (TERN_CRASH_SEED=" << the_seed
            << " replays it)\n";
  RecordProperty("seed", std::to_string(the_seed));
  std::mt19937 random(the_seed);
  std::uniform_int_distribution<int> kill_delay_ms(static_cast<int>(kMinKillDelay.count()),
                                                   static_cast<int>(kMaxKillDelay.count()));
  uint64_t durable_checked = 0, durable_ambiguous = 0, plain_acked = 0, plain_lost = 0;

  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + ", seed " + std::to_string(the_seed));
    RoundDirectory directory;
    std::vector<Answers> durable(kDurableWriters);
    Answers plain;
    const int delay_ms = kill_delay_ms(random);
    {
      TerndProcess server(directory.ternd_args());
      ASSERT_NE(server.port(), 0) << server.log();
      Progress progress;
      std::vector<std::thread> writers;
      for (int w = 0; w < kDurableWriters; ++w) {
        writers.emplace_back([&, w] {
          durable[w] = write_until_killed(server.port(), "d" + std::to_string(w) + "-", true,
                                          progress);
        });
      }
      writers.emplace_back(
          [&] { plain = write_until_killed(server.port(), "plain-", false, progress); });
      // Kill while durable writes are flowing: once enough are acknowledged (bounded wait),
      // then after the random delay.
      const auto enough_deadline = std::chrono::steady_clock::now() + kWarmTimeout;
      while (progress.durable_acked.load() < kMinDurableAcks &&
             progress.unexpected.load() == 0 &&
             std::chrono::steady_clock::now() < enough_deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      const int status = server.stop(SIGKILL);
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
      for (std::thread& writer : writers) writer.join();
      for (const Answers& answers : durable) {
        for (const std::string& what : answers.unexpected) ADD_FAILURE() << "durable " << what;
      }
      for (const std::string& what : plain.unexpected) ADD_FAILURE() << "plain " << what;
      // Without enough acknowledged durable writes the round would prove little.
      ASSERT_GE(progress.durable_acked.load(), kMinDurableAcks)
          << "durable writes acknowledged before the kill; the log:\n" << server.log();
    }

    TerndProcess restarted(directory.ternd_args());
    ASSERT_NE(restarted.port(), 0) << restarted.log();
    CouchbaseSession reader(restarted.port());
    reader.hello({kXerror});
    size_t round_durable = 0, round_missing = 0;
    int round_ambiguous = 0;
    for (const Answers& answers : durable) {
      round_ambiguous += answers.ambiguous;
      for (const AckedWrite& write : answers.acked) {
        const std::optional<Response> answer = get_when_warm(reader, write.key);
        ASSERT_TRUE(answer) << "not warm within the bound:\n" << restarted.log();
        const bool intact = answer->status == Status::Success && answer->value == write.value &&
                            answer->cas == write.cas;
        EXPECT_TRUE(intact) << write.key << " was acknowledged as durable, and reads back with "
                            << "status 0x" << to_hex(answer->status) << ", value '"
                            << answer->value << "', CAS " << answer->cas << " (acknowledged CAS "
                            << write.cas << ")";
        if (!intact) ++round_missing;
        ++round_durable;
      }
    }
    // Each vbucket's persisted seqno after the restart: the newest mutation it has on disk.
    std::map<uint16_t, uint64_t> persisted;
    size_t round_lost = 0;
    for (const AckedWrite& write : plain.acked) {
      const std::optional<Response> answer = get_when_warm(reader, write.key);
      ASSERT_TRUE(answer) << "not warm within the bound:\n" << restarted.log();
      const bool intact = answer->status == Status::Success && answer->value == write.value &&
                          answer->cas == write.cas;
      if (intact) continue;
      // A plain write is either on disk as acknowledged or lost with the unflushed tail.
      ++round_lost;
      EXPECT_EQ(answer->status, Status::KeyEnoent) << write.key << " came back altered";
      const uint16_t vbucket = filed_vbucket(write.key);
      if (!persisted.contains(vbucket)) {
        const std::optional<uint64_t> seqno = persisted_seqno(reader, vbucket);
        ASSERT_TRUE(seqno);
        persisted[vbucket] = *seqno;
      }
      EXPECT_GT(write.seqno, persisted[vbucket])
          << write.key << " (seqno " << write.seqno << ") is lost, yet vbucket " << vbucket
          << " was persisted up to seqno " << persisted[vbucket];
    }
    // "all read back" only when it is true.
    const std::string durable_outcome =
        round_missing == 0 ? "all read back"
                           : std::to_string(round_missing) + " of them missing or altered";
    std::cout << "round " << round << ": killed " << delay_ms << " ms after "
              << kMinDurableAcks << " durable acknowledgements; " << round_durable
              << " acknowledged durable writes, " << durable_outcome << "; " << round_ambiguous
              << " ambiguous; " << round_lost << " of " << plain.acked.size()
              << " acknowledged plain writes lost\n";
    durable_checked += round_durable;
    durable_ambiguous += round_ambiguous;
    plain_acked += plain.acked.size();
    plain_lost += round_lost;
  }
  std::cout << "crash test: " << durable_checked << " durable writes acknowledged and checked, "
            << durable_ambiguous << " ambiguous, over " << kRounds
            << " rounds; plain writes lost: " << plain_lost << " of " << plain_acked << "\n";
}

}  // namespace
}  // namespace tern::e2e
