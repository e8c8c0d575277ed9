#pragma once
// One bucket as the cluster manager describes it: what GET /pools/default/buckets lists and
// the SDKs' bucket managers parse (couchbase-cxx-client bucket_settings_json.hxx).

#include <httplib.h>

#include "config/file_config.h"
#include "engine/bucket.h"
#include "http/mgmt_context.h"
#include "http/node_json.h"
#include "http/ops_rate.h"

namespace tern::http {

void write_bucket(JsonWriter& out, const config::BucketSpec& settings, engine::Bucket& bucket,
                  double ops_per_sec, const httplib::Request& req, const MgmtContext& context);

// The operations a bucket has served, summed from its engine's counters.
uint64_t total_ops(const engine::Stats& stats);

}  // namespace tern::http
