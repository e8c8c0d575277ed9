// The threaded pool: the same rules as ManualExecutor, plus what only threads can break.

#include "executor/executor_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <rapidjson/document.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "executor/test_task.h"

namespace tern::executor {
namespace {

using testing::eventually;
using testing::Flag;
using testing::LambdaTask;
using testing::LogCapture;

bool sleep_until_woken(LambdaTask& task) {
  task.snooze(kForever);
  return true;
}

TEST(ExecutorPoolTest, ScheduledTaskRunsAndEnds) {
  ExecutorPool pool;
  Flag ran;
  auto task = std::make_shared<LambdaTask>([&](LambdaTask&) {
    ran.raise();
    return false;
  });
  const TaskId id = pool.schedule(task);
  ASSERT_TRUE(ran.wait());
  ASSERT_TRUE(eventually([&] { return task->state() == TaskState::Dead; }));
  EXPECT_FALSE(pool.cancel(id));
  EXPECT_EQ(task->runs, 1);
}

TEST(ExecutorPoolTest, DelayedTaskWaitsForItsTime) {
  ExecutorPool pool;
  Flag ran;
  const auto start = std::chrono::steady_clock::now();
  pool.schedule(std::make_shared<LambdaTask>([&](LambdaTask&) {
                  ran.raise();
                  return false;
                }),
                0.05);
  ASSERT_TRUE(ran.wait());
  // Waketimes have millisecond resolution.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(49));
}

TEST(ExecutorPoolTest, SnoozedForeverRunsOnlyWhenWoken) {
  ExecutorPool pool;
  auto task = std::make_shared<LambdaTask>(sleep_until_woken);
  const TaskId id = pool.schedule(task, kForever);
  pool.barrier();
  EXPECT_EQ(task->state(), TaskState::Snoozed);
  EXPECT_EQ(task->runs, 0);

  EXPECT_TRUE(pool.wake_and_wait(id));
  ASSERT_TRUE(eventually([&] { return task->run_count() == 1; }));
  pool.wake(id);
  ASSERT_TRUE(eventually([&] { return task->run_count() == 2; }));
  ASSERT_TRUE(eventually([&] { return task->state() == TaskState::Snoozed; }));
  EXPECT_EQ(task->waketime_ms(), kNeverMs);
}

TEST(ExecutorPoolTest, WakeWhileRunningRunsItAgainAtOnce) {
  ExecutorPool pool;
  Flag first_run_started, release_first_run, second_run;
  auto task = std::make_shared<LambdaTask>([&](LambdaTask& self) {
    if (self.runs == 1) {
      first_run_started.raise();
      EXPECT_TRUE(release_first_run.wait());
    } else {
      second_run.raise();
    }
    self.snooze(kForever);
    return true;
  });
  const TaskId id = pool.schedule(task);
  ASSERT_TRUE(first_run_started.wait());
  pool.wake(id);
  pool.barrier();  // the wake has reached the scheduler while the task runs
  release_first_run.raise();
  ASSERT_TRUE(second_run.wait());
  ASSERT_TRUE(eventually([&] { return task->state() == TaskState::Snoozed; }));
  pool.barrier();
  EXPECT_EQ(task->runs, 2);
}

TEST(ExecutorPoolTest, ConcurrentWakesNeverRunATaskTwiceAtOnce) {
  ExecutorPool pool(PoolConfig{.threads = {1, 1, 1, 4}});
  std::atomic<int> inside{0}, overlaps{0};
  // Each waker counts its wake before sending it; a run notes the count it starts with.
  std::atomic<int> wakes_sent{0}, wakes_seen_by_last_run{0};
  auto task = std::make_shared<LambdaTask>([&](LambdaTask& self) {
    if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
    wakes_seen_by_last_run = wakes_sent.load();
    std::this_thread::yield();
    inside.fetch_sub(1);
    self.snooze(kForever);
    return true;
  });
  const TaskId id = pool.schedule(task, kForever);
  std::vector<std::thread> wakers;
  for (int t = 0; t < 4; ++t) {
    wakers.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        wakes_sent.fetch_add(1);
        pool.wake(id);
      }
    });
  }
  for (std::thread& waker : wakers) waker.join();
  pool.barrier();
  // The last wake is never lost: some run starts after every wake was sent.
  ASSERT_TRUE(eventually([&] {
    return task->state() == TaskState::Snoozed && wakes_seen_by_last_run.load() == 8000;
  })) << "the last run saw " << wakes_seen_by_last_run.load() << " of 8000 wakes";
  EXPECT_EQ(overlaps, 0);
}

TEST(ExecutorPoolTest, CancelStopsTheTaskAndLaterRequestsAreHarmless) {
  ExecutorPool pool;
  auto task = std::make_shared<LambdaTask>(sleep_until_woken);
  const TaskId id = pool.schedule(task, kForever);
  EXPECT_TRUE(pool.cancel(id));
  EXPECT_EQ(task->state(), TaskState::Dead);
  EXPECT_FALSE(pool.cancel(id));
  pool.wake(id);
  pool.snooze(id, 0);
  EXPECT_FALSE(pool.wake_and_wait(id));
  EXPECT_FALSE(pool.snooze_and_wait(id, 0));
  pool.barrier();
  EXPECT_EQ(task->runs, 0);
  EXPECT_EQ(pool.tasks_json(), R"({"tasks":[]})");
}

TEST(ExecutorPoolTest, UnregisterWaitsForTheRunningTaskAndStopsTheOwner) {
  constexpr OwnerId kBucket = 0xb0c4e7;
  ExecutorPool pool;
  Flag started, release;
  std::atomic<bool> run_finished{false};
  auto running = std::make_shared<LambdaTask>(
      [&](LambdaTask&) {
        started.raise();
        EXPECT_TRUE(release.wait());
        run_finished = true;
        return true;  // would run again, but its owner is gone
      },
      TaskType::Writer, kBucket);
  auto sleeping = std::make_shared<LambdaTask>(sleep_until_woken, TaskType::Reader, kBucket);
  auto other = std::make_shared<LambdaTask>(sleep_until_woken, TaskType::Reader, kBucket + 1);
  pool.schedule(running);
  const TaskId sleeping_id = pool.schedule(sleeping, kForever);
  const TaskId other_id = pool.schedule(other, kForever);
  ASSERT_TRUE(started.wait());

  auto unregistered = std::async(std::launch::async, [&] {
    pool.unregister(kBucket);
    return run_finished.load();
  });
  // Once the unregister is applied the task is dead, yet still inside its run.
  ASSERT_TRUE(eventually([&] { return running->state() == TaskState::Dead; }));
  EXPECT_EQ(unregistered.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  release.raise();
  EXPECT_TRUE(unregistered.get());

  EXPECT_FALSE(pool.wake_and_wait(sleeping_id));
  EXPECT_TRUE(pool.wake_and_wait(other_id));
  ASSERT_TRUE(eventually([&] { return other->run_count() == 1; }));
  pool.barrier();
  EXPECT_EQ(running->runs, 1);
  EXPECT_EQ(sleeping->runs, 0);
}

TEST(ExecutorPoolTest, SlowRunIsLogged) {
  LogCapture log;
  ExecutorPool pool;
  Flag ran;
  auto task = std::make_shared<LambdaTask>(
      [&](LambdaTask&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // longer than expected
        ran.raise();
        return true;
      },
      TaskType::AuxIO, 5, 1, "slow compactor");
  pool.schedule(task);
  ASSERT_TRUE(ran.wait());
  pool.unregister(5);  // returns after the run, and so its log line, is complete
  EXPECT_NE(log.text().find("slow task"), std::string::npos) << log.text();
  EXPECT_NE(log.text().find("slow compactor"), std::string::npos) << log.text();
  EXPECT_GE(task->max_runtime_us(), 20'000);
}

std::string current_thread_name() {
  char name[16] = {};
  pthread_getname_np(pthread_self(), name, sizeof name);
  return name;
}

TEST(ExecutorPoolTest, EachTypeRunsOnItsOwnThreads) {
  ExecutorPool pool(PoolConfig{.threads = {2, 1, 1, 3}});
  rapidjson::Document doc;
  doc.Parse(pool.workers_json().c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_EQ(doc["reader"]["threads"].GetUint64(), 2u);
  EXPECT_EQ(doc["writer"]["threads"].GetUint64(), 1u);
  EXPECT_EQ(doc["auxio"]["threads"].GetUint64(), 1u);
  EXPECT_EQ(doc["nonio"]["threads"].GetUint64(), 3u);

  // Two reader tasks can only both finish if they run at the same time.
  std::atomic<int> arrived{0};
  std::atomic<int> met{0};
  std::vector<std::shared_ptr<LambdaTask>> readers;
  for (int i = 0; i < 2; ++i) {
    readers.push_back(std::make_shared<LambdaTask>(
        [&](LambdaTask&) {
          EXPECT_EQ(current_thread_name().rfind("reader_", 0), 0u) << current_thread_name();
          arrived.fetch_add(1);
          if (eventually([&] { return arrived.load() == 2; })) met.fetch_add(1);
          return false;
        },
        TaskType::Reader));
    pool.schedule(readers.back());
  }
  std::string writer_thread;
  Flag wrote;
  pool.schedule(std::make_shared<LambdaTask>(
      [&](LambdaTask&) {
        writer_thread = current_thread_name();
        wrote.raise();
        return false;
      },
      TaskType::Writer));
  ASSERT_TRUE(wrote.wait());
  EXPECT_EQ(writer_thread, "writer_0");
  ASSERT_TRUE(eventually([&] { return met.load() == 2; }));
}

TEST(ExecutorPoolTest, TasksJsonReportsLiveTasks) {
  ExecutorPool pool;
  auto task = std::make_shared<LambdaTask>(sleep_until_woken, TaskType::Writer, 9, 100, "flusher");
  const TaskId id = pool.schedule(task, kForever);
  rapidjson::Document doc;
  doc.Parse(pool.tasks_json().c_str());
  ASSERT_FALSE(doc.HasParseError());
  ASSERT_EQ(doc["tasks"].Size(), 1u);
  const auto& entry = doc["tasks"][0];
  EXPECT_EQ(entry["id"].GetUint64(), id);
  EXPECT_STREQ(entry["description"].GetString(), "flusher");
  EXPECT_EQ(entry["owner"].GetUint64(), 9u);
  EXPECT_STREQ(entry["type"].GetString(), "writer");
  EXPECT_STREQ(entry["state"].GetString(), "snoozed");
}

TEST(ExecutorPoolTest, DestroyingThePoolWithLiveTasksDoesNotHang) {
  Flag started;
  auto busy = std::make_shared<LambdaTask>([&](LambdaTask&) {
    started.raise();
    std::this_thread::yield();
    return true;
  });
  auto sleeping = std::make_shared<LambdaTask>(sleep_until_woken);
  {
    ExecutorPool pool;
    pool.schedule(busy);
    pool.schedule(sleeping, kForever);
    ASSERT_TRUE(started.wait());
  }
  EXPECT_EQ(sleeping->state(), TaskState::Dead);
  EXPECT_EQ(sleeping->runs, 0);
}

}  // namespace
}  // namespace tern::executor
