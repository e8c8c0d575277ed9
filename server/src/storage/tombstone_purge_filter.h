#pragma once
// Compaction drops what no reader needs any more: tombstones deleted longer ago than the
// purge interval (Couchbase's metadata purge), and documents whose expiry passed that long
// ago (the engine would only turn them into tombstones, themselves past purging). Never the
// metadata range (high seqnos), and never a value it cannot decode: a corrupt record is left
// for a reader to report, not silently removed.
//
// Removing is safe against older versions of the key in lower levels: RocksDB turns a
// filter's kRemove into a deletion marker that shadows them until the bottommost level.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include <rocksdb/compaction_filter.h>

#include "storage/store.h"

namespace tern::storage {

// Whether a record may be dropped at Unix time `now` (seconds): a tombstone whose deletion
// time (Record::expiry) is more than purge_interval_seconds before now, or a document that
// expired more than that before now. A document that never expires (expiry 0) is kept.
bool should_purge(const Record& record, int64_t now, uint32_t purge_interval_seconds);

// The filter of one compaction: it judges by the time at which the compaction began, and
// counts what it drops in `purged` (which must outlive it), if given.
class TombstonePurgeFilter final : public rocksdb::CompactionFilter {
 public:
  TombstonePurgeFilter(int64_t now, uint32_t purge_interval_seconds,
                       std::atomic<uint64_t>* purged = nullptr)
      : now_(now), purge_interval_seconds_(purge_interval_seconds), purged_(purged) {}

  bool Filter(int level, const rocksdb::Slice& key, const rocksdb::Slice& existing_value,
              std::string* new_value, bool* value_changed) const override;
  const char* Name() const override { return "tern.TombstonePurgeFilter"; }

 private:
  int64_t now_;
  uint32_t purge_interval_seconds_;
  std::atomic<uint64_t>* purged_;
};

// Makes a TombstonePurgeFilter per compaction, reading the time from `unix_now` (the
// system clock when empty). unix_now is called from RocksDB's compaction threads.
class TombstonePurgeFilterFactory final : public rocksdb::CompactionFilterFactory {
 public:
  TombstonePurgeFilterFactory(uint32_t purge_interval_seconds,
                              std::function<int64_t()> unix_now);

  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override;
  const char* Name() const override { return "tern.TombstonePurgeFilterFactory"; }

  // The records its filters have dropped so far (Store::records_purged).
  uint64_t purged() const { return purged_.load(std::memory_order_relaxed); }

 private:
  uint32_t purge_interval_seconds_;
  std::function<int64_t()> unix_now_;
  std::atomic<uint64_t> purged_{0};
};

}  // namespace tern::storage
