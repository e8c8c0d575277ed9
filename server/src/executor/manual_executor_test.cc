// The scheduling rules, exercised without threads or real time through ManualExecutor.

#include "executor/manual_executor.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <stdexcept>

#include "executor/test_task.h"

namespace tern::executor {
namespace {

using testing::LambdaTask;
using testing::LogCapture;

class ManualExecutorTest : public ::testing::Test {
 protected:
  // Checks that exactly one task runs `ms` from now, and none a millisecond earlier.
  void expect_one_run_in_ms(int64_t ms) {
    clock_.advance_ms(ms - 1);
    EXPECT_EQ(executor_.run_ready(), 0u);
    clock_.advance_ms(1);
    EXPECT_EQ(executor_.run_ready(), 1u);
  }

  ManualClock clock_;
  ManualExecutor executor_{clock_};
};

bool run_once_only(LambdaTask&) { return false; }
bool run_forever_at_once(LambdaTask&) { return true; }
bool sleep_until_woken(LambdaTask& task) {
  task.snooze(kForever);
  return true;
}

TEST_F(ManualExecutorTest, ScheduledTaskRunsAtOnceAndEndsWhenRunSaysSo) {
  auto task = std::make_shared<LambdaTask>(run_once_only);
  const TaskId id = executor_.schedule(task);
  EXPECT_NE(id, 0u);
  EXPECT_EQ(task->id(), id);
  EXPECT_EQ(task->state(), TaskState::Running);

  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(task->runs, 1);
  EXPECT_EQ(task->state(), TaskState::Dead);
  EXPECT_FALSE(executor_.cancel(id));
  EXPECT_EQ(executor_.run_ready(), 0u);
}

// /metrics shows what each task type cost: runs, run time, and the wait from a run's
// waketime to its start (a task due while the workers are busy waits).
TEST_F(ManualExecutorTest, TaskTotalsCountRunsRunTimeAndWaitByType) {
  auto task = std::make_shared<LambdaTask>(
      [this](LambdaTask&) {
        clock_.advance_ms(40);
        return false;
      },
      TaskType::Writer);
  executor_.schedule(task, 1.0);
  clock_.advance_seconds(3);  // due after 1 s, started after 3 s
  EXPECT_EQ(executor_.run_ready(), 1u);
  const auto totals = executor_.task_totals();
  const TaskTypeTotals& writer = totals[static_cast<size_t>(TaskType::Writer)];
  EXPECT_EQ(writer.runs, 1u);
  EXPECT_EQ(writer.runtime_us, 40'000u);
  EXPECT_EQ(writer.wait_us, 2'000'000u);
  EXPECT_EQ(totals[static_cast<size_t>(TaskType::NonIO)].runs, 0u);
}

TEST_F(ManualExecutorTest, TaskReturningTrueWithoutSnoozeRunsAgainNextRound) {
  auto task = std::make_shared<LambdaTask>(run_forever_at_once);
  executor_.schedule(task);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(task->runs, 2);
}

TEST_F(ManualExecutorTest, DelayedTaskRunsWhenItsTimeComes) {
  auto task = std::make_shared<LambdaTask>(run_once_only);
  executor_.schedule(task, 5);
  EXPECT_EQ(task->state(), TaskState::Snoozed);
  EXPECT_EQ(task->waketime_ms(), clock_.steady_ms() + 5000);
  expect_one_run_in_ms(5000);
  EXPECT_EQ(task->runs, 1);
}

TEST_F(ManualExecutorTest, TaskSnoozingItselfRunsAgainAfterTheSnooze) {
  auto task = std::make_shared<LambdaTask>([](LambdaTask& self) {
    self.snooze(2.5);
    return true;
  });
  executor_.schedule(task);
  executor_.run_ready();
  EXPECT_EQ(task->state(), TaskState::Snoozed);
  EXPECT_EQ(task->waketime_ms(), clock_.steady_ms() + 2500);
  expect_one_run_in_ms(2500);
  EXPECT_EQ(task->runs, 2);
}

TEST_F(ManualExecutorTest, SnoozedForeverRunsOnlyWhenWoken) {
  auto task = std::make_shared<LambdaTask>(sleep_until_woken);
  const TaskId id = executor_.schedule(task, kForever);
  EXPECT_EQ(task->waketime_ms(), kNeverMs);
  clock_.advance_seconds(365 * 24 * 3600);
  EXPECT_EQ(executor_.run_ready(), 0u);

  EXPECT_TRUE(executor_.wake_and_wait(id));
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(task->state(), TaskState::Snoozed);
  executor_.wake(id);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(task->runs, 2);
}

TEST_F(ManualExecutorTest, WakeDuringRunMakesItRunAgainDespiteItsOwnSnooze) {
  TaskId id = 0;
  auto task = std::make_shared<LambdaTask>([&](LambdaTask& self) {
    if (self.runs == 1) executor_.wake(id);
    self.snooze(kForever);
    return true;
  });
  id = executor_.schedule(task);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(task->state(), TaskState::Running);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(task->runs, 2);
  // The second run was not woken: it sleeps as it asked.
  EXPECT_EQ(task->state(), TaskState::Snoozed);
  EXPECT_EQ(executor_.run_ready(), 0u);
}

TEST_F(ManualExecutorTest, SnoozeAfterAWakeDuringTheSameRunWins) {
  TaskId id = 0;
  auto task = std::make_shared<LambdaTask>([&](LambdaTask&) {
    executor_.wake(id);
    executor_.snooze(id, 5);
    return true;
  });
  id = executor_.schedule(task);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(task->state(), TaskState::Snoozed);
  expect_one_run_in_ms(5000);
}

TEST_F(ManualExecutorTest, WakeWhileQueuedIsServedByThePendingRun) {
  auto task = std::make_shared<LambdaTask>(sleep_until_woken);
  const TaskId id = executor_.schedule(task, kForever);
  executor_.wake(id);
  executor_.wake(id);
  EXPECT_TRUE(executor_.wake_and_wait(id));
  EXPECT_EQ(executor_.ready_count(), 1u);  // never queued twice
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(executor_.run_ready(), 0u);
  EXPECT_EQ(task->runs, 1);
}

TEST_F(ManualExecutorTest, ExternalSnoozeMovesTheWaketimeBothWays) {
  auto task = std::make_shared<LambdaTask>(sleep_until_woken);
  const TaskId id = executor_.schedule(task, 10);
  EXPECT_TRUE(executor_.snooze_and_wait(id, 3));  // earlier
  expect_one_run_in_ms(3000);

  executor_.snooze(id, 1);
  executor_.snooze(id, 20);  // later: the last request wins
  expect_one_run_in_ms(20'000);
  EXPECT_EQ(task->runs, 2);
}

TEST_F(ManualExecutorTest, SnoozeOfADueTaskPostponesIt) {
  auto task = std::make_shared<LambdaTask>(run_once_only);
  const TaskId id = executor_.schedule(task, 1);
  clock_.advance_seconds(1);
  executor_.snooze(id, 5);
  expect_one_run_in_ms(5000);
}

TEST_F(ManualExecutorTest, CancelledTaskNeverRunsAndLaterRequestsAreHarmless) {
  auto task = std::make_shared<LambdaTask>(run_forever_at_once);
  const TaskId id = executor_.schedule(task, 1);
  EXPECT_TRUE(executor_.cancel(id));
  EXPECT_EQ(task->state(), TaskState::Dead);
  EXPECT_FALSE(executor_.cancel(id));
  EXPECT_FALSE(executor_.wake_and_wait(id));
  EXPECT_FALSE(executor_.snooze_and_wait(id, 0));
  executor_.wake(id);
  executor_.snooze(id, 0);
  clock_.advance_seconds(10);
  EXPECT_EQ(executor_.run_ready(), 0u);
  EXPECT_EQ(task->runs, 0);
  EXPECT_FALSE(executor_.cancel(12345));
}

TEST_F(ManualExecutorTest, TaskCancelledWhileQueuedDoesNotRun) {
  auto task = std::make_shared<LambdaTask>(run_forever_at_once);
  const TaskId id = executor_.schedule(task);
  EXPECT_EQ(executor_.ready_count(), 1u);
  EXPECT_TRUE(executor_.cancel(id));
  executor_.run_ready();
  EXPECT_EQ(task->runs, 0);
  EXPECT_EQ(executor_.run_ready(), 0u);
}

TEST_F(ManualExecutorTest, TaskCancellingItselfEndsAfterItsRun) {
  TaskId id = 0;
  bool cancelled = false;
  auto task = std::make_shared<LambdaTask>([&](LambdaTask&) {
    cancelled = executor_.cancel(id);
    return true;
  });
  id = executor_.schedule(task);
  executor_.run_ready();
  EXPECT_TRUE(cancelled);
  EXPECT_EQ(task->state(), TaskState::Dead);
  EXPECT_EQ(executor_.run_ready(), 0u);
  EXPECT_EQ(task->runs, 1);
}

TEST_F(ManualExecutorTest, UnregisterCancelsOnlyThatOwnersTasks) {
  auto mine1 = std::make_shared<LambdaTask>(run_forever_at_once, TaskType::Reader, 7);
  auto mine2 = std::make_shared<LambdaTask>(run_forever_at_once, TaskType::Writer, 7);
  auto theirs = std::make_shared<LambdaTask>(run_forever_at_once, TaskType::Reader, 8);
  executor_.schedule(mine1);
  executor_.schedule(mine2, 5);
  executor_.schedule(theirs);
  executor_.unregister(7);
  clock_.advance_seconds(5);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(mine1->runs + mine2->runs, 0);
  EXPECT_EQ(theirs->runs, 1);
  EXPECT_EQ(mine1->state(), TaskState::Dead);
  EXPECT_EQ(mine2->state(), TaskState::Dead);
}

TEST_F(ManualExecutorTest, SchedulingATaskTwiceIsRefused) {
  auto task = std::make_shared<LambdaTask>(run_once_only);
  executor_.schedule(task);
  EXPECT_THROW(executor_.schedule(task), std::invalid_argument);
  EXPECT_EQ(executor_.run_ready(), 1u);
}

TEST_F(ManualExecutorTest, TaskThatThrowsIsStopped) {
  auto task = std::make_shared<LambdaTask>([](LambdaTask&) -> bool {
    throw std::runtime_error("disk on fire");
  });
  LogCapture log;
  executor_.schedule(task);
  executor_.run_ready();
  EXPECT_EQ(task->state(), TaskState::Dead);
  EXPECT_NE(log.text().find("disk on fire"), std::string::npos);
}

TEST_F(ManualExecutorTest, SlowRunIsLoggedAndRecorded) {
  auto slow = std::make_shared<LambdaTask>(
      [&](LambdaTask&) {
        clock_.advance_ms(250);
        return true;
      },
      TaskType::AuxIO, kServerOwner, 200, "compactor");
  auto quick = std::make_shared<LambdaTask>(
      [&](LambdaTask&) {
        clock_.advance_ms(150);
        return false;
      },
      TaskType::AuxIO, kServerOwner, 200, "pager");
  LogCapture log;
  executor_.schedule(slow);
  executor_.schedule(quick);
  executor_.run_ready();
  executor_.run_ready();
  EXPECT_NE(log.text().find("compactor"), std::string::npos) << log.text();
  EXPECT_EQ(log.text().find("pager"), std::string::npos) << log.text();
  EXPECT_EQ(slow->max_runtime_us(), 250'000);
  EXPECT_EQ(slow->total_runtime_us(), 500'000);
  EXPECT_EQ(slow->run_count(), 2u);
}

TEST_F(ManualExecutorTest, TasksJsonDescribesEveryLiveTask) {
  auto sleeper = std::make_shared<LambdaTask>(sleep_until_woken, TaskType::Writer, 42, 100,
                                              "flusher \"a\"");
  auto timer = std::make_shared<LambdaTask>(run_forever_at_once, TaskType::NonIO, 43);
  const TaskId sleeper_id = executor_.schedule(sleeper, kForever);
  executor_.schedule(timer, 1.5);
  executor_.wake(sleeper_id);
  executor_.run_ready();

  rapidjson::Document doc;
  doc.Parse(executor_.tasks_json().c_str());
  ASSERT_FALSE(doc.HasParseError());
  const auto& tasks = doc["tasks"];
  ASSERT_EQ(tasks.Size(), 2u);
  EXPECT_EQ(tasks[0]["id"].GetUint64(), sleeper_id);
  EXPECT_STREQ(tasks[0]["description"].GetString(), "flusher \"a\"");
  EXPECT_EQ(tasks[0]["owner"].GetUint64(), 42u);
  EXPECT_STREQ(tasks[0]["type"].GetString(), "writer");
  EXPECT_STREQ(tasks[0]["state"].GetString(), "snoozed");
  EXPECT_EQ(tasks[0]["waketime_ms"].GetInt64(), -1);
  EXPECT_EQ(tasks[0]["runs"].GetUint64(), 1u);
  EXPECT_TRUE(tasks[0].HasMember("max_runtime_us"));
  EXPECT_TRUE(tasks[0].HasMember("total_runtime_us"));
  EXPECT_STREQ(tasks[1]["type"].GetString(), "nonio");
  EXPECT_EQ(tasks[1]["waketime_ms"].GetInt64(), clock_.steady_ms() + 1500);
  EXPECT_EQ(tasks[1]["runs"].GetUint64(), 0u);
}

TEST_F(ManualExecutorTest, WorkersJsonNamesEveryType) {
  rapidjson::Document doc;
  doc.Parse(executor_.workers_json().c_str());
  ASSERT_FALSE(doc.HasParseError());
  for (const char* type : {"reader", "writer", "auxio", "nonio"}) {
    ASSERT_TRUE(doc.HasMember(type)) << type;
    EXPECT_EQ(doc[type]["threads"].GetUint64(), 1u);
  }
}

}  // namespace
}  // namespace tern::executor
