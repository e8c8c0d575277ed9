#pragma once
// The node's range scans between their create and their end, by id. A scan belongs to the
// bucket it was created on and answers only there; one continue runs at a time. Scans cost
// memory (their keys) until they end, so a bucket holds at most Limits::max_per_bucket (a
// create beyond that is refused), and a scan that no continue has used for
// Limits::idle_ms is cancelled by reap_idle(), which a task on the executor pool calls
// (ScanReaper). Thread-safe.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

#include "common/clock.h"
#include "common/mutex.h"
#include "scan/range_scan.h"

namespace tern::scan {

struct RegistryLimits {
  size_t max_per_bucket = 128;  // kv_engine's default
  int64_t idle_ms = 60 * 1000;  // a scan not continued for this long is cancelled
};

class ScanRegistry {
 public:
  ScanRegistry(const Clock& clock, RegistryLimits limits);

  const RegistryLimits& limits() const { return limits_; }
  const Clock& clock() const { return clock_; }

  // Whether `bucket` may have one more scan now (a create checks before it takes its keys,
  // and add() checks again).
  bool has_room(const void* bucket) const;

  // Registers a scan of `bucket` (an identity only: never dereferenced) under a new random
  // id, which it returns; nullopt when the bucket is at its limit.
  std::optional<ScanId> add(const void* bucket, uint16_t vbucket, bool key_only,
                            std::vector<std::string> keys);

  enum class Claim { Claimed, Unknown, Busy, Cancelled };
  // For a continue: the scan `id` of `bucket` on `vbucket`, marked busy until release(). Unknown
  // when there is none there; Busy when a continue is running; Cancelled (and removed) when
  // it was cancelled while idle.
  std::shared_ptr<RangeScan> claim(const ScanId& id, const void* bucket, uint16_t vbucket,
                                   Claim& why);
  // Ends a continue: removes the scan if it is complete or was cancelled, else marks it idle
  // (its idle time starts now).
  void release(const std::shared_ptr<RangeScan>& scan);

  // Cancels the scan `id` of `bucket` on `vbucket`: an idle one goes at once, a busy one
  // when its continue ends (answering RangeScanCancelled). False when there is none.
  bool cancel(const ScanId& id, const void* bucket, uint16_t vbucket);

  // Cancels and removes the idle scans unused for longer than Limits::idle_ms; returns how
  // many went.
  size_t reap_idle();

  // Cancels and removes every scan of `bucket` (the bucket is going away).
  void drop_bucket(const void* bucket);

  size_t size() const;

 private:
  struct Entry {
    std::shared_ptr<RangeScan> scan;
    const void* bucket = nullptr;
    bool busy = false;
    int64_t idle_since_ms = 0;
  };
  size_t count_of(const void* bucket) const TERN_REQUIRES(mutex_);

  const Clock& clock_;
  const RegistryLimits limits_;
  mutable Mutex mutex_;
  std::map<ScanId, Entry> scans_ TERN_GUARDED_BY(mutex_);
};

}  // namespace tern::scan
