#include "commands/node_metrics.h"

#include "commands/command_results.h"
#include "metrics/prometheus_view.h"
#include "metrics/stats.h"
#include "protocol/opcode.h"

namespace tern::commands {

namespace {

namespace stat = metrics::stat;

void collect_commands(const metrics::CommandStats& commands, metrics::Collector& collector) {
  for (size_t op = 0; op < 256; ++op) {
    const metrics::LatencyHistogram* histogram = commands.opcode(static_cast<uint8_t>(op));
    if (histogram == nullptr) continue;
    const metrics::HistogramSnapshot snapshot = histogram->snapshot();
    metrics::LabelScope opcode(
        collector, "opcode", std::string(protocol::opcode_name(static_cast<protocol::Opcode>(op))));
    collector.add_histogram(stat::cmd_duration, snapshot);
    for (size_t r = 0; r < kCommandResults; ++r) {
      if (snapshot.outcomes[r] == 0) continue;
      metrics::LabelScope result(collector, "result",
                                 std::string(command_result_name(static_cast<CommandResult>(r))));
      collector.add(stat::cmd_results, snapshot.outcomes[r]);
    }
  }
}

void collect_collections(engine::Bucket& bucket, metrics::Collector& collector) {
  const metrics::CommandStats& commands = bucket.command_stats();
  const cluster::CollectionsManifest& manifest = bucket.manifest();  // read once: it may change
  for (const cluster::Scope& scope : manifest.scopes()) {
    metrics::LabelScope scope_label(collector, "scope", scope.name);
    for (const cluster::Collection& collection : scope.collections) {
      metrics::LabelScope collection_label(collector, "collection", collection.name);
      collector.add(stat::collection_ops_get,
                    commands.collection_ops(collection.id, metrics::CollectionOp::Get));
      collector.add(stat::collection_ops_store,
                    commands.collection_ops(collection.id, metrics::CollectionOp::Store));
      collector.add(stat::collection_ops_delete,
                    commands.collection_ops(collection.id, metrics::CollectionOp::Delete));
    }
  }
}

}  // namespace

void collect_bucket(engine::Bucket& bucket, metrics::Collector& collector) {
  bucket.documents().stats().for_each(
      [&collector](const metrics::StatDef& def, uint64_t value) { collector.add(def, value); });
  if (const engine::Persistence* persistence = bucket.persistence())
    persistence->collect(collector);
  if (collector.wants(stat::cmd_duration)) collect_commands(bucket.command_stats(), collector);
  if (collector.wants(stat::collection_ops_get)) collect_collections(bucket, collector);
}

std::string render_prometheus(const Node& node, std::span<StatProvider* const> providers) {
  metrics::PrometheusView view;
  for (const auto& bucket : node.buckets()) {  // a copy: buckets come and go meanwhile
    metrics::LabelScope label(view, "bucket", bucket->name());
    collect_bucket(*bucket, view);
  }
  for (StatProvider* provider : providers) provider->collect("", view);
  return view.text();
}

}  // namespace tern::commands
