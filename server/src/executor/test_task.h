#pragma once
// Test helpers for the executor's suites: a task whose run() is a lambda, and a flag that
// one thread raises and another awaits.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "common/eventually.h"
#include "executor/task.h"

namespace tern::executor::testing {

class LambdaTask final : public Task {
 public:
  using Body = std::function<bool(LambdaTask&)>;

  LambdaTask(Body body, TaskType type = TaskType::NonIO, OwnerId owner = kServerOwner,
             int64_t max_expected_ms = 100, std::string description = "lambda")
      : Task(type, std::move(description), owner, max_expected_ms), body_(std::move(body)) {}

  bool run() override {
    runs.fetch_add(1);
    return body_(*this);
  }

  using Task::snooze;  // so that bodies can snooze their task

  std::atomic<int> runs{0};

 private:
  Body body_;
};

// Raised once; waiting gives up after a generous timeout so a broken executor fails the
// test instead of hanging it.
class Flag {
 public:
  void raise() {
    std::lock_guard<std::mutex> lock(mutex_);
    raised_ = true;
    changed_.notify_all();
  }
  bool wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [this] { return raised_; });
  }
  bool raised() {
    std::lock_guard<std::mutex> lock(mutex_);
    return raised_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool raised_ = false;
};

// Polls until the condition holds or 10 s pass; returns whether it held.
inline bool eventually(const std::function<bool()>& condition) {
  return tern::testing::eventually(std::chrono::seconds(10), condition);
}

// Sends the default logger's output to a string while alive.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  // Read only once the logging threads are known to be done with it.
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace tern::executor::testing
