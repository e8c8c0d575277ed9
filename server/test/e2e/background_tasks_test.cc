// The server's background work on the executor, end to end: the expiry pager and the item
// pager inside a real ternd, observed only through the protocol.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bulk_requests.h"
#include "common/eventually.h"
#include "task_runs.h"
#include "test_client.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

using namespace std::chrono_literals;

// Waits for what the server's background tasks do on their own schedule.
bool within(std::chrono::seconds limit, const std::function<bool()>& condition) {
  return tern::testing::eventually(limit, condition, 50ms);
}

TEST(BackgroundTasksTest, ExpiredItemsVanishWithoutBeingRead) {
  TerndProcess server({"--expiry-pager-interval", "1"});
  Client client(server.port());
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(client.call(store(Opcode::Set, "short-" + std::to_string(i), "v", 0, 1)).status,
              Status::Success);
    ASSERT_EQ(client.call(store(Opcode::Set, "kept-" + std::to_string(i), "v")).status,
              Status::Success);
  }
  // Nothing reads the keys: only the pager can make them go.
  std::map<std::string, std::string> stats;
  within(30s, [&] {
    stats = client.stats();
    return stat_number(stats, "curr_items") == 100;
  });
  EXPECT_EQ(stat_number(stats, "curr_items"), 100u);
  EXPECT_EQ(stat_number(stats, "expired_items"), 100u);
  EXPECT_EQ(stat_number(stats, "get_hits") + stat_number(stats, "get_misses"), 0u);
  EXPECT_GT(task_runs(client, "Expiry pager"), 0u);
  EXPECT_EQ(server.stop(SIGTERM), 0);
}

// Writes `count` distinct 1 KiB values named prefix-N, pipelined in batches; returns how many
// were not answered Success.
size_t write_values(uint16_t port, const std::string& prefix, size_t count) {
  constexpr size_t kBatch = 64;
  const std::string value(1024, 'q');
  Client client(port);
  size_t failed = 0;
  for (size_t first = 0; first < count; first += kBatch) {
    const size_t batch = std::min(kBatch, count - first);
    std::vector<uint8_t> bytes;
    for (size_t i = first; i < first + batch; ++i) {
      const auto request = store(Opcode::Set, prefix + "-" + std::to_string(i), value).encode();
      bytes.insert(bytes.end(), request.begin(), request.end());
    }
    if (!client.send_bytes(bytes)) return failed + count - first;
    for (size_t i = 0; i < batch; ++i) {
      const auto response = client.receive();
      if (!response || response->status != Status::Success) ++failed;
    }
  }
  return failed;
}

TEST(BackgroundTasksTest, StaysWithinItsQuotaUnderALoadFourTimesLarger) {
  constexpr uint64_t kQuota = 8 * 1024 * 1024;
  constexpr size_t kWriters = 4;
  constexpr size_t kValuesPerWriter = 8192;  // 4 x 8192 x 1 KiB: four times the quota
  TerndProcess server({"--memory-mb", "8", "--threads", "2"});
  Client client(server.port());

  std::atomic<size_t> failed{0};
  std::vector<std::thread> writers;
  for (size_t w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      failed += write_values(server.port(), "load-" + std::to_string(w), kValuesPerWriter);
    });
  }
  for (std::thread& writer : writers) writer.join();
  EXPECT_EQ(failed, 0u) << "writes must keep succeeding by evicting older items";

  // The engine's own peak of mem_used, raised by every charge that stood: exact, where
  // sampling mem_used from here would miss a peak between two samples.
  const auto stats = client.stats();
  EXPECT_EQ(stat_number(stats, "mem_quota"), kQuota);
  EXPECT_LE(stat_number(stats, "mem_used"), kQuota);
  const uint64_t peak = stat_number(stats, "mem_used_highwat");
  EXPECT_LE(peak, kQuota) << "memory use passed the quota under load";
  EXPECT_GE(peak, stat_number(stats, "mem_used"));
  EXPECT_GT(peak, kQuota / 2) << "the load never filled the server";
  EXPECT_EQ(stat_number(stats, "total_items"), kWriters * kValuesPerWriter);
  EXPECT_LT(stat_number(stats, "curr_items") * 1024, kQuota);
  EXPECT_GT(stat_number(stats, "evictions"), 0u);
  // The pager is woken by the pressure, but runs on its own thread in its own time.
  EXPECT_TRUE(within(30s, [&] { return task_runs(client, "Item pager") > 0; }))
      << "memory pressure never woke the pager";

  // Still serving, with room for new data.
  ASSERT_EQ(client.call(store(Opcode::Set, "after-load", "still here")).status, Status::Success);
  EXPECT_EQ(client.call(simple(Opcode::Get, "after-load")).value, "still here");
  EXPECT_EQ(server.stop(SIGTERM), 0);
}

}  // namespace
}  // namespace tern::e2e
