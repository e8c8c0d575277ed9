// A dataset four times the memory quota, on a real ternd: a couchbase bucket of 64 MiB takes
// 256 MiB of distinct 8 KiB values (writes past the quota answer Etmpfail or Enomem until the
// flusher has written what the pager may then evict, and are retried), and every value then
// reads back whole, most of them fetched from disk in the background. STAT then shows the
// fetches (ep_bg_fetched) and memory within the quota.
//
// Writes and reads are pipelined in windows; the reads run on an UnorderedExecution
// connection (so fetches are batched), and a stretch of them again on an ordered one, whose
// answers must come back in request order even though most wait for the disk.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "couchbase_session.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

constexpr uint64_t kQuotaBytes = 64ull << 20;
constexpr int kKeys = 32768;
constexpr size_t kValueSize = 8192;  // 256 MiB in all
constexpr int kWindow = 64;           // requests in flight on a connection
constexpr int kOrderedReads = 512;
// Bounds on a busy machine: they only stop a broken server from holding the suite up.
constexpr auto kPhaseTimeout = std::chrono::seconds(180);
constexpr auto kSettleTimeout = std::chrono::seconds(30);

std::string key_of(int i) { return "ltm-" + std::to_string(i); }

// Key i's value: 8 KiB that no other key has (splitmix64 seeded with i, so incompressible
// and cheap to make again when checking).
std::string value_of(int i) {
  std::string value(kValueSize, '\0');
  uint64_t state = 0x9e3779b97f4a7c15ull * (static_cast<uint64_t>(i) + 1);
  for (size_t at = 0; at < kValueSize; at += 8) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    for (size_t b = 0; b < 8; ++b) value[at + b] = static_cast<char>(z >> (8 * b));
  }
  return value;
}

bool is_retry(Status status) { return status == Status::Etmpfail || status == Status::Enomem; }

// Sends `requests` (opaque = their index in `keys`), receives as many answers and returns
// them by opaque, whatever order they came in. `in_order` is set false if they did not come
// in request order.
std::map<uint32_t, Response> exchange(Client& client, const std::vector<Request>& requests,
                                      bool& in_order) {
  std::vector<uint8_t> wire;
  for (const Request& r : requests) {
    const std::vector<uint8_t> one = r.encode();
    wire.insert(wire.end(), one.begin(), one.end());
  }
  std::map<uint32_t, Response> answers;
  if (!client.send_bytes(wire)) {
    ADD_FAILURE() << "the server closed the connection";
    return answers;
  }
  for (size_t n = 0; n < requests.size(); ++n) {
    std::optional<Response> answer = client.receive();
    if (!answer) {
      ADD_FAILURE() << "no answer (timed out or closed)";
      break;
    }
    if (answer->opaque != requests[n].opaque) in_order = false;
    answers.emplace(answer->opaque, std::move(*answer));
  }
  return answers;
}

// Runs `make(i)` for every key in windows, again (after a short backoff) for those answered
// Etmpfail or Enomem, until all have another answer or the phase times out; calls
// `check(i, answer)` on each final answer. Returns how many answers asked for a retry.
template <typename Make, typename Check>
int run_all(Client& client, const std::vector<int>& keys, Make make, Check check) {
  const auto deadline = std::chrono::steady_clock::now() + kPhaseTimeout;
  std::vector<int> todo = keys;
  int retried = 0;
  auto backoff = std::chrono::milliseconds(1);
  while (!todo.empty()) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << todo.size() << " keys still refused when the phase timed out";
      return retried;
    }
    std::vector<int> again;
    for (size_t start = 0; start < todo.size(); start += kWindow) {
      std::vector<Request> window;
      for (size_t n = start; n < std::min(todo.size(), start + kWindow); ++n) {
        Request r = make(todo[n]);
        r.opaque = static_cast<uint32_t>(todo[n]);
        window.push_back(std::move(r));
      }
      bool ignored = true;
      for (auto& [opaque, answer] : exchange(client, window, ignored)) {
        const int i = static_cast<int>(opaque);
        if (is_retry(answer.status)) {
          again.push_back(i);
        } else {
          check(i, answer);
        }
      }
      if (::testing::Test::HasFatalFailure()) return retried;
    }
    retried += static_cast<int>(again.size());
    if (!again.empty()) {
      // The flusher and the pager need a moment to make room; back off up to 50 ms.
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(50));
    } else {
      backoff = std::chrono::milliseconds(1);
    }
    todo = std::move(again);
  }
  return retried;
}

uint64_t stat_number(std::map<std::string, std::string>& stats, const std::string& name) {
  EXPECT_EQ(stats.count(name), 1u) << name;
  return stats.count(name) != 0 ? std::stoull(stats[name]) : 0;
}

TEST(LargerThanMemoryTest, ADatasetFourTimesTheQuotaReadsBackWhole) {
  const ConfigFile config(
      "[server]\nanonymous_bucket = \"b\"\n"
      "[[bucket]]\nname = \"b\"\ntype = \"couchbase\"\nmemory_quota_mb = 64\n");
  TerndProcess server(config.args());
  ASSERT_NE(server.port(), 0);
  const auto started = std::chrono::steady_clock::now();

  std::vector<int> all(kKeys);
  for (int i = 0; i < kKeys; ++i) all[i] = i;

  Client writer(server.port());
  int failed_writes = 0;
  const int write_retries = run_all(
      writer, all, [](int i) { return store(Opcode::Set, key_of(i), value_of(i)); },
      [&failed_writes](int i, const Response& answer) {
        if (answer.status != Status::Success && failed_writes++ < 5) {
          ADD_FAILURE() << "SET " << key_of(i) << ": status " << static_cast<int>(answer.status);
        }
      });
  ASSERT_EQ(failed_writes, 0);
  const auto written = std::chrono::steady_clock::now();

  CouchbaseSession unordered(server.port());
  unordered.hello({kXerror, kUnorderedExecution});
  int wrong_reads = 0;
  auto check_read = [&wrong_reads](int i, const Response& answer) {
    if ((answer.status != Status::Success || answer.value != value_of(i)) && wrong_reads++ < 5) {
      ADD_FAILURE() << "GET " << key_of(i) << ": status " << static_cast<int>(answer.status)
                    << ", " << answer.value.size() << " bytes"
                    << (answer.status == Status::Success ? " that differ" : "");
    }
  };
  const int read_retries = run_all(
      unordered.client(), all, [](int i) { return simple(Opcode::Get, key_of(i)); }, check_read);
  EXPECT_EQ(wrong_reads, 0);
  const auto read = std::chrono::steady_clock::now();

  // An ordered connection: a window whose first reads wait for the disk still answers in
  // request order. The last keys written are the likeliest still in memory; take the first.
  Client ordered(server.port());
  for (int start = 0; start < kOrderedReads; start += kWindow) {
    std::vector<Request> window;
    for (int i = start; i < start + kWindow; ++i) {
      Request r = simple(Opcode::Get, key_of(i));
      r.opaque = static_cast<uint32_t>(i);
      window.push_back(std::move(r));
    }
    bool in_order = true;
    for (auto& [opaque, answer] : exchange(ordered, window, in_order)) {
      if (!is_retry(answer.status)) check_read(static_cast<int>(opaque), answer);
    }
    EXPECT_TRUE(in_order) << "window at " << start;
  }
  EXPECT_EQ(wrong_reads, 0);

  std::map<std::string, std::string> stats = unordered.client().stats();
  EXPECT_GT(stat_number(stats, "ep_bg_fetched"), 0u);
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
  std::cout << "larger than memory: " << kKeys << " x " << kValueSize << " bytes written in "
            << duration_cast<milliseconds>(written - started).count() << " ms ("
            << write_retries << " retried), read in "
            << duration_cast<milliseconds>(read - written).count() << " ms (" << read_retries
            << " retried); ep_bg_fetched " << stats["ep_bg_fetched"] << ", mem_used "
            << stats["mem_used"] << '\n';
}

}  // namespace
}  // namespace tern::e2e
