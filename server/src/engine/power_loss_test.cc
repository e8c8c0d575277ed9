// Power loss, at the storage level: the real engine, flusher, durability monitor, warmup and
// RocksDB store, run on the deterministic executor over a file system that loses what was not
// synced (storage/power_loss_file_system.h). Each round opens the bucket, checks what came
// back, writes durable and plain documents and runs the flusher between them, until the power
// fails at a seeded random call to the disk (while a batch is written, between batches, or
// while the store opens); then the unsynced data goes, and the next round reopens.
//
// After each power failure:
// - every acknowledged durable write is there with its CAS, unless a later write of its key
//   replaced it (such a write may or may not have survived: either is allowed);
// - so is every write the flusher had reported persisted (its vbucket's persisted seqno);
// - no document is half-written: what is read back is one of the values written, byte for
//   byte, with that write's CAS;
// - the store opens and warmup completes.
// And the check can fail: a store that does not sync its batches must be caught.
//
// The schedule is seeded: a failing run prints its seed; TERN_POWER_LOSS_SEED=<seed> replays it.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/clock.h"
#include "engine/durability_monitor.h"
#include "engine/persistence.h"
#include "engine/persistent_engine_fixture.h"
#include "executor/manual_executor.h"
#include "storage/power_loss_file_system.h"
#include "storage/store_rocksdb.h"
#include "storage/temp_dir.h"

namespace tern::engine {
namespace {

constexpr executor::OwnerId kOwner = 23;
constexpr int kKeys = 48;
constexpr int kOpsPerRound = 32;
// Long enough that no durable write times out: the clock never moves.
constexpr int64_t kDurableDeadlineMs = 3'600'000;

// One state of a key: what a write left, or what a round found. A removal leaves a tombstone
// with a CAS of its own, so that each removal is told apart from the others and from a key
// never written (cas 0).
struct KeyState {
  bool exists = false;
  std::string value;
  uint64_t cas = 0;
  bool operator==(const KeyState&) const = default;
};

std::string describe(const KeyState& state) {
  if (!state.exists) {
    return state.cas == 0 ? "absent" : "removed (tombstone cas " + std::to_string(state.cas) + ")";
  }
  return "'" + state.value.substr(0, 24) + (state.value.size() > 24 ? "...'" : "'") + " (" +
         std::to_string(state.value.size()) + " bytes, cas " + std::to_string(state.cas) + ")";
}

// Every state each key may be found in after the next power failure: the first is the last
// state that must survive (found on disk at the round's start, acknowledged durable, or
// reported persisted), the rest are later writes, any of which may have survived.
class Expectations {
 public:
  Expectations() : states_(kKeys, std::vector<Entry>{Entry{}}) {}

  // A write succeeded in memory (not yet known to be on disk). Returns its index.
  size_t wrote(int key, KeyState state, uint16_t vbucket, uint64_t seqno) {
    states_[key].push_back({std::move(state), vbucket, seqno});
    return states_[key].size() - 1;
  }

  // The write at `index` of `key` was acknowledged durable: nothing before it may come back.
  void must_survive(int key, size_t index) {
    // An index below the floor belonged to a write a later must-survive write replaced.
    if (index >= floor_[key]) floor_[key] = index;
  }

  // The power failed: every write with a seqno the flusher reported persisted must survive.
  void persisted_up_to(const std::vector<uint64_t>& persisted_seqnos) {
    for (int key = 0; key < kKeys; ++key) {
      for (size_t i = states_[key].size(); i-- > floor_[key];) {
        const Entry& entry = states_[key][i];
        if (entry.seqno != 0 && entry.seqno <= persisted_seqnos[entry.vbucket]) {
          floor_[key] = i;
          break;
        }
      }
    }
  }

  // Checks what the reopened bucket holds for `key`; returns a complaint, or "" when allowed.
  std::string check(int key, const KeyState& found) const {
    const auto& states = states_[key];
    for (size_t i = floor_[key]; i < states.size(); ++i) {
      if (states[i].state == found) return "";
    }
    std::ostringstream out;
    out << "key " << key << ": found " << describe(found) << ", but it must be one of:";
    for (size_t i = floor_[key]; i < states.size(); ++i) out << " " << describe(states[i].state);
    for (size_t i = 0; i < floor_[key]; ++i) {
      if (states[i].state == found)
        out << " (an older state, which a write that must survive replaced)";
    }
    return out.str();
  }

  // What the reopened bucket holds is now the state that must survive.
  void settled(int key, KeyState found) {
    states_[key] = {Entry{std::move(found), 0, 0}};
    floor_[key] = 0;
  }

 private:
  struct Entry {
    KeyState state;
    uint16_t vbucket = 0;
    uint64_t seqno = 0;  // 0: not a write of this round
  };
  std::vector<std::vector<Entry>> states_;
  std::vector<size_t> floor_ = std::vector<size_t>(kKeys, 0);
};

struct Report {
  uint64_t seed = 0;
  int rounds = 0;
  int failed_opens = 0;     // the power failed while the store opened
  int failed_in_batch = 0;  // ... while the flusher wrote a batch (it was refused)
  int failed_between = 0;   // ... with no batch refused
  uint64_t durable_acknowledged = 0;
  uint64_t flushes = 0;  // with PowerLossRun's flushes
  uint64_t flushes_acknowledged = 0;
  uint64_t checked = 0;  // keys checked after reopening
  std::vector<std::string> violations;

  std::string summary() const {
    std::ostringstream out;
    out << "seed " << seed << ": " << rounds << " power failures (" << failed_opens
        << " while opening, " << failed_in_batch << " while a batch was written, " << failed_between
        << " between batches), " << durable_acknowledged << " durable writes acknowledged, "
        << flushes << " flushes (" << flushes_acknowledged << " acknowledged), " << checked
        << " keys checked, " << violations.size() << " violations";
    return out.str();
  }
};

// One start of the bucket on the power-loss file system.
struct Bucket {
  Bucket(const Clock& clock, std::unique_ptr<storage::Store> store, executor::Executor& executor)
      : data(clock, persistent_config(4 << 20)),
        persistence(data.engine, data.vbuckets(), std::move(store), clock) {
    persistence.start(executor, kOwner);
  }
  PersistentEngine data;
  Persistence persistence;
};

class PowerLossRun {
 public:
  // With `flushes`, about one operation in kFlushOdds flushes the bucket (Persistence::flush)
  // instead of writing.
  PowerLossRun(uint64_t seed, bool sync_writes, bool flushes = false)
      : random_(seed), executor_(clock_), sync_writes_(sync_writes), flushes_(flushes) {
    report_.seed = seed;
  }

  Report run(int rounds) {
    for (int round = 0; round < rounds; ++round) run_round();
    // One last reopen checks what the last power failure left.
    file_system_->restore_power();
    if (auto bucket = open()) {
      check_reopened(*bucket);
      executor_.unregister(kOwner);
    }
    return report_;
  }

 private:
  std::unique_ptr<storage::Store> open_store() {
    // The store's tombstone purge reads the engine's clock, as in the server: it purges
    // nothing here, since the clock never moves.
    return storage::open_rocksdb_store(
        dir_.sub("bucket"), {.unix_now = [this] { return clock_.unix_seconds(); }},
        {.file_system = file_system_, .sync_writes = sync_writes_, .auto_compactions = false});
  }

  // Opens the bucket and runs warmup; null when the power failed meanwhile.
  std::unique_ptr<Bucket> open() {
    std::unique_ptr<storage::Store> store;
    try {
      store = open_store();
    } catch (const storage::StoreError&) {
      if (file_system_->power_is_on()) throw;
      return nullptr;
    }
    auto bucket = std::make_unique<Bucket>(clock_, std::move(store), executor_);
    executor_.run_ready();
    // Warmup writes too (the failover logs, failover_logs_on_disk.h): the power may fail there.
    if (!bucket->persistence.warm() && !file_system_->power_is_on()) {
      executor_.unregister(kOwner);
      return nullptr;
    }
    if (!bucket->persistence.warm()) {
      report_.violations.push_back("round " + std::to_string(report_.rounds) +
                                   ": warmup did not complete");
    }
    return bucket;
  }

  void check_reopened(Bucket& bucket) {
    for (int key = 0; key < kKeys; ++key) {
      KeyState found;
      GetResult got = bucket.data.engine.get(key_name(key));
      if (got.status == Status::Success) {
        found = {true, std::string(got.item->value()), got.item->cas};
      } else if (got.status == Status::NotFound) {
        MetaResult meta = bucket.data.engine.get_meta(key_name(key));
        if (meta.status == Status::Success && meta.deleted) found.cas = meta.cas;
      } else {
        report_.violations.push_back("key " + std::to_string(key) + ": read answered " +
                                     std::string(status_name(got.status)));
        continue;
      }
      ++report_.checked;
      if (std::string complaint = expected_.check(key, found); !complaint.empty()) {
        report_.violations.push_back("round " + std::to_string(report_.rounds) + ", " + complaint);
      }
      expected_.settled(key, found);
    }
  }

  void run_round() {
    ++report_.rounds;
    file_system_->restore_power();
    // Now and then the power fails while the store opens (recovery writes too).
    if (random_() % 5 == 0) file_system_->cut_power_after(1 + random_() % 40);
    std::unique_ptr<Bucket> bucket = open();
    if (!bucket) {
      ++report_.failed_opens;
      file_system_->lose_unsynced(torn_tail_seed());
      return;
    }
    check_reopened(*bucket);
    // Each open leaves a table file (what it recovered from the log): merge them now and
    // then, so that later rounds recover from compacted files too.
    if (report_.rounds % 8 == 0 && file_system_->power_is_on()) {
      // A failure scheduled while the store opened may come during the compaction: one more
      // point where the power fails, and the round goes on without power (its writes are
      // refused) as after any other.
      try {
        bucket->persistence.store().compact();
      } catch (const storage::StoreError&) {
        if (file_system_->power_is_on()) throw;
      }
    }
    file_system_->cut_power_after(1 + random_() % 40);

    const uint64_t refused_before = bucket->persistence.flusher()->failures();
    for (int op = 0; op < kOpsPerRound; ++op) {
      write(*bucket);
      if (random_() % 3 == 0) executor_.run_ready();  // the flusher, and what it completes
    }
    const bool refused = bucket->persistence.flusher()->failures() > refused_before;
    if (!file_system_->power_is_on()) {
      ++(refused ? report_.failed_in_batch : report_.failed_between);
    } else {
      ++report_.failed_between;
      file_system_->cut_power();
    }
    std::vector<uint64_t> persisted;
    for (const VBucket& vbucket : bucket->data.vbuckets()) {
      persisted.push_back(vbucket.persisted_seqno());
    }
    expected_.persisted_up_to(persisted);
    // A crash: no flush before exit. The store's own close fails on the dead disk.
    executor_.unregister(kOwner);
    bucket.reset();
    pending_.clear();  // what was pending is now on disk or lost, as any unacknowledged write
    file_system_->lose_unsynced(torn_tail_seed());
  }

  // A flush leaves each key absent, or holding the durable write it has pending (which the
  // flush does not drop: it commits afterwards), and once acknowledged nothing from before
  // it may come back.
  void flush(Bucket& bucket) {
    std::vector<size_t> indexes(kKeys);
    for (int key = 0; key < kKeys; ++key) {
      const auto pending = pending_.find(key);
      indexes[key] = pending == pending_.end() ? expected_.wrote(key, KeyState{}, 0, 0)
                                               : expected_.wrote(key, pending->second, 0, 0);
    }
    ++report_.flushes;
    bucket.persistence.flush([this, indexes] {
      ++report_.flushes_acknowledged;
      for (int key = 0; key < kKeys; ++key) expected_.must_survive(key, indexes[key]);
    });
  }

  void write(Bucket& bucket) {
    if (flushes_ && random_() % kFlushOdds == 0) return flush(bucket);
    const int key = static_cast<int>(random_() % kKeys);
    const auto vbucket = static_cast<uint16_t>(key % kTestVBucketCount);
    const uint64_t kind = random_() % 10;
    if (kind == 0) {
      MutationResult removed = bucket.data.remove(key_name(key), vbucket);
      if (removed.status == Status::Success) {
        expected_.wrote(key, KeyState{false, "", removed.cas}, vbucket, removed.seqno);
      }
      return;
    }
    const bool durable = kind >= 5;
    const std::string value = value_for(key);
    MutationResult result = bucket.data.set(key_name(key), value, vbucket, 0, durable);
    // A key with a durable write in flight refuses others (SyncWriteInProgress).
    if (result.status != Status::Success) return;
    const KeyState state{true, value, result.cas};
    const size_t index = expected_.wrote(key, state, vbucket, result.seqno);
    if (!durable) return;
    pending_[key] = state;
    bucket.persistence.durability().add(vbucket, result.seqno, key_name(key), result.cas,
                                        clock_.steady_ms() + kDurableDeadlineMs,
                                        [this, key, index](SyncWriteOutcome outcome) {
                                          if (outcome != SyncWriteOutcome::Committed) return;
                                          pending_.erase(key);
                                          ++report_.durable_acknowledged;
                                          expected_.must_survive(key, index);
                                        });
  }

  static std::string key_name(int key) { return "key-" + std::to_string(key); }

  // A value no other write repeats, of a length from a few bytes to a few kilobytes, so
  // that batches end at random places in the log's blocks.
  std::string value_for(int key) {
    std::string value = "key " + std::to_string(key) + " write " + std::to_string(++writes_) + ":";
    value.resize(value.size() + random_() % 3000, static_cast<char>('a' + writes_ % 26));
    return value;
  }

  // Half the failures keep a random part of each file's unsynced tail, as a disk that had
  // written some of a write's sectors.
  std::optional<uint64_t> torn_tail_seed() {
    const uint64_t draw = random_();
    if (draw % 2 == 0) return std::nullopt;
    return draw;
  }

  std::mt19937_64 random_;
  ManualClock clock_;
  executor::ManualExecutor executor_;
  storage::TempDir dir_;
  std::shared_ptr<storage::PowerLossFileSystem> file_system_ =
      std::make_shared<storage::PowerLossFileSystem>();
  const bool sync_writes_;
  const bool flushes_;
  static constexpr uint64_t kFlushOdds = 40;
  // The durable writes not yet acknowledged, by key: at most one per key (a key with one
  // refuses other writes).
  std::map<int, KeyState> pending_;
  Expectations expected_;
  Report report_;
  uint64_t writes_ = 0;
};

// The run's seed, printed before the run so that any failure, a crash included, can be
// replayed.
uint64_t run_seed() {
  uint64_t seed = std::random_device{}();
  if (const char* given = std::getenv("TERN_POWER_LOSS_SEED")) {
    seed = std::strtoull(given, nullptr, 10);
  }
  std::cout << "[ power loss ] seed " << seed << " (replay: TERN_POWER_LOSS_SEED=" << seed
            << " engine_tests --gtest_filter='PowerLoss.*')" << std::endl;
  return seed;
}

TEST(PowerLoss, EveryAcknowledgedDurableWriteSurvivesWhereverThePowerFails) {
  const Report report = PowerLossRun(run_seed(), /*sync_writes=*/true).run(300);
  std::cout << "[ power loss ] " << report.summary() << "\n";
  // The run did what it is for: enough acknowledgements, and failures at each kind of point.
  EXPECT_GT(report.durable_acknowledged, 300u) << report.summary();
  EXPECT_GT(report.failed_in_batch, 0) << report.summary();
  EXPECT_GT(report.failed_opens, 0) << report.summary();
  ASSERT_TRUE(report.violations.empty())
      << report.summary() << "\nfirst: " << report.violations.front();
}

// Flushes among the writes: wherever the power fails, an acknowledged flush brings back
// nothing from before it, and every write acknowledged after it (durable, or reported
// persisted) survives it; a durable write pending at a flush survives the flush.
TEST(PowerLoss, AnAcknowledgedFlushStaysFlushedAndLaterWritesSurviveIt) {
  const Report report = PowerLossRun(run_seed(), /*sync_writes=*/true, /*flushes=*/true).run(100);
  std::cout << "[ power loss, flushes ] " << report.summary() << "\n";
  EXPECT_GT(report.flushes_acknowledged, 10u) << report.summary();
  EXPECT_GT(report.flushes, report.flushes_acknowledged) << "some flushes met the power failure";
  EXPECT_GT(report.durable_acknowledged, 100u) << report.summary();
  ASSERT_TRUE(report.violations.empty())
      << report.summary() << "\nfirst: " << report.violations.front();
}

// The proof that the test above can fail: the same kind of run (60 power failures) on a store
// that leaves its batches unsynced loses acknowledged durable writes, and the check says so.
TEST(PowerLoss, AStoreThatDoesNotSyncIsCaught) {
  const Report report = PowerLossRun(run_seed(), /*sync_writes=*/false).run(60);
  std::cout << "[ power loss, no sync ] " << report.summary() << "\n";
  EXPECT_FALSE(report.violations.empty()) << report.summary();
  if (!report.violations.empty()) std::cout << "first: " << report.violations.front() << "\n";
}

}  // namespace
}  // namespace tern::engine
