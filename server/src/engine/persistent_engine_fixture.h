#pragma once
// For the persistence tasks' tests: a persistent engine and a few vbuckets on a clock the
// test moves, as a Bucket holds them (a Bucket has kVBucketCount; the tasks take any span).

#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "engine/engine.h"
#include "engine/engine_fixture.h"
#include "engine/persistence_hooks.h"
#include "engine/vbucket.h"

namespace tern::engine {

inline constexpr size_t kTestVBucketCount = 8;

inline Config persistent_config(size_t quota_bytes = 1024 * 1024) {
  Config config = small_config();
  config.memory_quota_bytes = quota_bytes;
  config.persistent = true;
  return config;
}

struct PersistentEngine {
  explicit PersistentEngine(const Clock& clock, Config config = persistent_config())
      : engine(config, clock), vbucket_array(std::make_unique<VBucket[]>(kTestVBucketCount)) {
    for (uint16_t id = 0; id < kTestVBucketCount; ++id) vbucket_array[id].set_id(id);
    engine.persistence().set_vbuckets(vbuckets());
  }

  std::span<VBucket> vbuckets() { return {vbucket_array.get(), kTestVBucketCount}; }

  MutationResult set(std::string_view key, std::string_view value, uint16_t vbucket = 0,
                     uint32_t expiry = 0, bool prepare = false) {
    return engine.store(StoreMode::Set, key, value, /*flags=*/7, expiry, /*datatype=*/0, 0,
                        {.vbucket = &vbucket_array[vbucket], .prepare = prepare});
  }

  MutationResult remove(std::string_view key, uint16_t vbucket = 0) {
    return engine.remove(key, 0, {.vbucket = &vbucket_array[vbucket]});
  }

  // The value of `key`, or "<Status>" when the get fails.
  std::string value_of(std::string_view key) {
    GetResult result = engine.get(key);
    if (result.status != Status::Success) {
      return "<" + std::string(status_name(result.status)) + ">";
    }
    return std::string(result.item->value());
  }

  Engine engine;
  std::unique_ptr<VBucket[]> vbucket_array;
};

}  // namespace tern::engine
