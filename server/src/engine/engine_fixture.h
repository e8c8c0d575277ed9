#pragma once
// Shared set-up for the engine's unit tests: an engine on a manual clock.

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "engine/engine.h"
#include "engine/hash_table.h"

namespace tern::engine {

// Failed expectations print the status by name.
inline void PrintTo(Status status, std::ostream* out) { *out << status_name(status); }

// Few shards so that tests exercise collisions, small limits so that they are reachable.
inline Config small_config() {
  Config config;
  config.shard_count = 4;
  config.max_item_size = 1024;
  config.memory_quota_bytes = 1024 * 1024;
  return config;
}

// While alive, every table that tries to grow fails as if the allocation had.
class GrowthFailure {
 public:
  GrowthFailure() { HashTable::fail_growth_for_testing = true; }
  ~GrowthFailure() { HashTable::fail_growth_for_testing = false; }
  GrowthFailure(const GrowthFailure&) = delete;
  GrowthFailure& operator=(const GrowthFailure&) = delete;
};

class EngineTest : public ::testing::Test {
 protected:
  explicit EngineTest(Config config = small_config()) : engine_(config, clock_) {}

  MutationResult set(std::string_view key, std::string_view value, uint32_t expiry = 0,
                     uint64_t cas = 0) {
    return engine_.store(StoreMode::Set, key, value, 0, expiry, 0, cas);
  }

  // The value of `key`, or "<Status>" (e.g. "<NotFound>") when the get fails.
  std::string value_of(std::string_view key) {
    GetResult result = engine_.get(key);
    if (result.status != Status::Success) {
      return "<" + std::string(status_name(result.status)) + ">";
    }
    return std::string(result.item->value());
  }

  static constexpr std::string_view kMissing = "<NotFound>";

  ManualClock clock_;
  Engine engine_;
};

}  // namespace tern::engine
