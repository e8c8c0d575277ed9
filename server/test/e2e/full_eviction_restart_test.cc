// A couchbase bucket under full eviction, loaded with four times its quota, stopped with
// SIGTERM and started again on the same data directory: warmup loads what fits below the low
// watermark and leaves the rest on disk only, keys and all
// (PersistenceHooks::Restored::OnDiskOnly), yet every document still counts in curr_items and reads
// back with its value, fetched from disk in the background when warmup left it there.
//
// Small on purpose (a 4 MiB quota, 16 MiB of values): it must stay quick on a busy machine;
// larger_than_memory_test.cc loads a bigger dataset without the restart.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bulk_requests.h"
#include "couchbase_session.h"
#include "storage/temp_dir.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

constexpr uint64_t kQuotaBytes = 4ull << 20;
constexpr int kKeys = 4096;
constexpr size_t kValueSize = 4096;  // 16 MiB in all
// A bound on a busy machine: it only stops a broken server from holding the suite up.
constexpr auto kPhaseTimeout = std::chrono::seconds(60);

std::string key_of(int i) { return "restart-" + std::to_string(i); }
std::string value_of(int i) { return distinct_value(i, kValueSize); }

// A connection whose requests may be answered out of order: under full eviction even a write
// of a new key waits for a disk read (only the disk can tell the key is new), and unordered
// requests let a window's reads go to the disk together.
void negotiate_unordered(CouchbaseSession& session) {
  const std::vector<uint16_t> acknowledged = session.hello({kXerror, kUnorderedExecution});
  ASSERT_EQ(acknowledged.size(), 2u);
}

// Sends make(i) for every key and expects each to succeed (with check_value, to answer the
// key's value), naming the first few that do not.
void run_all_expecting(Client& client, const std::function<Request(int)>& make,
                       const char* what, bool check_value) {
  int wrong = 0;
  run_all(
      client, first_n(kKeys), make,
      [&](int i, const Response& answer) {
        const bool right = answer.status == Status::Success &&
                           (!check_value || answer.value == value_of(i));
        if (!right && wrong++ < 5) {
          ADD_FAILURE() << what << ' ' << key_of(i) << ": status "
                        << static_cast<int>(answer.status) << ", " << answer.value.size()
                        << " bytes";
        }
      },
      kPhaseTimeout);
  EXPECT_EQ(wrong, 0) << what;
}

TEST(FullEvictionRestartTest, EveryDocumentCountsAndReadsBackAfterACleanRestart) {
  const storage::TempDir dir;
  std::ofstream(dir.sub("t.toml")) << "[server]\nanonymous_bucket = \"b\"\n"
                                      "[[bucket]]\nname = \"b\"\ntype = \"couchbase\"\n"
                                      "eviction_policy = \"full\"\nmemory_quota_mb = "
                                   << (kQuotaBytes >> 20) << '\n';
  const std::vector<std::string> args = {"--config", dir.sub("t.toml"), "--data-dir",
                                         dir.sub("data")};
  {
    TerndProcess server(args);
    ASSERT_NE(server.port(), 0);
    ASSERT_TRUE(server.wait_for_log("full eviction")) << server.log();
    CouchbaseSession writer(server.port());
    negotiate_unordered(writer);
    run_all_expecting(
        writer.client(), [](int i) { return store(Opcode::Set, key_of(i), value_of(i)); },
        "SET", false);
    ASSERT_FALSE(HasFailure());
    const std::map<std::string, std::string> stats = writer.client().stats();
    EXPECT_EQ(stat_number(stats, "curr_items"), static_cast<uint64_t>(kKeys));
    EXPECT_GT(stat_number(stats, "ep_num_non_resident"), 0u) << "nothing was evicted";
    // A clean stop writes what is still queued.
    EXPECT_EQ(server.stop(SIGTERM), 0);
  }

  // The constructor returns once ternd logged that it is ready: warmup is done.
  TerndProcess again(args);
  ASSERT_NE(again.port(), 0);
  CouchbaseSession reader(again.port());
  negotiate_unordered(reader);
  const std::map<std::string, std::string> warm = reader.client().stats();
  EXPECT_EQ(stat_number(warm, "curr_items"), static_cast<uint64_t>(kKeys));
  EXPECT_GT(stat_number(warm, "ep_num_non_resident"), 0u) << "warmup left nothing on disk only";
  run_all_expecting(
      reader.client(), [](int i) { return simple(Opcode::Get, key_of(i)); }, "GET", true);
  // Warmup could not have loaded them all: some came from disk.
  EXPECT_GT(stat_number(reader.client().stats(), "ep_bg_fetched"), 0u);
}

}  // namespace
}  // namespace tern::e2e
