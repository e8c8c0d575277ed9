#include "net/worker_pool.h"

#include <algorithm>
#include <optional>

namespace tern::net {

struct WorkerPool::Worker {
  // Hint 1: each loop is run by exactly one thread.
  std::optional<asio::io_context> loop{std::in_place, 1};
  asio::executor_work_guard<asio::io_context::executor_type> keep_running =
      asio::make_work_guard(*loop);
  std::shared_ptr<LoopGate> gate = std::make_shared<LoopGate>(*loop);
  std::thread thread;
};

WorkerPool::WorkerPool(unsigned threads) {
  for (unsigned i = 0; i < std::max(threads, 1u); ++i) {
    auto worker = std::make_unique<Worker>();
    worker->thread = std::thread([loop = &*worker->loop] { loop->run(); });
    workers_.push_back(std::move(worker));
  }
}

WorkerPool::~WorkerPool() { stop(); }

asio::io_context& WorkerPool::next() {
  Worker& worker = *workers_[next_];
  next_ = (next_ + 1) % workers_.size();
  return *worker.loop;
}

std::shared_ptr<LoopGate> WorkerPool::gate_of(const asio::io_context& loop) const {
  for (const auto& worker : workers_) {
    if (worker->loop && &*worker->loop == &loop) return worker->gate;
  }
  return nullptr;
}

void WorkerPool::stop() {
  for (auto& worker : workers_) {
    worker->gate->close();
    worker->keep_running.reset();
    if (worker->loop) worker->loop->stop();
  }
  for (auto& worker : workers_) {
    if (worker->thread.joinable()) worker->thread.join();
    worker->loop.reset();
  }
}

}  // namespace tern::net
