#include <atomic>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "engine/counter_value.h"
#include "engine/engine_fixture.h"
#include "engine/paging_hooks.h"
#include "engine/stored_item.h"

namespace tern::engine {
namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 2000;

// Each worker mixes private keys (checked against its own model) with shared keys that all
// workers update through increments, CAS loops and locks; the totals must add up exactly.
class StressTest : public EngineTest {
 protected:
  StressTest() : EngineTest(stress_config()) {}
  static Config stress_config() {
    Config config = small_config();
    config.shard_count = 16;
    config.memory_quota_bytes = 64 * 1024 * 1024;
    return config;
  }

  void cas_increment(std::string_view key) {
    for (;;) {
      GetResult got = engine_.get(key);
      ASSERT_EQ(got.status, Status::Success);
      if (got.item->cas == Engine::kLockedCas) continue;
      char digits[20];
      const uint64_t next = *parse_counter(got.item->value()) + 1;
      MutationResult result = set(key, format_counter(next, digits), 0, got.item->cas);
      if (result.status == Status::Success) return;
      ASSERT_TRUE(result.status == Status::CasMismatch || result.status == Status::Locked);
    }
  }

  void locked_increment(std::string_view key) {
    for (;;) {
      GetResult locked = engine_.get_locked(key, 0);
      if (locked.status == Status::Locked) continue;
      ASSERT_EQ(locked.status, Status::Success);
      char digits[20];
      const uint64_t next = *parse_counter(locked.item->value()) + 1;
      // Nobody else can change it while we hold the lock.
      ASSERT_EQ(set(key, format_counter(next, digits), 0, locked.item->cas).status,
                Status::Success);
      return;
    }
  }

  void worker(int id, std::map<std::string, std::string>& model) {
    std::mt19937 random(id);
    for (int round = 0; round < kRounds; ++round) {
      const std::string key = "t" + std::to_string(id) + ":" + std::to_string(random() % 50);
      switch (random() % 8) {
        case 0:
        case 1: {
          const std::string value(random() % 100, static_cast<char>('a' + round % 26));
          ASSERT_EQ(set(key, value).status, Status::Success);
          model[key] = value;
          break;
        }
        case 2:
          if (engine_.concat(ConcatMode::Append, key, "+", 0).status == Status::Success) {
            model[key] += "+";
          }
          break;
        case 3:
          engine_.remove(key, 0);
          model.erase(key);
          break;
        case 4: {
          GetResult got = engine_.get(key);
          auto expected = model.find(key);
          ASSERT_EQ(got.status == Status::Success, expected != model.end()) << key;
          if (expected != model.end()) {
            ASSERT_EQ(got.item->value(), expected->second);
          }
          break;
        }
        case 5:
          ASSERT_EQ(engine_.arithmetic("shared:incr", true, 1, 1, 0, 0).status, Status::Success);
          break;
        case 6:
          cas_increment("shared:cas");
          break;
        case 7:
          locked_increment("shared:lock");
          break;
      }
    }
  }
};

TEST_F(StressTest, ConcurrentMixedOperationsStayConsistent) {
  set("shared:cas", "0");
  set("shared:lock", "0");
  std::vector<std::map<std::string, std::string>> models(kThreads);
  std::atomic<bool> done{false};
  std::thread housekeeper([&] {
    while (!done) {
      for (size_t s = 0; s < engine_.paging().shard_count(); ++s)
        engine_.paging().purge_expired(s, 16);
      engine_.stats();
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) workers.emplace_back([&, t] { worker(t, models[t]); });
  for (auto& w : workers) w.join();
  done = true;
  housekeeper.join();

  // The shared counters saw every operation exactly once; the per-case counts are recovered
  // from the same random sequences the workers used.
  uint64_t incr = 0, cas = 0, locked = 0;
  for (int t = 0; t < kThreads; ++t) {
    std::mt19937 random(t);
    for (int round = 0; round < kRounds; ++round) {
      random();  // the key
      const auto op = random() % 8;
      if (op <= 1) random();  // the value length
      incr += op == 5;
      cas += op == 6;
      locked += op == 7;
    }
  }
  // The increment counter was created by its first increment with initial 1.
  EXPECT_EQ(value_of("shared:incr"), std::to_string(incr));
  EXPECT_EQ(value_of("shared:cas"), std::to_string(cas));
  EXPECT_EQ(value_of("shared:lock"), std::to_string(locked));

  uint64_t expected_bytes = 0;
  size_t expected_items = 3;
  for (const std::string key : {"shared:incr", "shared:cas", "shared:lock"}) {
    expected_bytes += item_charge(key.size(), engine_.get(key).item->value().size());
  }
  for (const auto& model : models) {
    for (const auto& [key, value] : model) {
      ASSERT_EQ(value_of(key), value) << key;
      expected_bytes += item_charge(key.size(), value.size());
      ++expected_items;
    }
  }
  // A removed key's tombstone stays charged as an item with an empty value.
  for (int t = 0; t < kThreads; ++t) {
    for (int k = 0; k < 50; ++k) {
      const std::string key = "t" + std::to_string(t) + ":" + std::to_string(k);
      const MetaResult meta = engine_.get_meta(key);
      if (meta.status != Status::Success) continue;
      ASSERT_EQ(meta.deleted, !models[t].contains(key)) << key;
      if (meta.deleted) expected_bytes += item_charge(key.size(), 0);
    }
  }
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.curr_items, expected_items);
  EXPECT_EQ(stats.mem_used, expected_bytes);
}

// Writers race the housekeeping paths (expiry, eviction, purge, flush) while time moves;
// afterwards the memory accounting must match exactly the items and tombstones still there.
TEST(StressAccountingTest, HousekeepingRacingWritersKeepsAccountingExact) {
  ManualClock clock;
  Config config = small_config();
  config.shard_count = 8;
  config.memory_quota_bytes = 64 * 1024;
  Engine engine(config, clock);
  constexpr int kKeys = 500;
  std::atomic<bool> done{false};
  std::thread housekeeper([&] {
    while (!done) {
      for (size_t s = 0; s < engine.paging().shard_count(); ++s)
        engine.paging().purge_expired(s, 32);
      if (engine.mem_used() > engine.high_watermark_bytes()) {
        engine.paging().evict(engine.mem_used() - engine.low_watermark_bytes());
      }
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      std::mt19937 random(100 + t);
      for (int round = 0; round < kRounds * 2; ++round) {
        // Workers move time themselves so that expiry and flush delays interleave with
        // their own operations however the threads are scheduled.
        if (round % 4 == 0) clock.advance_ms(1);
        if (t == 0 && round % 1000 == 999) engine.flush(round % 2000 == 999 ? 1 : 0);
        const std::string key = "k" + std::to_string(random() % kKeys);
        const std::string value(random() % 300, 'x');
        switch (random() % 6) {
          case 0:
          case 1:
            engine.store(StoreMode::Set, key, value, 0, random() % 3, 0, 0);
            break;
          case 2:
            engine.concat(ConcatMode::Prepend, key, value, 0);
            break;
          case 3:
            engine.remove(key, 0);
            break;
          case 4:
            engine.get_locked(key, 1);
            break;
          case 5:
            engine.touch(key, random() % 3);
            break;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  done = true;
  housekeeper.join();

  uint64_t live_bytes = 0;
  size_t live_items = 0;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "k" + std::to_string(i);
    const MetaResult meta = engine.get_meta(key);
    if (meta.status == Status::Success && meta.deleted) live_bytes += item_charge(key.size(), 0);
    GetResult got = engine.get(key);
    if (got.status != Status::Success) continue;
    live_bytes += item_charge(key.size(), got.item->value().size());
    ++live_items;
  }
  Stats stats = engine.stats();
  EXPECT_EQ(stats.curr_items, live_items);
  EXPECT_EQ(stats.mem_used, live_bytes);
  EXPECT_LE(stats.mem_used, config.memory_quota_bytes);
}

}  // namespace
}  // namespace tern::engine
