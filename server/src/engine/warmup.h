#pragma once
// Loads a persistent bucket from disk when ternd starts, as a task on the Reader pool: every
// vbucket's persisted high seqno first, then the documents and tombstones in key order, each
// as it was stored (Engine::restore). Until it is done the bucket is not warm: its data
// commands answer Etmpfail, which SDKs retry. STAT shows the state and progress.

#include <atomic>
#include <cstdint>
#include <span>
#include <string_view>

#include "engine/engine.h"
#include "engine/vbucket.h"
#include "executor/task.h"
#include "storage/store.h"

namespace tern::engine {

enum class WarmupState : uint8_t { Initialize, LoadingData, Done };
std::string_view warmup_state_name(WarmupState state);  // "initialize", "loading data", "done"

class Warmup final : public executor::Task {
 public:
  Warmup(Engine& engine, std::span<VBucket> vbuckets, storage::Store& store,
         executor::OwnerId owner);

  bool run() override;

  WarmupState state() const { return state_.load(std::memory_order_acquire); }
  bool done() const { return state() == WarmupState::Done; }
  uint64_t loaded_values() const { return loaded_.load(std::memory_order_relaxed); }  // ep_warmup_value_count
  uint64_t skipped() const { return skipped_.load(std::memory_order_relaxed); }  // did not fit the quota
  int64_t duration_ms() const { return duration_ms_.load(std::memory_order_relaxed); }

 private:
  Engine& engine_;
  const std::span<VBucket> vbuckets_;
  storage::Store& store_;
  std::atomic<WarmupState> state_{WarmupState::Initialize};
  std::atomic<uint64_t> loaded_{0};
  std::atomic<uint64_t> skipped_{0};
  std::atomic<int64_t> duration_ms_{0};
};

}  // namespace tern::engine
