#include "scan/key_snapshot.h"

#include <algorithm>
#include <random>

#include "engine/collection_key.h"
#include "engine/persistence_hooks.h"

namespace tern::scan {
namespace {

// Adds the keys on disk that memory knows nothing of (full eviction).
void add_keys_on_disk(engine::Engine& engine, storage::Store& store, uint16_t vbucket,
                      const ScanConfig& config, int64_t now, KeySnapshot& out) {
  const std::string first = engine::stored_key_of(config.collection_id, config.start.key);
  // The collection's key ranges hold its keys only: what is left to check is the range.
  for (storage::KeyRange range : engine::collection_key_ranges(config.collection_id)) {
    if (!config.sampling() && first > range.begin) range.begin = first;
    store.scan_vbucket(vbucket, range, [&](const storage::Record& record) {
      const std::optional<std::string_view> logical = engine::logical_key_of(record.key);
      // Past the range's end: the rest of this key range is too.
      if (logical && !config.sampling() && *logical > config.end.key) return false;
      if (!logical || !config.in_range(*logical) || record.deleted ||
          (record.expiry != 0 && record.expiry <= now) ||
          !engine.persistence().on_disk_only(record.key)) {
        return true;
      }
      if (config.snapshot && record.seqno == config.snapshot->seqno) {
        out.required_seqno_found = true;
      }
      out.keys.emplace_back(record.key);
      return true;
    });
  }
}

}  // namespace

KeySnapshot take_key_snapshot(engine::Engine& engine, storage::Store* store, uint16_t vbucket,
                              const ScanConfig& config, int64_t unix_now_seconds) {
  KeySnapshot out;
  const uint64_t required_seqno = config.snapshot ? config.snapshot->seqno : 0;
  // Within a collection, stored keys sort as their logical keys do.
  const std::string first = config.sampling()
                                ? std::string()
                                : engine::stored_key_of(config.collection_id, config.start.key);
  engine.for_each_live_item_of_vbucket(vbucket, [&](const engine::Item& item) {
    const std::string_view key = item.key();
    if (key < first || engine::collection_of_key(key) != config.collection_id) return;
    const std::optional<std::string_view> logical = engine::logical_key_of(key);
    if (!logical || !config.in_range(*logical)) return;
    if (required_seqno != 0 && item.seqno == required_seqno) out.required_seqno_found = true;
    out.keys.emplace_back(key);
  });
  const bool from_disk = store != nullptr && engine.config().full_eviction;
  if (from_disk) add_keys_on_disk(engine, *store, vbucket, config, unix_now_seconds, out);
  std::sort(out.keys.begin(), out.keys.end());
  // A key fetched back into memory while the disk was read is in both.
  if (from_disk) out.keys.erase(std::unique(out.keys.begin(), out.keys.end()), out.keys.end());
  return out;
}

void draw_sample(std::vector<std::string>& keys, uint64_t samples, uint64_t seed) {
  if (keys.size() <= samples) return;
  // The first `samples` places of a Fisher-Yates shuffle, then back in key order.
  std::mt19937_64 random(seed);
  for (size_t i = 0; i < samples; ++i) {
    std::uniform_int_distribution<size_t> pick(i, keys.size() - 1);
    std::swap(keys[i], keys[pick(random)]);
  }
  keys.resize(samples);
  std::sort(keys.begin(), keys.end());
}

}  // namespace tern::scan
