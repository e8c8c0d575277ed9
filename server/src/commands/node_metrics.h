#pragma once
// The node's statistics as the two views show them: a bucket's for STAT's general group, and
// everything for GET /metrics. Each scrape walks the node's buckets as they are now (buckets
// come and go at run time), one at a time: no lock is held across the node or an engine (an
// engine's shards are read one after another, each under its own lock, briefly).

#include <span>
#include <string>

#include "commands/dispatcher.h"
#include "commands/node.h"
#include "engine/bucket.h"
#include "metrics/collector.h"

namespace tern::commands {

// The bucket's statistics: its documents', its persistence's (a persistent bucket), then for
// a view that wants them (Prometheus) its commands' latency and results by opcode, and its
// collections' operations (labels scope= and collection=).
void collect_bucket(engine::Bucket& bucket, metrics::Collector& collector);

// Everything: each bucket's statistics labelled bucket="<name>", then the providers' general
// group (connections, traffic, executor tasks), in the Prometheus text format 0.0.4
// (metrics::kPrometheusContentType). Thread-safe; callable while buckets are added and dropped.
std::string render_prometheus(const Node& node, std::span<StatProvider* const> providers);

}  // namespace tern::commands
