#include "storage/tombstone_purge_filter.h"

#include <chrono>

#include "storage/record_codec.h"

namespace tern::storage {

bool should_purge(const Record& record, int64_t now, uint32_t purge_interval_seconds) {
  // A live document with expiry 0 never expires; a tombstone's expiry is its deletion time,
  // and 0 there (unknown) counts as long ago.
  if (!record.deleted && record.expiry == 0) return false;
  return int64_t{record.expiry} + int64_t{purge_interval_seconds} < now;
}

bool TombstonePurgeFilter::Filter(int /*level*/, const rocksdb::Slice& key,
                                  const rocksdb::Slice& existing_value,
                                  std::string* /*new_value*/, bool* /*value_changed*/) const {
  if (!is_document_key(key.ToStringView())) return false;
  auto record = decode_value(existing_value.ToStringView());
  if (!record || !should_purge(*record, now_, purge_interval_seconds_)) return false;
  if (purged_ != nullptr) purged_->fetch_add(1, std::memory_order_relaxed);
  return true;
}

TombstonePurgeFilterFactory::TombstonePurgeFilterFactory(uint32_t purge_interval_seconds,
                                                         std::function<int64_t()> unix_now)
    : purge_interval_seconds_(purge_interval_seconds), unix_now_(std::move(unix_now)) {
  if (!unix_now_) {
    unix_now_ = [] {
      return std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
}

std::unique_ptr<rocksdb::CompactionFilter> TombstonePurgeFilterFactory::CreateCompactionFilter(
    const rocksdb::CompactionFilter::Context& /*context*/) {
  // No exception may reach RocksDB; a clock that fails leaves everything in place this time
  // (no record is purgeable at time 0).
  int64_t now = 0;
  try {
    now = unix_now_();
  } catch (...) {
  }
  return std::make_unique<TombstonePurgeFilter>(now, purge_interval_seconds_, &purged_);
}

}  // namespace tern::storage
