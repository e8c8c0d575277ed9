#include "executor/executor_pool.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>

#include "executor/stats_json.h"

namespace tern::executor {

namespace {

int64_t steady_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

ExecutorPool::ExecutorPool(PoolConfig config)
    : table_(SystemClock::instance(), [this](const std::shared_ptr<Task>& task) { dispatch(task); }) {
  auto run = [this](const std::shared_ptr<Task>& task) {
    Request finished{.kind = Request::Kind::Finished};
    finished.again = run_once(*task, steady_us, &totals_);
    finished.id = task->id();
    inbox_.post(std::move(finished));
  };
  for (size_t type = 0; type < kTaskTypeCount; ++type) {
    workers_[type] = std::make_unique<WorkerGroup>(static_cast<TaskType>(type),
                                                   std::max<size_t>(config.threads[type], 1), run);
  }
  scheduler_ = std::thread([this] { schedule_loop(); });
  pthread_setname_np(scheduler_.native_handle(), "scheduler");
}

ExecutorPool::~ExecutorPool() {
  inbox_.close();
  scheduler_.join();
  for (auto& group : workers_) group.reset();
}

void ExecutorPool::dispatch(const std::shared_ptr<Task>& task) {
  workers_[static_cast<size_t>(task->type())]->push(task);
}

void ExecutorPool::schedule_loop() {
  std::vector<Request> batch;
  int64_t next_waketime = kNeverMs;
  while (inbox_.take(batch, next_waketime)) {
    for (Request& request : batch) apply(request);
    batch.clear();
    next_waketime = table_.dispatch_due();
  }
}

void ExecutorPool::apply(Request& request) {
  bool result = true;
  switch (request.kind) {
    case Request::Kind::Add:
      table_.add(std::move(request.task), request.seconds);
      break;
    case Request::Kind::Wake:
      result = table_.wake(request.id);
      break;
    case Request::Kind::Snooze:
      result = table_.snooze(request.id, request.seconds);
      break;
    case Request::Kind::Cancel:
      result = table_.cancel(request.id);
      break;
    case Request::Kind::Finished:
      table_.finished(request.id, request.again);
      release_unregister_waiters();
      break;
    case Request::Kind::Unregister:
      table_.cancel_owner(request.owner);
      if (table_.busy_count(request.owner) > 0) {
        unregister_waiters_.emplace_back(request.owner, request.done);
        return;  // completed by release_unregister_waiters()
      }
      break;
    case Request::Kind::TasksJson:
      *request.text = table_.tasks_json();
      break;
    case Request::Kind::Barrier:
      break;
  }
  if (request.done) request.done->complete(result);
}

void ExecutorPool::release_unregister_waiters() {
  std::erase_if(unregister_waiters_, [this](const std::pair<OwnerId, Completion*>& waiter) {
    if (table_.busy_count(waiter.first) > 0) return false;
    waiter.second->complete(true);
    return true;
  });
}

bool ExecutorPool::post_and_wait(Request&& request) {
  Completion done;
  request.done = &done;
  // Closed only while the pool is being destroyed: there is nothing left to wait for.
  if (!inbox_.post(std::move(request))) return false;
  return done.wait();
}

TaskId ExecutorPool::schedule(std::shared_ptr<Task> task, double delay_seconds) {
  const TaskId id = next_id_.fetch_add(1, std::memory_order_relaxed);
  TaskTable::claim(*task, id);
  inbox_.post({.kind = Request::Kind::Add, .seconds = delay_seconds, .task = std::move(task)});
  return id;
}

bool ExecutorPool::cancel(TaskId id) {
  return post_and_wait({.kind = Request::Kind::Cancel, .id = id});
}

void ExecutorPool::wake(TaskId id) {
  inbox_.post({.kind = Request::Kind::Wake, .id = id});
}

void ExecutorPool::snooze(TaskId id, double seconds) {
  inbox_.post({.kind = Request::Kind::Snooze, .id = id, .seconds = seconds});
}

bool ExecutorPool::wake_and_wait(TaskId id) {
  return post_and_wait({.kind = Request::Kind::Wake, .id = id});
}

bool ExecutorPool::snooze_and_wait(TaskId id, double seconds) {
  return post_and_wait({.kind = Request::Kind::Snooze, .id = id, .seconds = seconds});
}

void ExecutorPool::unregister(OwnerId owner) {
  post_and_wait({.kind = Request::Kind::Unregister, .owner = owner});
}

void ExecutorPool::barrier() {
  post_and_wait({.kind = Request::Kind::Barrier});
}

std::string ExecutorPool::tasks_json() {
  std::string json;
  post_and_wait({.kind = Request::Kind::TasksJson, .text = &json});
  return json;
}

std::array<TaskTypeTotals, kTaskTypeCount> ExecutorPool::task_totals() const {
  return totals_of(totals_);
}

std::string ExecutorPool::workers_json() {
  std::array<WorkerCounts, kTaskTypeCount> counts;
  for (size_t type = 0; type < kTaskTypeCount; ++type) {
    counts[type] = {workers_[type]->thread_count(), workers_[type]->running()};
  }
  return executor::workers_json(counts);
}

}  // namespace tern::executor
