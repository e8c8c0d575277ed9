#pragma once
// Builds the node ternd serves: from a config file's buckets and users, or, without one, a
// memcached-style node with one open bucket, `default`. A couchbase (persistent) bucket gets
// its store here, `<data dir>/<bucket name>`; its tasks start later, once the executor exists
// (Persistence::start).

#include <memory>

#include "commands/node.h"
#include "config/file_config.h"
#include "ternd/options.h"

namespace tern::ternd {

// The node for `options` and, if ternd was given --config, that file's contents. Each
// bucket's executor owner is its position plus one (0 is the server's own tasks). Throws
// std::runtime_error when a couchbase bucket has no data directory (options.data_dir), and
// storage::StoreError when its store cannot be opened (e.g. another ternd holds it).
std::unique_ptr<commands::Node> build_node(const Options& options,
                                           const config::FileConfig* file);

// Gives every bucket the map of a one-node cluster served on `port`: all vbuckets here. Its
// revEpoch is the start time, so a client that remembers a map from an earlier run of this
// node takes the new one as newer.
void install_single_node_maps(commands::Node& node, uint16_t port);

}  // namespace tern::ternd
