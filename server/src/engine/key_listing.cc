// The live documents in memory (Engine::for_each_live_item, and its one-vbucket form), and
// the console's listing of a collection's keys built on them (Engine::list_keys).

#include <algorithm>
#include <queue>
#include <string>
#include <vector>

#include "engine/collection_key.h"
#include "engine/engine.h"
#include "engine/engine_impl.h"

namespace tern::engine {

namespace {

// Calls visit(item) with every live document of `shard`, under its lock.
template <class Visit>
void visit_live_items(EngineImpl& impl, Shard& shard, Visit&& visit) {
  MutexLock lock(shard.mutex);
  const int64_t now = impl.clock.steady_ms();
  impl.settle_flush(shard, now);  // what a flush dropped is not live
  for (size_t i = 0; i < shard.table.capacity(); ++i) {
    const Slot& slot = shard.table.at(i);
    if (!slot.item || slot.item->deleted || slot.item->absent ||
        EngineImpl::is_expired(*slot.item, now)) {
      continue;
    }
    visit(*slot.item);
  }
}

}  // namespace

void Engine::for_each_live_item(const std::function<void(const Item& item)>& visit) {
  for (size_t s = 0; s < impl_->shard_count; ++s) visit_live_items(*impl_, impl_->shards[s], visit);
}

void Engine::for_each_live_item_of_vbucket(uint16_t vbucket,
                                           const std::function<void(const Item& item)>& visit) {
  const auto of_vbucket = [&](const Item& item) {
    if (item.vbucket == vbucket) visit(item);  // a folded shard holds other vbuckets' too
  };
  if (impl_->vbucket_spread(vbucket)) {
    for (size_t s = 0; s < impl_->shard_count; ++s) {
      visit_live_items(*impl_, impl_->shards[s], of_vbucket);
    }
    return;
  }
  visit_live_items(*impl_, impl_->shards[vbucket & (impl_->shard_count - 1)], of_vbucket);
}

std::vector<std::string> Engine::list_keys(uint32_t collection_id, std::string_view after,
                                           size_t limit) {
  if (limit == 0) return {};
  // The `limit` smallest keys seen so far, the largest on top: a key is copied only when it
  // beats that one, so a page costs one comparison per key in memory and few copies.
  std::priority_queue<std::string> smallest;
  for_each_live_item([&](const Item& item) {
    const std::string_view key = item.key();
    if (key <= after || collection_of_key(key) != collection_id) return;
    if (smallest.size() == limit) {
      if (key >= smallest.top()) return;
      smallest.pop();
    }
    smallest.emplace(key);
  });
  std::vector<std::string> keys;
  keys.reserve(smallest.size());
  for (; !smallest.empty(); smallest.pop()) keys.push_back(smallest.top());
  std::reverse(keys.begin(), keys.end());
  return keys;
}

}  // namespace tern::engine
