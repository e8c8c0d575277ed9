#include "scan/scan_registry.h"

#include <openssl/rand.h>

#include <stdexcept>

namespace tern::scan {

ScanRegistry::ScanRegistry(const Clock& clock, RegistryLimits limits)
    : clock_(clock), limits_(limits) {}

size_t ScanRegistry::count_of(const void* bucket) const {
  size_t count = 0;
  for (const auto& [id, entry] : scans_) count += entry.bucket == bucket ? 1 : 0;
  return count;
}

bool ScanRegistry::has_room(const void* bucket) const {
  MutexLock lock(mutex_);
  return count_of(bucket) < limits_.max_per_bucket;
}

std::optional<ScanId> ScanRegistry::add(const void* bucket, uint16_t vbucket, bool key_only,
                                        std::vector<std::string> keys) {
  MutexLock lock(mutex_);
  if (count_of(bucket) >= limits_.max_per_bucket) return std::nullopt;
  ScanId id;
  do {
    if (RAND_bytes(id.data(), static_cast<int>(id.size())) != 1) {
      throw std::runtime_error("no random bytes for a range scan's id");
    }
  } while (scans_.contains(id));
  scans_.emplace(id,
                 Entry{.scan = std::make_shared<RangeScan>(id, vbucket, key_only, std::move(keys)),
                       .bucket = bucket,
                       .busy = false,
                       .idle_since_ms = clock_.steady_ms()});
  return id;
}

std::shared_ptr<RangeScan> ScanRegistry::claim(const ScanId& id, const void* bucket,
                                               uint16_t vbucket, Claim& why) {
  MutexLock lock(mutex_);
  const auto found = scans_.find(id);
  if (found == scans_.end() || found->second.bucket != bucket ||
      found->second.scan->vbucket() != vbucket) {
    why = Claim::Unknown;
    return nullptr;
  }
  Entry& entry = found->second;
  if (entry.busy) {
    why = Claim::Busy;
    return nullptr;
  }
  if (entry.scan->cancelled()) {
    scans_.erase(found);
    why = Claim::Cancelled;
    return nullptr;
  }
  entry.busy = true;
  why = Claim::Claimed;
  return entry.scan;
}

void ScanRegistry::release(const std::shared_ptr<RangeScan>& scan) {
  MutexLock lock(mutex_);
  const auto found = scans_.find(scan->id());
  if (found == scans_.end()) return;
  if (scan->complete() || scan->cancelled()) {
    scans_.erase(found);
    return;
  }
  found->second.busy = false;
  found->second.idle_since_ms = clock_.steady_ms();
}

bool ScanRegistry::cancel(const ScanId& id, const void* bucket, uint16_t vbucket) {
  MutexLock lock(mutex_);
  const auto found = scans_.find(id);
  if (found == scans_.end() || found->second.bucket != bucket ||
      found->second.scan->vbucket() != vbucket) {
    return false;
  }
  found->second.scan->cancel();
  if (!found->second.busy) scans_.erase(found);
  return true;
}

size_t ScanRegistry::reap_idle() {
  MutexLock lock(mutex_);
  const int64_t now = clock_.steady_ms();
  return std::erase_if(scans_, [&](const auto& pair) {
    const Entry& entry = pair.second;
    if (entry.busy || now - entry.idle_since_ms <= limits_.idle_ms) return false;
    entry.scan->cancel();
    return true;
  });
}

void ScanRegistry::drop_bucket(const void* bucket) {
  MutexLock lock(mutex_);
  std::erase_if(scans_, [&](const auto& pair) {
    if (pair.second.bucket != bucket) return false;
    pair.second.scan->cancel();
    return true;
  });
}

size_t ScanRegistry::size() const {
  MutexLock lock(mutex_);
  return scans_.size();
}

}  // namespace tern::scan
