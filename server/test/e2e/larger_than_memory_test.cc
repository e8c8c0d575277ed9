// A dataset four times the memory quota, on a real ternd, under each eviction policy: a
// couchbase bucket of 32 MiB takes 128 MiB of distinct 8 KiB values (writes past the quota
// answer Etmpfail or Enomem until the flusher has written what the pager may then evict, and
// are retried), and every value then reads back whole, most of them fetched from disk in the
// background (a read answered Etmpfail, its fetched value evicted again before it could run,
// is retried too: every key must finally read back). STAT then shows the fetches
// (ep_bg_fetched), documents on disk only (ep_num_non_resident), every key counted
// (curr_items) and memory within the quota; keys never written answer KeyEnoent (under full
// eviction with hardly a disk read: the bloom filter of the keys on disk rules them out).
//
// Writes and reads are pipelined in windows on UnorderedExecution connections (so fetches are
// batched), and a stretch of the reads again on an ordered one, whose answers must come back
// in request order even though most wait for the disk.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bulk_requests.h"
#include "couchbase_session.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

constexpr uint64_t kQuotaBytes = 32ull << 20;
constexpr int kKeys = 16384;
constexpr size_t kValueSize = 8192;  // 128 MiB in all
constexpr int kOrderedReads = 512;
constexpr int kNeverWritten = 1024;
// Bounds on a busy machine: they only stop a broken server from holding the suite up.
constexpr auto kPhaseTimeout = std::chrono::seconds(180);
constexpr auto kSettleTimeout = std::chrono::seconds(30);

std::string key_of(int i) { return "ltm-" + std::to_string(i); }
std::string value_of(int i) { return distinct_value(i, kValueSize); }

// The bucket's eviction policy, as the config file names it.
class LargerThanMemoryTest : public ::testing::TestWithParam<const char*> {};

TEST_P(LargerThanMemoryTest, ADatasetFourTimesTheQuotaReadsBackWhole) {
  const ConfigFile config(std::string("[server]\nanonymous_bucket = \"b\"\n"
                                      "[[bucket]]\nname = \"b\"\ntype = \"couchbase\"\n"
                                      "eviction_policy = \"") +
                          GetParam() + "\"\nmemory_quota_mb = 32\n");
  TerndProcess server(config.args());
  ASSERT_NE(server.port(), 0);
  ASSERT_TRUE(server.wait_for_log(std::string(GetParam()) + " eviction")) << server.log();
  const auto started = std::chrono::steady_clock::now();

  const std::vector<int> all = first_n(kKeys);

  // Unordered too: under full eviction a write of a new key waits for a disk read (only the
  // disk can tell the key is new), and a window's reads then go to the disk together.
  CouchbaseSession writer(server.port());
  writer.hello({kXerror, kUnorderedExecution});
  int failed_writes = 0;
  const int write_retries = run_all(
      writer.client(), all, [](int i) { return store(Opcode::Set, key_of(i), value_of(i)); },
      [&failed_writes](int i, const Response& answer) {
        if (answer.status != Status::Success && failed_writes++ < 5) {
          ADD_FAILURE() << "SET " << key_of(i) << ": status " << static_cast<int>(answer.status);
        }
      },
      kPhaseTimeout);
  ASSERT_EQ(failed_writes, 0);
  const auto written = std::chrono::steady_clock::now();

  CouchbaseSession unordered(server.port());
  unordered.hello({kXerror, kUnorderedExecution});
  int wrong_reads = 0;
  int read_back = 0;  // reads answered with the key's value; reset by each phase
  auto check_read = [&wrong_reads, &read_back](int i, const Response& answer) {
    if (answer.status == Status::Success && answer.value == value_of(i)) {
      ++read_back;
    } else if (wrong_reads++ < 5) {
      ADD_FAILURE() << "GET " << key_of(i) << ": status " << static_cast<int>(answer.status)
                    << ", " << answer.value.size() << " bytes"
                    << (answer.status == Status::Success ? " that differ" : "");
    }
  };
  auto get = [](int i) { return simple(Opcode::Get, key_of(i)); };
  const int read_retries = run_all(unordered.client(), all, get, check_read, kPhaseTimeout);
  EXPECT_EQ(wrong_reads, 0);
  EXPECT_EQ(read_back, kKeys) << "keys not read back whole";
  const auto read = std::chrono::steady_clock::now();

  // An ordered connection: a window whose first reads wait for the disk still answers in
  // request order. The last keys written are the likeliest still in memory; take the first.
  // A read the server asks to retry (Etmpfail: its fetched value was evicted again before it
  // ran again) is sent again after the windows, until it is answered: a key that never reads
  // back fails the phase's timeout, rather than pass unread.
  Client ordered(server.port());
  read_back = 0;
  std::vector<int> refused_reads;
  for (int start = 0; start < kOrderedReads; start += kWindow) {
    std::vector<Request> window;
    for (int i = start; i < start + kWindow; ++i) {
      Request r = get(i);
      r.opaque = static_cast<uint32_t>(i);
      window.push_back(std::move(r));
    }
    bool in_order = true;
    for (auto& [opaque, answer] : exchange(ordered, window, in_order)) {
      if (is_retry(answer.status)) {
        refused_reads.push_back(static_cast<int>(opaque));
      } else {
        check_read(static_cast<int>(opaque), answer);
      }
    }
    EXPECT_TRUE(in_order) << "window at " << start;
  }
  const int ordered_retries = static_cast<int>(refused_reads.size()) +
                              run_all(ordered, refused_reads, get, check_read, kPhaseTimeout);
  EXPECT_EQ(wrong_reads, 0);
  EXPECT_EQ(read_back, kOrderedReads) << "keys not read back whole on the ordered connection";

  // Keys never written: misses, which under full eviction the bloom filter of the keys on
  // disk tells without reading the disk, but for its false positives (1% by default).
  const uint64_t fetched_before = stat_number(unordered.client().stats(), "ep_bg_fetched");
  int wrong_misses = 0;
  run_all(
      unordered.client(), first_n(kNeverWritten),
      [](int i) { return simple(Opcode::Get, "never-" + std::to_string(i)); },
      [&wrong_misses](int i, const Response& answer) {
        if (answer.status != Status::KeyEnoent && wrong_misses++ < 5) {
          ADD_FAILURE() << "GET never-" << i << ": status " << static_cast<int>(answer.status);
        }
      },
      kPhaseTimeout);
  EXPECT_EQ(wrong_misses, 0);

  std::map<std::string, std::string> stats = unordered.client().stats();
  EXPECT_GT(stat_number(stats, "ep_bg_fetched"), 0u);
  if (std::string(GetParam()) == "full") {
    EXPECT_LE(stat_number(stats, "ep_bg_fetched") - fetched_before,
              static_cast<uint64_t>(kNeverWritten) / 25);  // 4%: far above 1%, never flaky
    EXPECT_GT(stat_number(stats, "ep_bloom_filter_key_count"), 0u);
  }
  // Most documents are on disk only (their values, or under full eviction their keys too),
  // and every one still counts.
  EXPECT_GT(stat_number(stats, "ep_num_non_resident"), 0u);
  EXPECT_EQ(stat_number(stats, "curr_items"), static_cast<uint64_t>(kKeys));
  EXPECT_EQ(stat_number(stats, "mem_quota"), kQuotaBytes);
  // A fetched value is charged even past the quota until the pager evicts again: allow it a
  // moment.
  const auto settle_deadline = std::chrono::steady_clock::now() + kSettleTimeout;
  while (stat_number(stats, "mem_used") > kQuotaBytes &&
         std::chrono::steady_clock::now() < settle_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stats = unordered.client().stats();
  }
  EXPECT_LE(stat_number(stats, "mem_used"), kQuotaBytes);

  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  std::cout << "larger than memory, " << GetParam() << " eviction: " << kKeys << " x "
            << kValueSize << " bytes written in "
            << duration_cast<milliseconds>(written - started).count() << " ms ("
            << write_retries << " retried), read in "
            << duration_cast<milliseconds>(read - written).count() << " ms (" << read_retries
            << " retried, " << ordered_retries << " on the ordered connection); ep_bg_fetched "
            << stats["ep_bg_fetched"] << ", mem_used " << stats["mem_used"]
            << ", ep_num_non_resident " << stats["ep_num_non_resident"] << '\n';
}

INSTANTIATE_TEST_SUITE_P(EvictionPolicies, LargerThanMemoryTest,
                         ::testing::Values("value", "full"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace tern::e2e
