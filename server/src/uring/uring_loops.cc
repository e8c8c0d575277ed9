#include "uring/uring_loops.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <thread>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "net/connection.h"
#include "uring/uring_loop.h"
#include "uring/uring_transport.h"

namespace tern::uring {

namespace {

// A socket handed to a loop: closed if the loop never takes it (the post was dropped).
class OwnedFd {
 public:
  explicit OwnedFd(int fd) : fd_(fd) {}
  OwnedFd(OwnedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  OwnedFd& operator=(OwnedFd&&) = delete;
  ~OwnedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

class Worker final : public net::WorkerLoop {
 public:
  explicit Worker(const RingOptions& options) : loop_(options) {}

  void start() {
    thread_ = std::thread([this] {
      try {
        loop_.run();
      } catch (const std::exception& error) {
        // The kernel refused the ring mid-run (submit or wait failed for good): a loop that
        // cannot turn leaves its connections unanswered, so end the process, saying why.
        spdlog::critical("io_uring worker loop failed: {}", error.what());
        std::abort();
      }
    });
  }

  void stop() {
    loop_.request_stop();
    if (thread_.joinable()) thread_.join();
    loop_.stop();  // a loop whose thread never started
  }

  std::shared_ptr<net::LoopGate> gate() override { return loop_.gate(); }

  void serve(int fd, std::shared_ptr<net::Connection> connection) override {
    // A closed gate drops the work, and with it the socket.
    loop_.gate()->post([this, socket = OwnedFd(fd), connection = std::move(connection)]() mutable {
      connection->start(std::make_unique<UringTransport>(loop_, socket.release()));
    });
  }

 private:
  UringLoop loop_;
  std::thread thread_;
};

class Loops final : public net::WorkerLoops {
 public:
  explicit Loops(unsigned threads, const RingOptions& options) {
    // Every ring first: a refusal throws before any thread runs.
    for (unsigned i = 0; i < std::max(threads, 1u); ++i) {
      workers_.push_back(std::make_unique<Worker>(options));
    }
    for (auto& worker : workers_) worker->start();
  }
  ~Loops() override { stop(); }

  net::WorkerLoop& next() override {
    net::WorkerLoop& worker = *workers_[next_];
    next_ = (next_ + 1) % workers_.size();
    return worker;
  }

  void stop() override {
    for (auto& worker : workers_) worker->stop();
  }

 private:
  std::vector<std::unique_ptr<Worker>> workers_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<net::WorkerLoops> start_uring_loops(unsigned threads) {
  return std::make_unique<Loops>(threads, RingOptions{});
}

}  // namespace tern::uring
