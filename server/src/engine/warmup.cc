#include "engine/warmup.h"

#include <spdlog/spdlog.h>

#include "engine/failover_logs_on_disk.h"
#include "engine/persistence_hooks.h"
#include "engine/record_item.h"

namespace tern::engine {

std::string_view warmup_state_name(WarmupState state) {
  switch (state) {
    case WarmupState::Initialize: return "initialize";
    case WarmupState::LoadingData: return "loading data";
    case WarmupState::Done: return "done";
  }
  return "unknown";
}

Warmup::Warmup(Engine& engine, std::span<VBucket> vbuckets, storage::Store& store,
               executor::OwnerId owner, const Clock& clock)
    // One run loads the whole bucket: minutes for a large one are expected, not a stall.
    : Task(executor::TaskType::Reader, "Warmup", owner, /*max_expected_ms=*/10 * 60 * 1000),
      engine_(engine),
      vbuckets_(vbuckets),
      store_(store),
      clock_(clock) {}

bool Warmup::load() {
  for (const storage::VBucketSeqno& stored : store_.high_seqnos()) {
    if (stored.vbucket < vbuckets_.size()) vbuckets_[stored.vbucket].restore_seqno(stored.seqno);
  }
  engine_.persistence().size_key_filters(store_.estimated_records());
  bool full = false;
  bool cancelled = false;
  store_.scan([&](const storage::Record& record) {
    // Task::state(), not the warmup's: a cancel marks the task dead while it runs.
    if (Task::state() == executor::TaskState::Dead) {
      cancelled = true;
      return false;
    }
    // Loaded or not, the record's CAS was issued: none after the restart may repeat it.
    engine_.persistence().raise_cas_floor(record.cas);
    if (record.vbucket >= vbuckets_.size()) {
      skipped_.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    // A seqno on disk is never handed out again, even one past the stored high seqno.
    VBucket& vbucket = vbuckets_[record.vbucket];
    if (record.seqno > vbucket.high_seqno()) vbucket.restore_seqno(record.seqno);
    // Past the quota the rest is only counted, so the log can say exactly what stayed out.
    const PersistenceHooks::Restored restored =
        full ? PersistenceHooks::Restored::Full
             : engine_.persistence().restore(record, expiry_ms_of_record(engine_, record));
    switch (restored) {
      case PersistenceHooks::Restored::Value:
        loaded_.fetch_add(1, std::memory_order_relaxed);
        keys_.fetch_add(1, std::memory_order_relaxed);
        break;
      case PersistenceHooks::Restored::Metadata:
        keys_.fetch_add(1, std::memory_order_relaxed);
        break;
      case PersistenceHooks::Restored::Skipped:
        break;
      case PersistenceHooks::Restored::OnDiskOnly:
        on_disk_only_.fetch_add(1, std::memory_order_relaxed);
        break;
      case PersistenceHooks::Restored::Full:
        full = true;
        skipped_.fetch_add(1, std::memory_order_relaxed);
        break;
    }
    return true;
  });
  if (cancelled) return false;
  restore_failover_logs(store_, vbuckets_);  // once the high seqnos are all known
  return true;
}

bool Warmup::run() {
  const int64_t start = clock_.steady_ms();
  state_.store(WarmupState::LoadingData, std::memory_order_release);
  try {
    if (!load()) {
      spdlog::info("warmup: cancelled after {} keys; the bucket stays unavailable", loaded_keys());
      return false;
    }
  } catch (const storage::StoreError& e) {
    spdlog::error("warmup: the store could not be read after {} keys ({}); the bucket "
                  "stays unavailable (Etmpfail) rather than serve part of its data",
                  loaded_keys(), e.what());
    return false;
  }
  const int64_t duration = clock_.steady_ms() - start;
  duration_ms_.store(duration, std::memory_order_relaxed);
  const uint64_t keys = loaded_keys();
  if (skipped() > 0) {
    spdlog::warn("warmup: the memory quota is full even for metadata: {} keys loaded, {} "
                 "more documents and tombstones stay on disk only and read as missing",
                 keys, skipped());
  }
  spdlog::info("warmup: done in {} ms: {} keys loaded ({:.0f} per second), {} of them with "
               "their values, {} left on disk only; what is not in memory is fetched from "
               "disk when read",
               duration, keys, duration > 0 ? keys * 1000.0 / duration : 0.0, loaded_values(),
               on_disk_only());
  state_.store(WarmupState::Done, std::memory_order_release);
  if (done_listener_) done_listener_();
  return false;
}

}  // namespace tern::engine
