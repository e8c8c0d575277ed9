// The server's background work on the executor, end to end: the expiry pager and the item
// pager inside a real ternd, observed only through the protocol.

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "test_client.h"
#include "ternd_process.h"

extern char** environ;

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
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(100ms)) {
    stats = client.stats();
    if (stat_number(stats, "curr_items") == 100) break;
  }
  EXPECT_EQ(stat_number(stats, "curr_items"), 100u);
  EXPECT_EQ(stat_number(stats, "expired_items"), 100u);
  EXPECT_EQ(stat_number(stats, "get_hits") + stat_number(stats, "get_misses"), 0u);
  EXPECT_GT(task_runs(client, "Expiry pager"), 0u);
  EXPECT_EQ(server.stop(SIGTERM), 0);
}

// Runs memaslap (libmemcached-tools' load generator) against `port` and returns its pid.
pid_t start_memaslap(uint16_t port, const std::string& output_path) {
  std::vector<std::string> args = {"memcaslap", "--servers=127.0.0.1:" + std::to_string(port),
                                   "--binary", "--threads=1", "--concurrency=24",
                                   "--win_size=1k", "--fixed_size=1024", "--time=6s"};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int error = posix_spawnp(&pid, "memcaslap", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(error, 0) << "cannot start memcaslap (libmemcached-tools): " << std::strerror(error);
  return error == 0 ? pid : -1;
}

TEST(BackgroundTasksTest, StaysWithinItsQuotaUnderALoadThreeTimesLarger) {
  constexpr uint64_t kQuota = 8 * 1024 * 1024;
  TerndProcess server({"--memory-mb", "8", "--threads", "2"});
  Client client(server.port());
  // 24 connections x a 1k-key window x 1 KiB values: about 3.5 times the quota.
  const std::string output = ::testing::TempDir() + "memaslap-" + std::to_string(getpid());
  const pid_t load = start_memaslap(server.port(), output);
  ASSERT_GT(load, 0);

  uint64_t peak = 0;
  int status = 0;
  while (waitpid(load, &status, WNOHANG) == 0) {
    const auto stats = client.stats();
    const uint64_t used = stat_number(stats, "mem_used");
    ASSERT_EQ(stat_number(stats, "mem_quota"), kQuota);
    ASSERT_LE(used, kQuota) << "memory use passed the quota under load";
    peak = std::max(peak, used);
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "memcaslap failed; its output is in " << output;

  const auto stats = client.stats();
  EXPECT_LE(stat_number(stats, "mem_used"), kQuota);
  EXPECT_GT(peak, kQuota / 2) << "the load never filled the server";
  EXPECT_GE(stat_number(stats, "total_items") * 1024, 3 * kQuota)
      << "the load wrote less than three times the quota";
  EXPECT_GT(stat_number(stats, "evictions"), 0u);
  EXPECT_GT(task_runs(client, "Item pager"), 0u) << "memory pressure never woke the pager";

  // Still serving, with room for new data.
  ASSERT_EQ(client.call(store(Opcode::Set, "after-load", "still here")).status, Status::Success);
  EXPECT_EQ(client.call(simple(Opcode::Get, "after-load")).value, "still here");
  EXPECT_EQ(server.stop(SIGTERM), 0);
}

}  // namespace
}  // namespace tern::e2e
