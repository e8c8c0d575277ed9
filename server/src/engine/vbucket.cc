#include "engine/vbucket.h"

namespace tern::engine {

bool VBucket::set_state(cluster::VBucketState state, uint64_t new_uuid) {
  const cluster::VBucketState old = state_.exchange(state, std::memory_order_acq_rel);
  if (state != cluster::VBucketState::Active || old == cluster::VBucketState::Active) return false;
  add_failover_entry(new_uuid);
  return true;
}

FailoverLog VBucket::failover_log() const {
  MutexLock lock(failover_mutex_);
  return failover_log_;
}

void VBucket::restore_failover_log(FailoverLog log) {
  MutexLock lock(failover_mutex_);
  failover_log_ = std::move(log);
  uuid_.store(failover_log_.uuid(), std::memory_order_release);
}

void VBucket::add_failover_entry(uint64_t new_uuid) {
  MutexLock lock(failover_mutex_);
  failover_log_.add(new_uuid, high_seqno());
  uuid_.store(new_uuid, std::memory_order_release);
}

}  // namespace tern::engine
