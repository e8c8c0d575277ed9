// What a range-scan create costs ternd in memory: taking one vbucket's keys of a collection, in
// key order (scan::take_key_snapshot), from a bucket of N documents spread over the 1024
// vbuckets as the SDKs spread them.
//
// - OneVBucket: this tree's create, which reads the vbucket's own shard of the engine.
// - WholeBucketPass: what a create cost before the engine kept a shard per vbucket, whenever
//   the cached key index could not serve it (scan/key_index.cc, removed with the change: any
//   write to the vbucket since the index was built, a durable write pending, or an index older
//   than 10 s): one pass over every document of the bucket, each key of the collection copied
//   into its vbucket's list, and every list sorted. With the index fresh, 1024 creates shared
//   one such pass.
//
// - OneVBucketBesideASpreadOne and SpreadVBucket: the same bucket after one more document is
//   filed under vbucket 0 while its key's CRC names another (what a memcached client's write
//   to an ephemeral bucket does). vbucket 0's documents may then lie in any shard, so its
//   create visits every shard (SpreadVBucket); vbucket 700's still reads its own shard.
//
// All run in the same binary on the same bucket, so their ratios are same-run ones.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "cluster/vbucket_of.h"
#include "engine/bucket.h"
#include "engine/collection_key.h"
#include "scan/key_snapshot.h"

namespace {

using namespace tern;

constexpr uint16_t kScannedVBucket = 700;

// An ephemeral bucket holding `documents` documents "doc-N" of 100 bytes in _default, each
// filed under its key's vbucket.
std::unique_ptr<engine::Bucket> make_bucket(int64_t documents) {
  auto bucket = std::make_unique<engine::Bucket>(
      "bench", engine::Config{.memory_quota_bytes = size_t{8} << 30},
      cluster::CollectionsManifest::default_only(), 1);
  const std::string value(100, 'v');
  for (int64_t d = 0; d < documents; ++d) {
    const std::string key = "doc-" + std::to_string(d);
    engine::VBucket* vbucket = bucket->vbucket(engine::vbucket_of_key(key));
    bucket->documents().store(engine::StoreMode::Set, key, value, 0, 0, 0, 0, {.vbucket = vbucket});
  }
  return bucket;
}

scan::ScanConfig whole_collection() {
  scan::ScanConfig config;
  config.end.key = "\xff";  // _default (collection 0), every key
  return config;
}

// Times one create: `vbucket`'s keys of the whole collection, taken from `bucket`.
void time_create(benchmark::State& state, engine::Bucket& bucket, uint16_t vbucket) {
  const scan::ScanConfig config = whole_collection();
  size_t keys = 0;
  for (auto _ : state) {
    const scan::KeySnapshot snapshot =
        scan::take_key_snapshot(bucket.documents(), nullptr, vbucket, config, 0);
    keys = snapshot.keys.size();
    benchmark::DoNotOptimize(snapshot.keys.data());
  }
  state.counters["keys"] = static_cast<double>(keys);
}

void OneVBucket(benchmark::State& state) {
  time_create(state, *make_bucket(state.range(0)), kScannedVBucket);
}

// `bucket` after a document filed under vbucket 0 whose key's CRC names another vbucket.
void file_one_away_from_its_shard(engine::Bucket& bucket) {
  std::string key = "plain-0";
  for (int i = 1; engine::vbucket_of_key(key) == 0; ++i) key = "plain-" + std::to_string(i);
  bucket.documents().store(engine::StoreMode::Set, key, "v", 0, 0, 0, 0,
                           {.vbucket = bucket.vbucket(0)});
}

void create_after_a_spread(benchmark::State& state, uint16_t vbucket) {
  const auto bucket = make_bucket(state.range(0));
  file_one_away_from_its_shard(*bucket);
  time_create(state, *bucket, vbucket);
}

void OneVBucketBesideASpreadOne(benchmark::State& state) {
  create_after_a_spread(state, kScannedVBucket);
}

void SpreadVBucket(benchmark::State& state) { create_after_a_spread(state, 0); }

void WholeBucketPass(benchmark::State& state) {
  const auto bucket = make_bucket(state.range(0));
  const scan::ScanConfig config = whole_collection();
  size_t keys = 0;
  for (auto _ : state) {
    auto by_vbucket = std::make_unique<std::array<std::vector<std::string>, 1024>>();
    bucket->documents().for_each_live_item([&](const engine::Item& item) {
      if (engine::collection_of_key(item.key()) != config.collection_id) return;
      (*by_vbucket)[item.vbucket].emplace_back(item.key());
    });
    for (std::vector<std::string>& list : *by_vbucket) std::sort(list.begin(), list.end());
    keys = (*by_vbucket)[kScannedVBucket].size();
    benchmark::DoNotOptimize(by_vbucket->data());
  }
  state.counters["keys"] = static_cast<double>(keys);
}

BENCHMARK(OneVBucket)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(OneVBucketBesideASpreadOne)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(SpreadVBucket)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(WholeBucketPass)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
