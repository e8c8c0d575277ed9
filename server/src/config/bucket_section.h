#pragma once
// Reads one [[bucket]] table into a BucketSpec, giving its scopes and collections their ids
// (see file_config.h for the rules). Internal to config/.
//
//   [[bucket]]
//   name = "default"
//   type = "couchbase"        # or "ephemeral"; couchbase (persistent) when left out
//   eviction_policy = "value" # couchbase buckets only: "value" (the default) or "full"
//   memory_quota_mb = 256
//   manifest_uid = 2          # optional: the number of scopes and collections created
//   [[bucket.scope]]          # any number; name = "_default" adds to the default scope
//   name = "app"
//   collections = ["users", "orders"]

#include "config/file_config.h"
#include "config/table_reader.h"

namespace tern::config {

// Throws ConfigError for a bad name, type, eviction policy, quota or uid, a duplicate scope, a collection declared
// twice in a scope, or an unknown key in a scope.
BucketSpec read_bucket(const TableReader& bucket);

// The keys a [[bucket]] table accepts, for its TableReader.
inline const std::vector<std::string_view> kBucketKeys = {
    "name", "type", "eviction_policy", "memory_quota_mb", "manifest_uid", "scope", "flush_enabled"};

}  // namespace tern::config
