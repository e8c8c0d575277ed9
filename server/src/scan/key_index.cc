#include "scan/key_index.h"

#include <algorithm>

#include "engine/collection_key.h"
#include "engine/persistence_hooks.h"

namespace tern::scan {

KeyIndex::KeyIndex(engine::Bucket& bucket, uint32_t collection_id, int64_t built_ms)
    : built_ms_(built_ms) {
  engine::Engine& engine = bucket.documents();
  reusable_ = engine.persistence().prepared_count() == 0;
  // Before the pass: a change the pass misses then moves its vbucket's seqno past these.
  for (uint16_t vb = 0; vb < cluster::kVBucketCount; ++vb) {
    const engine::VBucket* vbucket = bucket.vbucket(vb);
    high_seqnos_[vb] = vbucket != nullptr ? vbucket->high_seqno() : 0;
  }
  engine.for_each_live_item([&](const engine::Item& item) {
    if (item.vbucket >= cluster::kVBucketCount ||
        engine::collection_of_key(item.key()) != collection_id) {
      return;
    }
    by_vbucket_[item.vbucket].push_back({std::string(item.key()), item.seqno});
  });
  for (std::vector<Key>& keys : by_vbucket_) {
    std::sort(keys.begin(), keys.end(),
              [](const Key& a, const Key& b) { return a.stored < b.stored; });
  }
}

bool KeyIndex::current(engine::Bucket& bucket, uint16_t vbucket) const {
  const engine::VBucket* state = bucket.vbucket(vbucket);
  return state != nullptr && state->high_seqno() == high_seqnos_[vbucket];
}

std::shared_ptr<const KeyIndex> KeyIndexCache::index_for(engine::Bucket& bucket,
                                                         uint32_t collection_id,
                                                         uint16_t vbucket) {
  const auto key = std::make_pair(static_cast<const void*>(&bucket), collection_id);
  const int64_t now = clock_.steady_ms();
  {
    std::lock_guard lock(mutex_);
    const auto found = indexes_.find(key);
    if (found != indexes_.end() && now - found->second->built_ms() <= kMaxAgeMs &&
        found->second->current(bucket, vbucket)) {
      return found->second;
    }
  }
  // The pass runs without the lock: other buckets' creates go on meanwhile.
  auto built = std::make_shared<const KeyIndex>(bucket, collection_id, now);
  std::lock_guard lock(mutex_);
  if (built->reusable()) {
    indexes_[key] = built;
  } else {
    indexes_.erase(key);
  }
  return built;
}

void KeyIndexCache::drop_old() {
  const int64_t now = clock_.steady_ms();
  std::lock_guard lock(mutex_);
  std::erase_if(indexes_, [&](const auto& pair) {
    return now - pair.second->built_ms() > kMaxAgeMs;
  });
}

void KeyIndexCache::drop_bucket(const void* bucket) {
  std::lock_guard lock(mutex_);
  std::erase_if(indexes_, [&](const auto& pair) { return pair.first.first == bucket; });
}

size_t KeyIndexCache::size() const {
  std::lock_guard lock(mutex_);
  return indexes_.size();
}

}  // namespace tern::scan
