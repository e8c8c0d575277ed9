#include "bulk_requests.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <thread>

namespace tern::e2e {

std::string distinct_value(int i, size_t size) {
  std::string value(size, '\0');
  uint64_t state = 0x9e3779b97f4a7c15ull * (static_cast<uint64_t>(i) + 1);
  for (size_t at = 0; at < size; at += 8) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    for (size_t b = 0; b < 8 && at + b < size; ++b) value[at + b] = static_cast<char>(z >> (8 * b));
  }
  return value;
}

bool is_retry(Status status) { return status == Status::Etmpfail || status == Status::Enomem; }

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

int run_all(Client& client, const std::vector<int>& keys,
            const std::function<Request(int)>& make,
            const std::function<void(int, const Response&)>& check,
            std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
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
      // Not a synchronisation: the flusher and the pager need a moment to make room, and a
      // retry at once would only be refused again. Back off up to 50 ms.
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(50));
    } else {
      backoff = std::chrono::milliseconds(1);
    }
    todo = std::move(again);
  }
  return retried;
}

std::vector<int> first_n(int count) {
  std::vector<int> all(static_cast<size_t>(count));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

uint64_t stat_number(const std::map<std::string, std::string>& stats, const std::string& name) {
  const auto found = stats.find(name);
  EXPECT_NE(found, stats.end()) << name;
  return found != stats.end() ? std::stoull(found->second) : 0;
}

}  // namespace tern::e2e
