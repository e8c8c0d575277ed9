#pragma once
// A bucket's cluster map (its "bucket config"): which node serves each vbucket, where the
// nodes listen, and what the bucket can do. The SDKs bootstrap from it (GET_CLUSTER_CONFIG
// 0xb5), take newer ones from NotMyVbucket answers and pushed notifications, and route every
// key with its vBucketMap. Maps are ordered by (revEpoch, rev): a client only applies a map
// newer than the one it has.
//
// A ClusterMap keeps the JSON text it is sent as, verbatim, plus the few fields the server
// itself needs; it is immutable, so it is shared between threads without locking. It comes
// from single_node() (ternd alone: every vbucket active here) or from parse() (a map given
// with SET_CLUSTER_CONFIG 0xb4, e.g. by a test that plays a bigger cluster).
//
// "$HOST" in hostnames means "the address the client connected to"; clients substitute it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tern::cluster {

// The TLS ports a node serves on, listed as "kvSSL" and "mgmtSSL" while they are open: the
// SDKs connect over couchbases:// only to nodes that list them.
struct TlsPorts {
  std::optional<uint16_t> kv;
  std::optional<uint16_t> mgmt;
};

struct SingleNodeParams {
  std::string bucket_name;
  std::string bucket_uuid;   // 32 lowercase hex digits
  uint16_t kv_port = 11210;  // the real bound KV port: clients connect to it
  int64_t rev_epoch = 1;
  int64_t rev = 1;
  uint64_t collections_manifest_uid = 0;
  // Lists "collections" in bucketCapabilities. Must match whether HELLO acknowledges
  // Collections (0x12): the SDKs prefix keys on one and look ids up on the other.
  bool collections = false;
  uint16_t vbucket_count = 1024;  // a power of two
  // The management (HTTP) port, listed as the "mgmt" service and in nodes[].hostname once
  // it really answers. Without one, nodes[].hostname still reads "$HOST:8091" (the .NET SDK
  // requires it to exist) but no service is advertised, so nothing connects there.
  std::optional<uint16_t> mgmt_port;
  TlsPorts tls;
};

// What a bucket of this node can do, in the words of the map's bucketCapabilities (and of
// the management port's bucket view): only what ternd implements, or clients would send
// requests ternd rejects.
std::vector<std::string_view> bucket_capabilities(bool collections);

class ClusterMap {
 public:
  // The map of a one-node cluster serving every vbucket as active with no replicas:
  // {"rev":R,"revEpoch":E,"name":..,"uuid":..,"nodeLocator":"vbucket",
  //  "bucketCapabilitiesVer":"","bucketCapabilities":["cccp","nodesExt","touch","cbhello",
  //  ("collections",)"durableWrite","xattr","subdoc.AccessDeleted"],
  //  "collectionsManifestUid":"<hex>",
  //  "nodes":[{"hostname":"$HOST:<mgmt>","ports":{"direct":<kv>}}],
  //  "nodesExt":[{"services":{"kv":<kv>(,"mgmt":..,"kvSSL":..,"mgmtSSL":..)},"thisNode":true,
  //                "hostname":"$HOST"}],
  //  "vBucketServerMap":{"hashAlgorithm":"CRC","numReplicas":0,"serverList":["$HOST:<kv>"],
  //  "vBucketMap":[[0],...]},"clusterCapabilitiesVer":[1,0],"clusterCapabilities":{}}
  // Throws std::invalid_argument if vbucket_count is not a power of two.
  static ClusterMap single_node(const SingleNodeParams& params);

  // The node's map without a bucket (Couchbase 6.5+'s global config): what GET_CLUSTER_CONFIG
  // answers a connection that selected no bucket, so that an SDK finds the node's services
  // (the management port among them) before it opens a bucket. rev, revEpoch, nodes,
  // nodesExt and the cluster capabilities of single_node(), nothing of a bucket; no
  // vbuckets. params' bucket fields are not used.
  static ClusterMap global(const SingleNodeParams& params);

  // A map given with SET_CLUSTER_CONFIG. Accepts a JSON object with an integer "rev", an
  // optional integer "revEpoch" (0 when absent) and a "vBucketServerMap" object whose
  // "vBucketMap" array has a power-of-two length; the text is kept as given. On failure
  // returns nullopt and says why in `error`.
  static std::optional<ClusterMap> parse(std::string_view json, std::string& error);

  int64_t epoch() const { return epoch_; }
  int64_t rev() const { return rev_; }
  const std::string& json() const { return json_; }
  uint32_t vbucket_count() const { return static_cast<uint32_t>(active_.size()); }

  // Whether this map is strictly newer than (epoch, rev): the test GET_CLUSTER_CONFIG uses
  // to answer an empty body to a client whose map is current.
  bool newer_than(int64_t epoch, int64_t rev) const;

  // For each vbucket, the index (into serverList and nodesExt) of its active node, -1 when
  // it has none; nullopt if the map's vBucketMap rows are not all arrays starting with an
  // integer.
  std::optional<std::vector<int>> active_index_per_vbucket() const;

 private:
  ClusterMap(std::string json, int64_t epoch, int64_t rev, std::vector<int> active,
             bool active_known);

  std::string json_;
  int64_t epoch_;
  int64_t rev_;
  std::vector<int> active_;  // one per vbucket; its size is the vbucket count
  bool active_known_;
};

}  // namespace tern::cluster
