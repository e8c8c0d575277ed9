// The persistence proof: ternd is killed with SIGKILL at a random moment while clients drive
// PersistToMajority upserts, restarted on the same data directory, and every write it had
// acknowledged must read back with its value and CAS. Each write goes to a fresh key, so an
// acknowledged key has exactly one right answer. Ten rounds, each with its own directory.
//
// Non-durable writes run beside them: those acknowledged but not yet flushed when the process
// died are lost, by design (a couchbase bucket acknowledges a plain write once it is in
// memory). The test prints how many; it asserts only that the server restarts and reads.
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
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "storage/temp_dir.h"
#include "couchbase_session.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

constexpr int kRounds = 10;
constexpr int kDurableWriters = 4;
// Bounds, so that a server that never dies (or a test that never kills) cannot loop forever.
constexpr int kMaxWritesPerWriter = 20000;
constexpr auto kMinKillDelay = std::chrono::milliseconds(20);
constexpr auto kMaxKillDelay = std::chrono::milliseconds(300);
constexpr auto kWarmTimeout = std::chrono::seconds(60);  // generous: a busy machine

// Durability frame (id 1, three bytes): level PersistToMajority (3), timeout 30 s. A timeout
// that passes answers SyncWriteAmbiguous: not acknowledged, so not checked.
const std::string kPersistToMajority("\x13\x03\x75\x30", 4);

struct AckedWrite {
  std::string key, value;
  uint64_t cas = 0;
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

// Writes fresh keys one at a time until the server goes away or the bound is reached, and
// returns those it acknowledged. Sends and receives separately: a missing answer (the kill)
// is the expected end, not a failure.
// `refusal` keeps the first status other than Success (or Etmpfail, which a bucket still
// warming up answers), for the failure message.
std::vector<AckedWrite> write_until_killed(uint16_t port, const std::string& prefix,
                                           bool durable, std::atomic<int>& acked,
                                           std::atomic<int>& refusal) {
  std::vector<AckedWrite> written;
  CouchbaseSession session(port);
  if (!session.connected()) return written;
  session.hello({kAltRequestSupport, kSyncReplication, kXerror});
  for (int i = 0; i < kMaxWritesPerWriter; ++i) {
    const std::string key = prefix + std::to_string(i);
    const std::string value = "{\"key\":\"" + key + "\",\"n\":" + std::to_string(i) + "}";
    Request request = store(Opcode::Set, key, value);
    if (durable) request = alt(std::move(request), kPersistToMajority);
    if (!session.send(request)) break;
    const std::optional<Response> answer = session.receive();
    if (!answer) break;
    if (answer->status == Status::Success) {
      written.push_back({key, value, answer->cas});
      acked.fetch_add(1, std::memory_order_relaxed);
    } else if (answer->status != Status::Etmpfail) {
      int none = 0;
      refusal.compare_exchange_strong(none, static_cast<int>(answer->status));
    }
  }
  return written;
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
  uint64_t durable_checked = 0, plain_acked = 0, plain_lost = 0;

  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + ", seed " + std::to_string(the_seed));
    RoundDirectory directory;
    std::vector<std::vector<AckedWrite>> durable(kDurableWriters);
    std::vector<AckedWrite> plain;
    const int delay_ms = kill_delay_ms(random);
    {
      TerndProcess server(directory.ternd_args());
      ASSERT_NE(server.port(), 0) << server.log();
      std::atomic<int> durable_acked{0}, plain_acked_now{0}, refusal{0};
      std::vector<std::thread> writers;
      for (int w = 0; w < kDurableWriters; ++w) {
        writers.emplace_back([&, w] {
          durable[w] = write_until_killed(server.port(), "d" + std::to_string(w) + "-", true,
                                          durable_acked, refusal);
        });
      }
      writers.emplace_back([&] {
        plain = write_until_killed(server.port(), "plain-", false, plain_acked_now, refusal);
      });
      // Kill while durable writes are flowing: after the first one is acknowledged (bounded
      // wait), then the random delay.
      const auto first_ack_deadline = std::chrono::steady_clock::now() + kWarmTimeout;
      while (durable_acked.load() == 0 && refusal.load() == 0 &&
             std::chrono::steady_clock::now() < first_ack_deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      const int status = server.stop(SIGKILL);
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
      for (std::thread& writer : writers) writer.join();
      // Without acknowledged durable writes the round would prove nothing.
      ASSERT_GT(durable_acked.load(), 0)
          << "no durable write was acknowledged before the kill; first refusal: status 0x"
          << std::hex << refusal.load() << std::dec << "; the log:\n" << server.log();
    }

    TerndProcess restarted(directory.ternd_args());
    ASSERT_NE(restarted.port(), 0) << restarted.log();
    CouchbaseSession reader(restarted.port());
    reader.hello({kXerror});
    size_t round_durable = 0;
    for (const auto& writes : durable) {
      for (const AckedWrite& write : writes) {
        const std::optional<Response> answer = get_when_warm(reader, write.key);
        ASSERT_TRUE(answer) << "not warm within the bound:\n" << restarted.log();
        EXPECT_EQ(answer->status, Status::Success) << write.key << " was acknowledged";
        EXPECT_EQ(answer->value, write.value) << write.key;
        EXPECT_EQ(answer->cas, write.cas) << write.key;
        ++round_durable;
      }
    }
    size_t round_lost = 0;
    for (const AckedWrite& write : plain) {
      const std::optional<Response> answer = get_when_warm(reader, write.key);
      ASSERT_TRUE(answer) << "not warm within the bound:\n" << restarted.log();
      const bool intact = answer->status == Status::Success && answer->value == write.value &&
                          answer->cas == write.cas;
      // A plain write is either on disk as acknowledged or lost with the unflushed tail.
      if (!intact) {
        EXPECT_EQ(answer->status, Status::KeyEnoent) << write.key << " came back altered";
        ++round_lost;
      }
    }
    std::cout << "round " << round << ": killed after " << delay_ms << " ms; " << round_durable
              << " acknowledged durable writes all read back; " << round_lost << " of "
              << plain.size() << " acknowledged plain writes lost\n";
    durable_checked += round_durable;
    plain_acked += plain.size();
    plain_lost += round_lost;
  }
  std::cout << "crash test: " << durable_checked << " durable writes checked over " << kRounds
            << " rounds; plain writes lost: " << plain_lost << " of " << plain_acked << "\n";
}

}  // namespace
}  // namespace tern::e2e
