// The server's background work on the executor, end to end: the expiry pager and the item
// pager inside a real ternd, observed only through the protocol.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/eventually.h"
#include "test_client.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

using namespace std::chrono_literals;

uint64_t stat_number(const std::map<std::string, std::string>& stats, const std::string& key) {
  auto it = stats.find(key);
  EXPECT_NE(it, stats.end()) << "STAT has no " << key;
  return it == stats.end() ? 0 : std::stoull(it->second);
}

// How often the task with this description has run, from STAT tasks (0 if it is not listed).
uint64_t task_runs(Client& client, const std::string& description) {
  rapidjson::Document tasks;
  tasks.Parse(client.stats("tasks")["tasks"].c_str());
  EXPECT_TRUE(tasks.IsObject() && tasks.HasMember("tasks")) << "STAT tasks is not JSON";
  if (!tasks.IsObject() || !tasks.HasMember("tasks")) return 0;
  for (const auto& task : tasks["tasks"].GetArray()) {
    if (task["description"].GetString() == description) return task["runs"].GetUint64();
  }
  return 0;
}

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

  std::atomic<size_t> failed{0}, writers_done{0};
  std::vector<std::thread> writers;
  for (size_t w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      failed += write_values(server.port(), "load-" + std::to_string(w), kValuesPerWriter);
      ++writers_done;
    });
  }
  // Sample the memory in use while the writers run.
  uint64_t peak = 0;
  while (writers_done < kWriters) {
    const auto stats = client.stats();
    const uint64_t used = stat_number(stats, "mem_used");
    EXPECT_EQ(stat_number(stats, "mem_quota"), kQuota);
    EXPECT_LE(used, kQuota) << "memory use passed the quota under load";
    peak = std::max(peak, used);
    std::this_thread::sleep_for(20ms);
  }
  for (std::thread& writer : writers) writer.join();
  EXPECT_EQ(failed, 0u) << "writes must keep succeeding by evicting older items";

  const auto stats = client.stats();
  EXPECT_LE(stat_number(stats, "mem_used"), kQuota);
  peak = std::max(peak, stat_number(stats, "mem_used"));
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
