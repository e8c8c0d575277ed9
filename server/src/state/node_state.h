#pragma once
// The node state file: the buckets, with their settings and collections manifests, as the
// management port last left them. ternd keeps it in the data directory (kFileName), writes it
// whole after every change made over HTTP (to a temporary file, synced, then renamed over the
// old one, and the directory synced), and reads it at start-up, when it wins over the config
// file's buckets: the config is the starting point, never rewritten behind the user's back.
//
// A change is in the file before it takes effect on disk: a collection's documents are
// purged, or a bucket's files removed, only after the file no longer lists them, so a crash
// in between finds the collection or bucket gone, never half there.
//
// JSON: {"version":1,"buckets":[{"name","type":"couchbase"|"ephemeral","eviction":"value"|
// "full","quota_bytes","flush_enabled","max_ttl","durability_min_level","directory",
// "manifest":{"uid","next_scope_id","next_collection_id","scopes":[{"name","id",
// "collections":[{"name","id","max_ttl"}]}]}}],"pending_removal":["dir",...]}

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/collections_manifest.h"
#include "config/file_config.h"

namespace tern::state {

inline constexpr std::string_view kFileName = "ternd-state.json";

struct BucketState {
  config::BucketSpec settings;  // its scopes are not used: the manifest holds them
  // The bucket's directory under the data directory (couchbase buckets); empty otherwise.
  std::string directory;
  cluster::CollectionsManifest manifest = cluster::CollectionsManifest::default_only();
};

struct NodeState {
  std::vector<BucketState> buckets;  // in creation order
  // Directories of dropped buckets whose removal may not have finished: removed at start-up.
  std::vector<std::string> pending_removal;
};

// A state file that cannot be read or parsed: the message names the file and the problem.
class StateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string to_json(const NodeState& state);

// Parses to_json()'s text; throws StateError naming `source` on anything else.
NodeState parse_node_state(std::string_view json, std::string_view source);

// The state in `file`, or nullopt when there is no such file; throws StateError otherwise.
std::optional<NodeState> read_node_state(const std::filesystem::path& file);

// Replaces `file` with `state`, atomically and durably (see above); throws StateError.
void write_node_state(const std::filesystem::path& file, const NodeState& state);

}  // namespace tern::state
