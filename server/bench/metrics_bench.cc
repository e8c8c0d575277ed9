// What one GET /metrics costs the server: commands::render_prometheus() over a node of 10
// buckets with 10 collections each (the case), every bucket holding documents and
// having seen traffic on 8 opcodes (so each has 8 latency histograms to show), plus the
// server's own statistics. The HTTP layer's share (parsing the request, sending the text) is
// not in it: bench-server's scraper runs measure the whole.
//
// Also the cost the metrics add to each request: one histogram record (what the dispatcher
// does per answered request) and one collection count.

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "commands/node.h"
#include "commands/node_metrics.h"
#include "metrics/command_stats.h"
#include "net/server_stats.h"

namespace {

using namespace tern;

constexpr int kBuckets = 10;
constexpr int kCollectionsPerBucket = 10;  // _default, and 9 in scope "app"
constexpr int kDocumentsPerBucket = 1000;

std::unique_ptr<commands::Node> make_node() {
  std::vector<cluster::Collection> app;
  for (int c = 1; c < kCollectionsPerBucket; ++c) {
    app.push_back({.name = "c" + std::to_string(c), .id = static_cast<uint32_t>(7 + c)});
  }
  const cluster::CollectionsManifest manifest(
      kCollectionsPerBucket, {{"_default", 0, {{"_default", 0}}}, {"app", 8, app}});
  std::vector<std::unique_ptr<engine::Bucket>> buckets;
  for (int b = 0; b < kBuckets; ++b) {
    auto bucket = std::make_unique<engine::Bucket>("bucket-" + std::to_string(b), engine::Config{},
                                                   manifest, b + 1);
    for (int d = 0; d < kDocumentsPerBucket; ++d) {
      bucket->documents().store(engine::StoreMode::Set, "key-" + std::to_string(d), "value", 0, 0,
                                0, 0);
    }
    metrics::CommandStats& commands = bucket->command_stats();
    for (uint8_t opcode : {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x1d, 0xd0}) {
      for (uint64_t ns = 300; ns < 10'000'000; ns *= 2) commands.record(opcode, ns, 0);
    }
    for (uint32_t id = 8; id < 8 + kCollectionsPerBucket - 1; ++id) {
      commands.count_collection_op(id, metrics::CollectionOp::Get);
    }
    buckets.push_back(std::move(bucket));
  }
  return std::make_unique<commands::Node>(commands::NodeSettings{}, std::move(buckets),
                                          auth::UserDirectory{});
}

void BM_Scrape10Buckets10Collections(benchmark::State& state) {
  const std::unique_ptr<commands::Node> node = make_node();
  net::ServerStats server("bench", 2);
  commands::StatProvider* providers[] = {&server};
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = commands::render_prometheus(*node, providers);
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["text_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Scrape10Buckets10Collections)->Unit(benchmark::kMicrosecond);

// The dispatcher's per-request work for the metrics: one histogram record and one collection
// count, from `threads` threads at once on one bucket's statistics.
void BM_RecordCommand(benchmark::State& state) {
  static metrics::CommandStats commands;
  uint64_t ns = 700;
  for (auto _ : state) {
    commands.record(0x00, ns, 0);
    commands.count_collection_op(8, metrics::CollectionOp::Get);
    ns = ns * 7 % 100'000 + 300;
  }
}
BENCHMARK(BM_RecordCommand)->Threads(1)->Threads(2);

}  // namespace

BENCHMARK_MAIN();
