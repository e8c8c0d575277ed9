#include "cluster/cluster_map.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <stdexcept>

namespace tern::cluster {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

bool is_power_of_two(uint64_t n) { return n != 0 && (n & (n - 1)) == 0; }

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

void write_string(Writer& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void write_bucket_capabilities(Writer& writer, bool collections) {
  writer.Key("bucketCapabilitiesVer");
  writer.String("");
  writer.Key("bucketCapabilities");
  writer.StartArray();
  for (std::string_view capability : bucket_capabilities(collections)) {
    write_string(writer, capability);
  }
  writer.EndArray();
}

void write_nodes(Writer& writer, const SingleNodeParams& params) {
  // .NET needs `nodes` as well as `nodesExt`, same count and order.
  writer.Key("nodes");
  writer.StartArray();
  writer.StartObject();
  writer.Key("hostname");
  write_string(writer, "$HOST:" + std::to_string(params.mgmt_port.value_or(8091)));
  writer.Key("ports");
  writer.StartObject();
  writer.Key("direct");
  writer.Uint(params.kv_port);
  writer.EndObject();
  writer.EndObject();
  writer.EndArray();

  // "mgmt" only while the port answers: ping, waitUntilReady and the managers use it.
  writer.Key("nodesExt");
  writer.StartArray();
  writer.StartObject();
  writer.Key("services");
  writer.StartObject();
  writer.Key("kv");
  writer.Uint(params.kv_port);
  if (params.mgmt_port) {
    writer.Key("mgmt");
    writer.Uint(*params.mgmt_port);
  }
  if (params.tls.kv) {
    writer.Key("kvSSL");
    writer.Uint(*params.tls.kv);
  }
  if (params.tls.mgmt) {
    writer.Key("mgmtSSL");
    writer.Uint(*params.tls.mgmt);
  }
  writer.EndObject();
  writer.Key("thisNode");
  writer.Bool(true);
  writer.Key("hostname");
  writer.String("$HOST");
  writer.EndObject();
  writer.EndArray();
}

void write_cluster_capabilities(Writer& writer) {
  writer.Key("clusterCapabilitiesVer");
  writer.StartArray();
  writer.Int(1);
  writer.Int(0);
  writer.EndArray();
  writer.Key("clusterCapabilities");
  writer.StartObject();
  writer.EndObject();
}

void write_vbucket_server_map(Writer& writer, const SingleNodeParams& params) {
  writer.Key("vBucketServerMap");
  writer.StartObject();
  writer.Key("hashAlgorithm");
  writer.String("CRC");
  writer.Key("numReplicas");
  writer.Uint(0);
  writer.Key("serverList");
  writer.StartArray();
  write_string(writer, "$HOST:" + std::to_string(params.kv_port));
  writer.EndArray();
  writer.Key("vBucketMap");
  writer.StartArray();
  for (uint32_t vbucket = 0; vbucket < params.vbucket_count; ++vbucket) {
    writer.StartArray();
    writer.Int(0);
    writer.EndArray();
  }
  writer.EndArray();
  writer.EndObject();
}

// Reads a JSON integer that fits an int64 (rapidjson keeps large unsigned ones apart).
std::optional<int64_t> as_int64(const rapidjson::Value& value) {
  if (value.IsInt64()) return value.GetInt64();
  return std::nullopt;
}

}  // namespace

std::vector<std::string_view> bucket_capabilities(bool collections) {
  // "xattr": extended attributes, sub-document XATTR paths; "subdoc.AccessDeleted": lookups
  // and mutations of a tombstone's XATTRs; "subdoc.ReplicaRead": lookups of a replica's copy
  // (the SDKs' lookupIn*Replica refuse without it; with no replicas they read the active
  // copy); "subdoc.ReplaceBodyWithXattr" (the multi-mutation spec 0xd3) and
  // "subdoc.ReviveDocument" (the doc flag), with which the SDKs' transactions commit staged
  // content in one request; "rangeScan": RANGE_SCAN_CREATE and the rest (the SDKs' scan()
  // refuses without it). Not "tombstonedUserXAttrs".
  std::vector<std::string_view> capabilities = {"cccp", "nodesExt", "touch", "cbhello"};
  if (collections) capabilities.push_back("collections");
  for (std::string_view capability :
       {"durableWrite", "xattr", "subdoc.AccessDeleted", "subdoc.ReplicaRead",
        "subdoc.ReplaceBodyWithXattr", "subdoc.ReviveDocument", "rangeScan"}) {
    capabilities.push_back(capability);
  }
  return capabilities;
}

ClusterMap::ClusterMap(std::string json, int64_t epoch, int64_t rev, std::vector<int> active,
                       bool active_known)
    : json_(std::move(json)),
      epoch_(epoch),
      rev_(rev),
      active_(std::move(active)),
      active_known_(active_known) {}

ClusterMap ClusterMap::single_node(const SingleNodeParams& params) {
  if (!is_power_of_two(params.vbucket_count)) {
    throw std::invalid_argument("vbucket count must be a power of two: " +
                                std::to_string(params.vbucket_count));
  }
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writer.StartObject();
  writer.Key("rev");
  writer.Int64(params.rev);
  writer.Key("revEpoch");
  writer.Int64(params.rev_epoch);
  writer.Key("name");
  write_string(writer, params.bucket_name);
  writer.Key("uuid");
  write_string(writer, params.bucket_uuid);
  writer.Key("nodeLocator");
  writer.String("vbucket");
  write_bucket_capabilities(writer, params.collections);
  writer.Key("collectionsManifestUid");
  write_string(writer, hex(params.collections_manifest_uid));
  write_nodes(writer, params);
  write_vbucket_server_map(writer, params);
  write_cluster_capabilities(writer);
  writer.EndObject();
  return ClusterMap(std::string(buffer.GetString(), buffer.GetSize()), params.rev_epoch, params.rev,
                    std::vector<int>(params.vbucket_count, 0), true);
}

ClusterMap ClusterMap::global(const SingleNodeParams& params) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writer.StartObject();
  writer.Key("rev");
  writer.Int64(params.rev);
  writer.Key("revEpoch");
  writer.Int64(params.rev_epoch);
  write_nodes(writer, params);
  write_cluster_capabilities(writer);
  writer.EndObject();
  return ClusterMap(std::string(buffer.GetString(), buffer.GetSize()), params.rev_epoch, params.rev,
                    {}, true);
}

std::optional<ClusterMap> ClusterMap::parse(std::string_view json, std::string& error) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    error = "not JSON";
    return std::nullopt;
  }
  if (!doc.IsObject()) {
    error = "not a JSON object";
    return std::nullopt;
  }
  const auto rev_member = doc.FindMember("rev");
  const std::optional<int64_t> rev =
      rev_member == doc.MemberEnd() ? std::nullopt : as_int64(rev_member->value);
  if (!rev) {
    error = "\"rev\" must be an integer";
    return std::nullopt;
  }
  int64_t epoch = 0;
  if (const auto epoch_member = doc.FindMember("revEpoch"); epoch_member != doc.MemberEnd()) {
    const std::optional<int64_t> given = as_int64(epoch_member->value);
    if (!given) {
      error = "\"revEpoch\" must be an integer";
      return std::nullopt;
    }
    epoch = *given;
  }
  const auto server_map = doc.FindMember("vBucketServerMap");
  if (server_map == doc.MemberEnd() || !server_map->value.IsObject()) {
    error = "\"vBucketServerMap\" must be an object";
    return std::nullopt;
  }
  const auto vbucket_map = server_map->value.FindMember("vBucketMap");
  if (vbucket_map == server_map->value.MemberEnd() || !vbucket_map->value.IsArray()) {
    error = "\"vBucketServerMap.vBucketMap\" must be an array";
    return std::nullopt;
  }
  const auto rows = vbucket_map->value.GetArray();
  if (!is_power_of_two(rows.Size()) || rows.Size() > 65536) {
    error =
        "the vbucket count must be a power of two, at most 65536: " + std::to_string(rows.Size());
    return std::nullopt;
  }
  std::vector<int> active;
  active.reserve(rows.Size());
  bool active_known = true;
  for (const auto& row : rows) {
    if (row.IsArray() && !row.Empty() && row[0].IsInt()) {
      active.push_back(row[0].GetInt());
    } else {
      active.push_back(-1);
      active_known = false;
    }
  }
  return ClusterMap(std::string(json), epoch, *rev, std::move(active), active_known);
}

bool ClusterMap::newer_than(int64_t epoch, int64_t rev) const {
  return epoch_ != epoch ? epoch_ > epoch : rev_ > rev;
}

std::optional<std::vector<int>> ClusterMap::active_index_per_vbucket() const {
  if (!active_known_) return std::nullopt;
  return active_;
}

}  // namespace tern::cluster
