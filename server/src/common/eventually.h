#pragma once
// For tests of work that runs on other threads or in another process: wait until a condition
// holds. The limit is generous on purpose: only a broken component reaches it, so a test
// bounds how long it can hang without racing a busy machine's clock.

#include <chrono>
#include <functional>
#include <thread>

namespace tern::testing {

// Polls `condition` every `poll` until it holds (returns true) or `limit` has passed (false).
inline bool eventually(std::chrono::milliseconds limit, const std::function<bool()>& condition,
                       std::chrono::milliseconds poll = std::chrono::milliseconds(1)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(poll);
  }
  return true;
}

}  // namespace tern::testing
