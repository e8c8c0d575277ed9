#include "engine/live_collections_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "engine/collection_hooks.h"
#include "engine/collection_key.h"

namespace tern::engine {

LiveCollectionsStore::LiveCollectionsStore(const Engine& engine,
                                           std::unique_ptr<storage::Store> store)
    : engine_(engine), store_(std::move(store)) {}

std::span<const storage::Record> LiveCollectionsStore::live(
    std::span<const storage::Record> records) {
  const auto gone = [this](const storage::Record& record) {
    return !engine_.collections().has_collection_of(record.key);
  };
  if (std::none_of(records.begin(), records.end(), gone)) return records;
  kept_.clear();
  std::remove_copy_if(records.begin(), records.end(), std::back_inserter(kept_), gone);
  return kept_;
}

void LiveCollectionsStore::write(std::span<const storage::Record> records,
                                 std::span<const storage::VBucketSeqno> seqnos) {
  MutexLock lock(mutex_);
  // The seqnos stay: a dropped collection's changes were numbered, and a seqno is never
  // handed out twice.
  store_->write(live(records), seqnos);
}

void LiveCollectionsStore::clear_and_write(std::span<const storage::Record> records,
                                           std::span<const storage::VBucketSeqno> seqnos) {
  MutexLock lock(mutex_);
  store_->clear_and_write(live(records), seqnos);
}

std::optional<storage::OwnedRecord> LiveCollectionsStore::get(uint16_t vbucket,
                                                              std::string_view key) {
  if (!engine_.collections().has_collection_of(key)) return std::nullopt;
  return store_->get(vbucket, key);
}

void LiveCollectionsStore::scan(const std::function<bool(const storage::Record&)>& visit) {
  std::set<uint32_t> gone;
  store_->scan([&](const storage::Record& record) {
    if (engine_.collections().has_collection_of(record.key)) return visit(record);
    gone.insert(collection_of_key(record.key).value_or(0));
    ++dropped_on_scan_;
    return true;
  });
  if (gone.empty()) return;
  std::vector<storage::KeyRange> ranges;
  for (uint32_t id : gone) {
    for (storage::KeyRange& range : collection_key_ranges(id)) ranges.push_back(std::move(range));
  }
  spdlog::warn(
      "warmup: {} records of collections {:x}, which the manifest no longer has, "
      "were not loaded; deleting them",
      dropped_on_scan_, fmt::join(gone, ", "));
  // Best effort: what stays (the store refused) is passed over again at the next warmup.
  try {
    remove_ranges(ranges, {});
  } catch (const storage::StoreError& e) {
    spdlog::error("warmup: could not delete the records of dropped collections ({})", e.what());
  }
}

std::vector<storage::VBucketSeqno> LiveCollectionsStore::high_seqnos() {
  return store_->high_seqnos();
}

void LiveCollectionsStore::compact() { store_->compact(); }

uint64_t LiveCollectionsStore::records_purged() { return store_->records_purged(); }
uint64_t LiveCollectionsStore::estimated_records() { return store_->estimated_records(); }

void LiveCollectionsStore::write_meta(std::span<const storage::MetaEntry> entries) {
  store_->write_meta(entries);
}

std::optional<std::string> LiveCollectionsStore::read_meta(std::string_view name) {
  return store_->read_meta(name);
}

void LiveCollectionsStore::remove_ranges(std::span<const storage::KeyRange> ranges,
                                         const std::function<void(const storage::Record&)>& visit) {
  MutexLock lock(mutex_);
  store_->remove_ranges(ranges, visit);
}

}  // namespace tern::engine
