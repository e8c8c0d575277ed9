#include "engine/flusher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "engine/persistence_hooks.h"
#include "engine/record_item.h"

namespace tern::engine {

Flusher::Flusher(Engine& engine, std::span<VBucket> vbuckets, storage::Store& store,
                 executor::OwnerId owner, const Clock& clock)
    // A synced batch of many items may take a while on a slow disk: that is not a stall.
    : Task(executor::TaskType::Writer, "Flusher", owner, /*max_expected_ms=*/1000),
      engine_(engine),
      vbuckets_(vbuckets),
      store_(store),
      clock_(clock),
      snapshot_(vbuckets.size()),
      stored_(vbuckets.size()) {}

void Flusher::set_persisted_listener(std::function<void()> listener) {
  persisted_listener_ = std::move(listener);
}

bool Flusher::run() {
  const int64_t now = clock_.steady_ms();
  if (now < retry_at_ms_) {
    snooze(static_cast<double>(retry_at_ms_ - now) / 1000.0);
    return true;
  }
  if (!flush_once()) {
    retry_at_ms_ = now + static_cast<int64_t>(kRetrySeconds * 1000);
    snooze(kRetrySeconds);
    return true;
  }
  // Writers that queued during this run woke the task already; this also covers a change
  // queued between the take and the wake being applied. A change numbered since the high
  // seqnos were read may have sent no wake, and is not reported persisted yet: see the header.
  snooze(engine_.persistence().dirty_count() > 0 || numbered_since_read() ? 0 : executor::kForever);
  return true;
}

bool Flusher::numbered_since_read() const {
  for (size_t id = 0; id < vbuckets_.size(); ++id) {
    if (vbuckets_[id].high_seqno() > snapshot_[id]) return true;
  }
  return false;
}

void Flusher::flush_all() {
  int refused = 0;
  while (true) {
    if (!flush_once()) {
      if (++refused == kExitAttempts) {
        throw storage::StoreError("the store refused " + std::to_string(kExitAttempts) +
                                  " batches in a row; " + std::to_string(batch_.size()) +
                                  " changes are not on disk");
      }
      continue;
    }
    refused = 0;
    if (engine_.persistence().dirty_count() == 0) return;
  }
}

void Flusher::write_batch() {
  if (clearing_for_ != 0) {
    store_.clear_and_write(records_, seqnos_);
    return;
  }
  if (!fsync_per_write_.load(std::memory_order_relaxed)) {
    store_.write(records_, seqnos_);
    return;
  }
  // Each write carries its vbucket's seqno for the batch, which covers its record, so that
  // a crash between two writes still never lets a restart reuse a seqno already on disk; the
  // last carries them all.
  for (size_t i = 0; i < records_.size(); ++i) {
    const storage::Record& record = records_[i];
    std::span<const storage::VBucketSeqno> seqnos = seqnos_;
    storage::VBucketSeqno own;
    if (i + 1 < records_.size()) {
      // A vbucket out of range has no seqno; the store refuses its record anyway.
      const bool known = record.vbucket < stored_.size();
      if (known) own = {record.vbucket, stored_[record.vbucket]};
      seqnos = std::span(&own, known ? 1 : 0);
    }
    store_.write(std::span(&record, 1), seqnos);
  }
}

bool Flusher::advance_persisted_seqnos() {
  bool advanced = false;
  for (size_t id = 0; id < vbuckets_.size(); ++id) {
    if (snapshot_[id] > vbuckets_[id].persisted_seqno()) {
      vbuckets_[id].set_persisted_seqno(snapshot_[id]);
      advanced = true;
    }
  }
  return advanced;
}

void Flusher::drop_refused_before_flush(size_t refused) {
  // The durable writes pending among what the store refused survive the flush, and the take
  // gave them back: those stay queued (they are the same items), so that one leaving the
  // index before it is written is charged as held. The rest is done with.
  std::unordered_set<const Item*> taken_again;
  for (size_t i = refused; i < batch_.size(); ++i) taken_again.insert(batch_[i].get());
  std::vector<ItemPtr> dropped;
  for (size_t i = 0; i < refused; ++i) {
    if (!taken_again.contains(batch_[i].get())) dropped.push_back(std::move(batch_[i]));
  }
  engine_.persistence().flushed(dropped);
  batch_.erase(batch_.begin(), batch_.begin() + static_cast<ptrdiff_t>(refused));
}

bool Flusher::flush_once() {
  // Read before the take: see the header for why this makes the persisted seqnos exact.
  for (size_t id = 0; id < vbuckets_.size(); ++id) snapshot_[id] = vbuckets_[id].high_seqno();
  const size_t refused_before = batch_.size();
  if (const uint64_t flush = engine_.persistence().take_dirty(batch_); flush != 0) {
    drop_refused_before_flush(refused_before);
    clearing_for_ = flush;
  }
  todo_.store(batch_.size(), std::memory_order_relaxed);
  // Nothing queued: every change numbered up to the snapshot is already on disk (an earlier
  // batch took it, possibly one that read its snapshot just before the change was numbered),
  // so the persisted seqnos may still move up to it, and a durable write waiting on them
  // completes now rather than at the next write.
  if (batch_.empty() && clearing_for_ == 0) {
    if (advance_persisted_seqnos() && persisted_listener_) persisted_listener_();
    return true;
  }

  std::copy(snapshot_.begin(), snapshot_.end(), stored_.begin());
  records_.clear();
  records_.reserve(batch_.size());
  for (const ItemPtr& item : batch_) {
    records_.push_back(record_of_item(engine_, *item));
    if (item->vbucket < stored_.size()) {
      stored_[item->vbucket] = std::max(stored_[item->vbucket], item->seqno);
    }
  }
  seqnos_.clear();
  for (size_t id = 0; id < vbuckets_.size(); ++id) {
    if (stored_[id] > vbuckets_[id].persisted_seqno()) {
      seqnos_.push_back({static_cast<uint16_t>(id), stored_[id]});
    }
  }

  try {
    write_batch();
  } catch (const storage::StoreError& e) {
    failures_.fetch_add(1, std::memory_order_relaxed);
    spdlog::error("flusher: the store refused a batch of {} changes ({}); they stay queued "
                  "in memory and are retried",
                  batch_.size(), e.what());
    return false;
  }

  advance_persisted_seqnos();
  if (clearing_for_ != 0) {
    flushes_on_disk_.store(clearing_for_, std::memory_order_release);
    clearing_for_ = 0;
  }
  total_persisted_.fetch_add(batch_.size(), std::memory_order_relaxed);
  batches_.fetch_add(1, std::memory_order_relaxed);
  todo_.store(0, std::memory_order_relaxed);
  engine_.persistence().flushed(batch_);
  batch_.clear();
  records_.clear();
  if (persisted_listener_) persisted_listener_();
  return true;
}

}  // namespace tern::engine
