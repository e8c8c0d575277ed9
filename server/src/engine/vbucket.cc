#include "engine/vbucket.h"

namespace tern::engine {

void VBucket::set_state(cluster::VBucketState state, uint64_t new_uuid) {
  const cluster::VBucketState old = state_.exchange(state, std::memory_order_acq_rel);
  if (state == cluster::VBucketState::Active && old != cluster::VBucketState::Active) {
    uuid_.store(new_uuid, std::memory_order_release);
  }
}

}  // namespace tern::engine
