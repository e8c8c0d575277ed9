#pragma once
// What a bucket's commands cost and how they ended, per opcode: a latency histogram whose
// outcomes are the result classes the commands layer assigns (commands/command_metrics.h),
// and operations per collection by kind. Recording takes no lock; an opcode's histogram is
// allocated the first time the bucket sees the opcode, and never again.
//
// Thread-safe.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "metrics/histogram.h"

namespace tern::metrics {

enum class CollectionOp : uint8_t { Get, Store, Delete };
inline constexpr size_t kCollectionOps = 3;

class CommandStats {
 public:
  // Collections with ids from this up are not counted (ids are handed out from 8 and never
  // reused, so only a bucket that made a thousand collections meets it).
  static constexpr uint32_t kCountedCollections = 1024;

  CommandStats() = default;
  ~CommandStats();
  CommandStats(const CommandStats&) = delete;
  CommandStats& operator=(const CommandStats&) = delete;

  // One command of `opcode` ran for `ns` nanoseconds and ended in `outcome` (< kOutcomes).
  void record(uint8_t opcode, uint64_t ns, size_t outcome) {
    LatencyHistogram* histogram = by_opcode_[opcode].load(std::memory_order_acquire);
    if (histogram == nullptr) histogram = first_use(opcode);
    histogram->record(ns, outcome);
  }

  void count_collection_op(uint32_t collection, CollectionOp op) {
    if (collection >= kCountedCollections) return;
    collections_[collection][static_cast<size_t>(op)].fetch_add(1, std::memory_order_relaxed);
  }

  // The opcode's histogram, or null if the bucket never saw it.
  const LatencyHistogram* opcode(uint8_t opcode) const {
    return by_opcode_[opcode].load(std::memory_order_acquire);
  }

  uint64_t collection_ops(uint32_t collection, CollectionOp op) const {
    if (collection >= kCountedCollections) return 0;
    return collections_[collection][static_cast<size_t>(op)].load(std::memory_order_relaxed);
  }

 private:
  LatencyHistogram* first_use(uint8_t opcode);

  std::array<std::atomic<LatencyHistogram*>, 256> by_opcode_{};
  std::array<std::array<std::atomic<uint64_t>, kCollectionOps>, kCountedCollections> collections_{};
};

}  // namespace tern::metrics
