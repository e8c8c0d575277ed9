#include "engine/durability_monitor.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/vbucket_of.h"
#include "engine/engine_fixture.h"
#include "engine/persistence_hooks.h"
#include "executor/manual_executor.h"

namespace tern::engine {

inline void PrintTo(SyncWriteOutcome outcome, std::ostream* out) {
  *out << (outcome == SyncWriteOutcome::Committed ? "Committed" : "Ambiguous");
}

namespace {

using Outcomes = std::vector<SyncWriteOutcome>;
constexpr auto kCommitted = SyncWriteOutcome::Committed;
constexpr auto kAmbiguous = SyncWriteOutcome::Ambiguous;
constexpr executor::OwnerId kOwner = 7;

Config persistent_config() {
  Config config = small_config();
  config.persistent = true;
  return config;
}

// A persistent engine with its vbuckets, the monitor started on a ManualExecutor; the test
// plays the flusher by advancing persisted seqnos and calling on_persisted().
class DurabilityMonitorTest : public ::testing::Test {
 protected:
  explicit DurabilityMonitorTest(SnoozeMode mode = SnoozeMode::Async)
      : engine_(persistent_config(), clock_),
        vbuckets_(cluster::kVBucketCount),
        monitor_(engine_, vbuckets_, clock_, mode) {
    monitor_.start(executor_, kOwner);
  }

  // A plain SET, published at once.
  MutationResult set(uint16_t vbucket, const std::string& key, const std::string& value) {
    return engine_.store(StoreMode::Set, key, value, 0, 0, 0, 0,
                         MutationOptions{.vbucket = &vbuckets_[vbucket]});
  }

  // A durable SET: prepared, then tracked with a deadline timeout_ms from now. The outcomes
  // its waiter is told land in told_[key].
  MutationResult durable_set(uint16_t vbucket, const std::string& key, const std::string& value,
                             int64_t timeout_ms = 10'000) {
    MutationResult result = engine_.store(
        StoreMode::Set, key, value, 0, 0, 0, 0,
        MutationOptions{.vbucket = &vbuckets_[vbucket], .prepare = true});
    EXPECT_EQ(result.status, Status::Success) << key;
    monitor_.add(vbucket, result.seqno, key, result.cas, clock_.steady_ms() + timeout_ms,
                 [this, key](SyncWriteOutcome outcome) { told_[key].push_back(outcome); });
    return result;
  }

  // Plays the flusher: the vbucket is on disk up to `seqno`.
  void persist(uint16_t vbucket, uint64_t seqno) {
    vbuckets_[vbucket].set_persisted_seqno(seqno);
    monitor_.on_persisted();
  }

  std::string value_of(const std::string& key) {
    GetResult result = engine_.get(key);
    return result.status == Status::Success ? std::string(result.item->value())
                                            : "<" + std::string(status_name(result.status)) + ">";
  }

  // The timeout task's waketime as STAT tasks reports it (-1: until woken).
  int64_t timeout_waketime_ms() {
    rapidjson::Document doc;
    doc.Parse(executor_.tasks_json().c_str());
    for (const auto& task : doc["tasks"].GetArray()) {
      if (std::string(task["description"].GetString()) == "durability timeout") {
        return task["waketime_ms"].GetInt64();
      }
    }
    ADD_FAILURE() << "no durability timeout task";
    return 0;
  }

  ManualClock clock_;
  executor::ManualExecutor executor_{clock_};
  Engine engine_;
  std::vector<VBucket> vbuckets_;
  DurabilityMonitor monitor_;
  std::map<std::string, Outcomes> told_;
};

TEST_F(DurabilityMonitorTest, CompletesOnlyOnceItsSeqnoIsPersisted) {
  set(3, "k", "old");                                       // seqno 1
  const MutationResult write = durable_set(3, "k", "new");  // seqno 2
  ASSERT_EQ(write.seqno, 2u);
  EXPECT_EQ(monitor_.pending(), 1u);

  persist(3, 1);
  EXPECT_EQ(told_["k"], Outcomes{});
  EXPECT_EQ(value_of("k"), "old");
  persist(4, 2);  // another vbucket's seqno says nothing about this one
  EXPECT_EQ(told_["k"], Outcomes{});

  persist(3, 2);
  EXPECT_EQ(told_["k"], Outcomes{kCommitted});
  EXPECT_EQ(monitor_.pending(), 0u);
  EXPECT_EQ(monitor_.committed(), 1u);
  EXPECT_EQ(monitor_.ambiguous(), 0u);
}

TEST_F(DurabilityMonitorTest, CommitPublishesTheWriteWithItsPreparedCas) {
  set(0, "k", "old");
  const MutationResult write = durable_set(0, "k", "new");
  persist(0, write.seqno);

  GetResult read = engine_.get("k");
  ASSERT_EQ(read.status, Status::Success);
  EXPECT_EQ(read.item->value(), "new");
  EXPECT_EQ(read.item->cas, write.cas);
  EXPECT_EQ(engine_.persistence().prepared_count(), 0u);
}

TEST_F(DurabilityMonitorTest, WriteAlreadyPersistedCompletesWithinAdd) {
  MutationResult write = engine_.store(StoreMode::Set, "k", "v", 0, 0, 0, 0,
                                       MutationOptions{.vbucket = &vbuckets_[9], .prepare = true});
  vbuckets_[9].set_persisted_seqno(write.seqno);  // the flusher was quicker than the command
  Outcomes told;
  monitor_.add(9, write.seqno, "k", write.cas, clock_.steady_ms() + 1000,
               [&](SyncWriteOutcome outcome) { told.push_back(outcome); });
  EXPECT_EQ(told, Outcomes{kCommitted});
  EXPECT_EQ(value_of("k"), "v");
  EXPECT_EQ(monitor_.pending(), 0u);
}

TEST_F(DurabilityMonitorTest, PastDeadlineTellsAmbiguousOnceAndStillCommits) {
  set(1, "k", "old");
  const MutationResult write = durable_set(1, "k", "new", 1000);

  clock_.advance_ms(999);
  executor_.run_ready();
  EXPECT_EQ(told_["k"], Outcomes{});
  clock_.advance_ms(1);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(told_["k"], Outcomes{kAmbiguous});
  EXPECT_EQ(monitor_.ambiguous(), 1u);
  EXPECT_EQ(monitor_.pending(), 1u);  // still tracked, still prepared
  EXPECT_EQ(value_of("k"), "old");

  clock_.advance_ms(5000);
  executor_.run_ready();
  EXPECT_EQ(monitor_.expire_due(), executor::kNeverMs);
  persist(1, write.seqno);
  EXPECT_EQ(told_["k"], Outcomes{kAmbiguous});  // never told twice
  EXPECT_EQ(value_of("k"), "new");
  EXPECT_EQ(monitor_.committed(), 1u);
  EXPECT_EQ(monitor_.pending(), 0u);
}

TEST_F(DurabilityMonitorTest, WriteCommittedBeforeItsDeadlineIsNeverAmbiguous) {
  const MutationResult write = durable_set(2, "k", "v", 1000);
  persist(2, write.seqno);
  clock_.advance_ms(2000);
  executor_.run_ready();
  EXPECT_EQ(told_["k"], Outcomes{kCommitted});
  EXPECT_EQ(monitor_.ambiguous(), 0u);
}

TEST_F(DurabilityMonitorTest, ExpireDueReturnsTheEarliestUntoldDeadline) {
  const int64_t start = clock_.steady_ms();
  EXPECT_EQ(monitor_.expire_due(), executor::kNeverMs);
  durable_set(0, "a", "v", 3000);
  durable_set(1, "b", "v", 1000);
  EXPECT_EQ(monitor_.expire_due(), start + 1000);
  clock_.advance_ms(1000);
  EXPECT_EQ(monitor_.expire_due(), start + 3000);
  EXPECT_EQ(told_["b"], Outcomes{kAmbiguous});
  EXPECT_EQ(told_["a"], Outcomes{});
}

TEST_F(DurabilityMonitorTest, UnknownVBucketIsRefused) {
  EXPECT_THROW(monitor_.add(cluster::kVBucketCount, 1, "k", 1, 0, [](SyncWriteOutcome) {}),
               std::out_of_range);
  EXPECT_EQ(monitor_.pending(), 0u);
}

TEST_F(DurabilityMonitorTest, ManyWritesAcrossVBuckets) {
  constexpr uint16_t kVBuckets = 64;
  constexpr int kWritesEach = 8;
  std::map<std::string, MutationResult> writes;
  for (int i = 0; i < kWritesEach; ++i) {
    for (uint16_t vb = 0; vb < kVBuckets; ++vb) {
      const std::string key = "vb" + std::to_string(vb) + "-" + std::to_string(i);
      writes[key] = durable_set(vb * 16, key, key);  // spread over the 1024
    }
  }
  EXPECT_EQ(monitor_.pending(), kVBuckets * kWritesEach);

  // Half of each vbucket's writes reach the disk, then the rest.
  for (uint16_t vb = 0; vb < kVBuckets; ++vb) {
    vbuckets_[vb * 16].set_persisted_seqno(kWritesEach / 2);
  }
  monitor_.on_persisted();
  for (const auto& [key, write] : writes) {
    const bool on_disk = write.seqno <= kWritesEach / 2;
    EXPECT_EQ(told_[key], on_disk ? Outcomes{kCommitted} : Outcomes{}) << key;
    EXPECT_EQ(value_of(key), on_disk ? key : "<NotFound>") << key;
  }
  EXPECT_EQ(monitor_.pending(), kVBuckets * kWritesEach / 2);

  for (uint16_t vb = 0; vb < kVBuckets; ++vb) vbuckets_[vb * 16].set_persisted_seqno(kWritesEach);
  monitor_.on_persisted();
  for (const auto& [key, write] : writes) {
    EXPECT_EQ(told_[key], Outcomes{kCommitted}) << key;
    EXPECT_EQ(value_of(key), key);
  }
  EXPECT_EQ(monitor_.pending(), 0u);
  EXPECT_EQ(monitor_.committed(), kVBuckets * kWritesEach);
}

// Both snooze modes must aim the timeout task alike; they differ only in what the writer
// waits for.
class DurabilityTimeoutTest : public DurabilityMonitorTest,
                              public ::testing::WithParamInterface<SnoozeMode> {
 protected:
  DurabilityTimeoutTest() : DurabilityMonitorTest(GetParam()) {}
};

TEST_P(DurabilityTimeoutTest, TaskIsReaimedAtEachEarlierDeadlineAndFiresThere) {
  const int64_t start = clock_.steady_ms();
  EXPECT_EQ(timeout_waketime_ms(), -1);  // nothing to time out: sleeps until woken

  durable_set(0, "late", "v", 5000);
  EXPECT_EQ(timeout_waketime_ms(), start + 5000);
  durable_set(1, "early", "v", 2000);
  EXPECT_EQ(timeout_waketime_ms(), start + 2000);
  durable_set(2, "middle", "v", 3000);  // not the earliest: leaves the task where it is
  EXPECT_EQ(timeout_waketime_ms(), start + 2000);

  clock_.advance_ms(1999);
  EXPECT_EQ(executor_.ready_count(), 0u);
  clock_.advance_ms(1);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(told_["early"], Outcomes{kAmbiguous});
  EXPECT_EQ(told_["middle"], Outcomes{});
  EXPECT_EQ(timeout_waketime_ms(), start + 3000);  // the task aimed itself at the next one

  clock_.advance_ms(1000);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(told_["middle"], Outcomes{kAmbiguous});
  EXPECT_EQ(told_["late"], Outcomes{});
  EXPECT_EQ(timeout_waketime_ms(), start + 5000);

  persist(0, 1);  // "late" commits in time; the task has nothing left but wakes once more
  clock_.advance_ms(2000);
  executor_.run_ready();
  EXPECT_EQ(told_["late"], Outcomes{kCommitted});
  EXPECT_EQ(timeout_waketime_ms(), -1);
  EXPECT_EQ(monitor_.ambiguous(), 2u);
}

TEST_P(DurabilityTimeoutTest, DeadlineAlreadyPastFiresAtOnce) {
  durable_set(0, "k", "v", -1);
  EXPECT_EQ(executor_.run_ready(), 1u);
  EXPECT_EQ(told_["k"], Outcomes{kAmbiguous});
}

INSTANTIATE_TEST_SUITE_P(SnoozeModes, DurabilityTimeoutTest,
                         ::testing::Values(SnoozeMode::Async, SnoozeMode::Wait),
                         [](const auto& info) {
                           return info.param == SnoozeMode::Async ? "Async" : "Wait";
                         });

}  // namespace
}  // namespace tern::engine
