#pragma once
// A persistent bucket's store as its collections manifest sees it (Bucket::make_persistent
// puts it between the bucket's tasks and the store): records of a collection the manifest no
// longer has are neither written, read back, nor loaded.
// - write() (and clear_and_write()) leaves them out. It and remove_ranges() take one lock, so that
// a batch the
//   flusher took before a drop can never land after the purge deleted the collection's
//   records: either it is written first, and deleted with the rest, or it is filtered.
// - get() does not find them (a background fetch brings nothing of them back).
// - scan() (warmup) passes them over, and once it has read everything deletes them, so that
//   a restart after a crash in the middle of a purge finishes it: the manifest saved
//   without the collection is what warmup is given, and what it lacks is gone for good.
//
// Whether a key's collection is gone is the engine's to say (CollectionHooks::has_collection_of).

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "engine/engine.h"
#include "storage/store.h"

namespace tern::engine {

class LiveCollectionsStore final : public storage::Store {
 public:
  LiveCollectionsStore(const Engine& engine, std::unique_ptr<storage::Store> store);

  void write(std::span<const storage::Record> records,
             std::span<const storage::VBucketSeqno> seqnos) override;
  void clear_and_write(std::span<const storage::Record> records,
                       std::span<const storage::VBucketSeqno> seqnos) override;
  std::optional<storage::OwnedRecord> get(uint16_t vbucket, std::string_view key) override;
  void scan(const std::function<bool(const storage::Record&)>& visit) override;
  std::vector<storage::VBucketSeqno> high_seqnos() override;
  void compact() override;
  uint64_t records_purged() override;
  uint64_t estimated_records() override;
  void write_meta(std::span<const storage::MetaEntry> entries) override;
  std::optional<std::string> read_meta(std::string_view name) override;
  void remove_ranges(std::span<const storage::KeyRange> ranges,
                     const std::function<void(const storage::Record&)>& visit) override;

  // Records of gone collections scan() passed over, so far.
  uint64_t dropped_on_scan() const { return dropped_on_scan_; }

 private:
  // `records` without those of gone collections: `records` itself when it has none, else a
  // copy in kept_.
  std::span<const storage::Record> live(std::span<const storage::Record> records)
      TERN_REQUIRES(mutex_);

  const Engine& engine_;
  const std::unique_ptr<storage::Store> store_;
  Mutex mutex_;  // held by write() and remove_ranges()
  std::vector<storage::Record> kept_ TERN_GUARDED_BY(mutex_);
  uint64_t dropped_on_scan_ = 0;  // written by scan() only
};

}  // namespace tern::engine
