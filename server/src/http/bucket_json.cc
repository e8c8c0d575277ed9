#include "http/bucket_json.h"

#include <fmt/format.h>

#include <string>

#include "cluster/cluster_map.h"
#include "http/bucket_form.h"

namespace tern::http {

namespace {

void write_string(JsonWriter& out, std::string_view text) {
  out.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void write_basic_stats(JsonWriter& out, const engine::Stats& stats, double ops_per_sec) {
  out.Key("basicStats");
  out.StartObject();
  out.Key("itemCount");
  out.Uint64(stats.curr_items);
  out.Key("memUsed");
  out.Uint64(stats.mem_used);
  out.Key("quotaPercentUsed");
  out.Double(stats.mem_quota == 0 ? 0.0 : 100.0 * stats.mem_used / stats.mem_quota);
  out.Key("opsPerSec");
  out.Double(ops_per_sec);
  out.EndObject();
}

}  // namespace

uint64_t total_ops(const engine::Stats& stats) {
  return stats.cmd_get + stats.cmd_set + stats.cmd_touch + stats.delete_hits + stats.delete_misses +
         stats.incr_hits + stats.incr_misses + stats.decr_hits + stats.decr_misses;
}

void write_bucket(JsonWriter& out, const config::BucketSpec& settings, engine::Bucket& bucket,
                  double ops_per_sec, const httplib::Request& req, const MgmtContext& context) {
  const std::string uri = "/pools/default/buckets/" + settings.name;
  out.StartObject();
  out.Key("name");
  write_string(out, settings.name);
  out.Key("uuid");
  write_string(out, bucket.uuid());
  out.Key("uri");
  write_string(out, uri);
  out.Key("bucketType");
  out.String(bucket_type_name(settings.type));
  out.Key("storageBackend");
  out.String("couchstore");
  out.Key("quota");
  out.StartObject();
  out.Key("ram");
  out.Uint64(settings.memory_quota_bytes);
  out.Key("rawRAM");
  out.Uint64(settings.memory_quota_bytes);
  out.EndObject();
  out.Key("replicaNumber");
  out.Uint(0);
  out.Key("replicaIndex");
  out.Bool(false);
  out.Key("evictionPolicy");
  out.String(eviction_policy_name(settings));
  out.Key("maxTTL");
  out.Uint(settings.max_ttl_seconds);
  out.Key("durabilityMinLevel");
  write_string(out, settings.durability_min_level);
  out.Key("conflictResolutionType");
  out.String("seqno");
  out.Key("compressionMode");
  out.String("passive");
  out.Key("numVBuckets");
  out.Uint(cluster::kVBucketCount);
  out.Key("controllers");
  out.StartObject();
  if (settings.flush_enabled) {
    out.Key("flush");
    write_string(out, uri + "/controller/doFlush");
  }
  out.EndObject();
  out.Key("bucketCapabilitiesVer");
  out.String("");
  out.Key("bucketCapabilities");
  out.StartArray();
  for (std::string_view capability : cluster::bucket_capabilities(true)) {
    write_string(out, capability);
  }
  out.EndArray();
  out.Key("collectionsManifestUid");
  write_string(out, fmt::format("{:x}", bucket.manifest().uid()));
  write_basic_stats(out, bucket.documents().stats(), ops_per_sec);
  out.Key("nodes");
  out.StartArray();
  write_node(out, req, context);
  out.EndArray();
  out.EndObject();
}

}  // namespace tern::http
