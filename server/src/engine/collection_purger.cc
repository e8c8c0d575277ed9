#include "engine/collection_purger.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "engine/collection_hooks.h"
#include "engine/collection_key.h"
#include "engine/paging_hooks.h"

namespace tern::engine {

CollectionPurger::CollectionPurger(Engine& engine, executor::OwnerId owner)
    // A big collection's records take a while to delete: that is not a stall.
    : Task(executor::TaskType::AuxIO, "Collection purger", owner, /*max_expected_ms=*/1000),
      engine_(engine) {}

void CollectionPurger::add(std::span<const uint32_t> collection_ids) {
  MutexLock lock(mutex_);
  pending_.insert(pending_.end(), collection_ids.begin(), collection_ids.end());
}

bool CollectionPurger::idle() const {
  MutexLock lock(mutex_);
  return pending_.empty() && !busy_;
}

bool CollectionPurger::purge_disk() {
  std::vector<storage::KeyRange> ranges;
  for (uint32_t id : current_) {
    for (storage::KeyRange& range : collection_key_ranges(id)) ranges.push_back(std::move(range));
  }
  // Under full eviction a document may be on disk only, counted as an item: each record
  // deleted settles its key. Otherwise memory holds every key, and the sweep settles them.
  const bool settle_keys = engine_.config().full_eviction;
  try {
    store_->remove_ranges(
        ranges, settle_keys
                    ? [this](const storage::Record&
                                 record) { engine_.collections().purge_dropped_key(record.key, !record.deleted); }
                    : std::function<void(const storage::Record&)>());
  } catch (const storage::StoreError& e) {
    spdlog::error(
        "collection purge: the store refused to delete collections {:x} ({}); "
        "retrying in {} s",
        fmt::join(current_, ", "), e.what(), kRetrySeconds);
    return false;
  }
  return true;
}

bool CollectionPurger::run() {
  if (current_.empty()) {
    MutexLock lock(mutex_);
    current_.swap(pending_);
    busy_ = !current_.empty();
    if (!busy_) {
      snooze(executor::kForever);
      return true;
    }
    disk_done_ = store_ == nullptr;
    next_shard_ = 0;
    swept_ = 0;
  }
  if (!disk_done_) {
    if (!purge_disk()) {
      snooze(kRetrySeconds);
      return true;
    }
    disk_done_ = true;
  }
  const size_t end = std::min(next_shard_ + kShardsPerRun, engine_.paging().shard_count());
  for (; next_shard_ < end; ++next_shard_) {
    const size_t removed = engine_.collections().purge_dropped_collections(next_shard_);
    swept_ += removed;
    purged_items_.fetch_add(removed, std::memory_order_relaxed);
  }
  if (next_shard_ < engine_.paging().shard_count()) {
    snooze(0);  // give the worker back to other tasks, then go on
    return true;
  }
  spdlog::info("collection purge: collections {:x} purged ({} items and tombstones in memory{})",
               fmt::join(current_, ", "), swept_, store_ ? ", and their records on disk" : "");
  purges_.fetch_add(1, std::memory_order_relaxed);
  current_.clear();
  MutexLock lock(mutex_);
  busy_ = false;
  snooze(pending_.empty() ? executor::kForever : 0);
  return true;
}

}  // namespace tern::engine
