#pragma once
// Builds what ternd serves: the node (settings and users) from a config file, or, without one,
// a memcached-style open node; and each bucket, from the file's declarations, the node state
// file's, or the management port's. A couchbase (persistent) bucket gets its store here, in
// the directory it is given under the data directory; its tasks start later
// (BucketLifecycle).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_map.h"
#include "cluster/collections_manifest.h"
#include "commands/node.h"
#include "config/file_config.h"
#include "executor/task.h"
#include "ternd/options.h"

namespace tern::ternd {

// The node for `options` and, if ternd was given --config, that file's users and settings.
// It has no bucket yet: BucketLifecycle adds them.
std::unique_ptr<commands::Node> build_node(const Options& options, const config::FileConfig* file);

// The buckets to start with when no node state file says otherwise: the file's, or one open
// ephemeral bucket `default` of --memory-mb without a file (flush enabled, as memcached's).
std::vector<config::BucketSpec> configured_buckets(const Options& options,
                                                   const config::FileConfig* file);

// The manifest a config file declares for `spec`.
cluster::CollectionsManifest manifest_of(const config::BucketSpec& spec);

// A bucket of `spec`'s settings with `manifest`, its tasks named by `owner`. A couchbase
// bucket opens its store in `<data dir>/<directory>`. Throws std::runtime_error when a
// couchbase bucket has no data directory (options.data_dir), and storage::StoreError when its
// store cannot be opened (e.g. another ternd holds it).
std::unique_ptr<engine::Bucket> build_bucket(const Options& options, const config::BucketSpec& spec,
                                             cluster::CollectionsManifest manifest,
                                             executor::OwnerId owner, const std::string& directory);

// Gives `bucket` the map of a one-node cluster served on `kv_port` (and `mgmt_port`, when the
// management port is on, and the open TLS ports): all vbuckets here, collectionsManifestUid the
// bucket's. The first map's revEpoch is the start time, so a client that remembers a map from an
// earlier run takes the new one as newer; each later one raises rev by one.
void install_single_node_map(commands::Node& node, engine::Bucket& bucket, uint16_t kv_port,
                             std::optional<uint16_t> mgmt_port, cluster::TlsPorts tls = {});

// Gives the node its map without a bucket (cluster::ClusterMap::global): the node's services
// for connections that selected no bucket.
void install_global_map(commands::Node& node, uint16_t kv_port, std::optional<uint16_t> mgmt_port,
                        cluster::TlsPorts tls = {});

}  // namespace tern::ternd
