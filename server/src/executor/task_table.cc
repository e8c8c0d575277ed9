#include "executor/task_table.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace tern::executor {

TaskTable::TaskTable(const Clock& clock, Dispatch dispatch)
    : clock_(clock), dispatch_(std::move(dispatch)) {}

TaskTable::~TaskTable() {
  for (auto& [id, record] : records_) {
    record.task->state_.store(TaskState::Dead, std::memory_order_release);
  }
}

void TaskTable::claim(Task& task, TaskId id) {
  TaskId unscheduled = 0;
  if (!task.id_.compare_exchange_strong(unscheduled, id, std::memory_order_relaxed)) {
    throw std::invalid_argument("task '" + task.description() + "' is already scheduled");
  }
}

void TaskTable::add(std::shared_ptr<Task> task, double delay_seconds) {
  task->clock_ = &clock_;
  task->waketime_ms_.store(waketime_after(clock_.steady_ms(), delay_seconds),
                           std::memory_order_release);
  Record& record = records_[task->id()];
  record.task = std::move(task);
  sleep_until_waketime(record);
}

TaskTable::Record* TaskTable::find(TaskId id) {
  auto it = records_.find(id);
  if (it == records_.end() || it->second.cancelled) return nullptr;
  return &it->second;
}

bool TaskTable::wake(TaskId id) {
  Record* record = find(id);
  if (!record) return false;
  record->task->waketime_ms_.store(clock_.steady_ms(), std::memory_order_release);
  if (record->busy) {
    record->task->wake_requested_.store(true, std::memory_order_relaxed);
  } else {
    dispatch(*record);
  }
  return true;
}

bool TaskTable::snooze(TaskId id, double seconds) {
  Record* record = find(id);
  if (!record) return false;
  record->task->waketime_ms_.store(waketime_after(clock_.steady_ms(), seconds),
                                   std::memory_order_release);
  if (record->busy) {
    // It sleeps until the new waketime when its run ends; the latest request wins over a
    // wake that came earlier during the same run.
    record->task->wake_requested_.store(false, std::memory_order_relaxed);
  } else {
    sleep_until_waketime(*record);
  }
  return true;
}

bool TaskTable::cancel(TaskId id) {
  Record* record = find(id);
  if (!record) return false;
  record->cancelled = true;
  record->task->state_.store(TaskState::Dead, std::memory_order_release);
  timers_.remove(*record);
  if (!record->busy) erase(*record);
  return true;
}

void TaskTable::cancel_owner(OwnerId owner) {
  std::vector<TaskId> ids;
  for (const auto& [id, record] : records_) {
    if (record.task->owner() == owner) ids.push_back(id);
  }
  for (TaskId id : ids) cancel(id);
}

size_t TaskTable::busy_count(OwnerId owner) const {
  auto it = busy_by_owner_.find(owner);
  return it == busy_by_owner_.end() ? 0 : it->second;
}

void TaskTable::finished(TaskId id, bool again) {
  auto it = records_.find(id);
  if (it == records_.end() || !it->second.busy) return;
  Record& record = it->second;
  record.busy = false;
  auto owner = busy_by_owner_.find(record.task->owner());
  if (--owner->second == 0) busy_by_owner_.erase(owner);

  if (record.cancelled || !again) {
    record.task->state_.store(TaskState::Dead, std::memory_order_release);
    erase(record);
  } else if (record.task->wake_requested_.exchange(false, std::memory_order_relaxed)) {
    dispatch(record);
  } else {
    sleep_until_waketime(record);
  }
}

int64_t TaskTable::dispatch_due() {
  const int64_t now = clock_.steady_ms();
  while (!timers_.empty() && timers_.top_due() <= now) {
    auto& record = static_cast<Record&>(timers_.top());
    const int64_t waketime = record.task->waketime_ms();
    if (waketime <= now) {
      dispatch(record);
    } else if (waketime == kNeverMs) {
      timers_.remove(record);
    } else {
      timers_.set(record, waketime);  // snoozed again since it was queued
    }
  }
  return timers_.empty() ? kNeverMs : timers_.top_due();
}

void TaskTable::dispatch(Record& record) {
  timers_.remove(record);
  record.busy = true;
  ++busy_by_owner_[record.task->owner()];
  record.task->state_.store(TaskState::Running, std::memory_order_release);
  dispatch_(record.task);
}

void TaskTable::sleep_until_waketime(Record& record) {
  const int64_t waketime = record.task->waketime_ms();
  if (waketime <= clock_.steady_ms()) {
    dispatch(record);
    return;
  }
  record.task->state_.store(TaskState::Snoozed, std::memory_order_release);
  // Pushing a deadline later is the common case (a timeout re-armed), so the earlier one
  // stays queued: when it comes, dispatch_due() re-queues the node at its real waketime.
  // That saves a sift down the heap per snooze.
  if (record.queued() && timers_.due(record) <= waketime) return;
  if (waketime != kNeverMs) timers_.set(record, waketime);
}

void TaskTable::erase(Record& record) {
  timers_.remove(record);
  records_.erase(record.task->id());
}

std::string TaskTable::tasks_json() const {
  std::vector<const Task*> tasks;
  tasks.reserve(records_.size());
  for (const auto& [id, record] : records_) tasks.push_back(record.task.get());
  std::sort(tasks.begin(), tasks.end(),
            [](const Task* a, const Task* b) { return a->id() < b->id(); });

  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> json(buffer);
  json.StartObject();
  json.Key("tasks");
  json.StartArray();
  for (const Task* task : tasks) {
    const std::string_view type = task_type_name(task->type());
    const std::string_view state = task_state_name(task->state());
    const int64_t waketime = task->waketime_ms();
    json.StartObject();
    json.Key("id");
    json.Uint64(task->id());
    json.Key("description");
    json.String(task->description().data(), task->description().size());
    json.Key("owner");
    json.Uint64(task->owner());
    json.Key("type");
    json.String(type.data(), type.size());
    json.Key("state");
    json.String(state.data(), state.size());
    json.Key("waketime_ms");
    json.Int64(waketime == kNeverMs ? -1 : waketime);
    json.Key("runs");
    json.Uint64(task->run_count());
    json.Key("max_runtime_us");
    json.Int64(task->max_runtime_us());
    json.Key("total_runtime_us");
    json.Int64(task->total_runtime_us());
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace tern::executor
