#pragma once
// What the management routes change beyond one bucket's own state: the set of buckets and
// their settings. ternd implements it (it owns the executor, the data directory and the node
// state file); the routes only call it, so http/ never reaches above itself.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/file_config.h"

namespace tern::http {

enum class AdminError {
  None,
  Exists,    // a bucket of that name exists
  NotFound,  // no bucket of that name
  Refused,   // the node cannot do it (the message says why)
};

struct AdminResult {
  AdminError error = AdminError::None;
  std::string message;  // for Refused
};

class NodeAdmin {
 public:
  virtual ~NodeAdmin() = default;

  // The settings of every bucket, in creation order (what GET /pools/default/buckets lists).
  virtual std::vector<config::BucketSpec> bucket_settings() const = 0;
  virtual std::optional<config::BucketSpec> bucket_settings(std::string_view name) const = 0;

  // Creates a bucket from checked settings and starts serving it at once. The spec's scopes
  // are ignored: a new bucket has the _default scope and collection only.
  virtual AdminResult create_bucket(const config::BucketSpec& spec) = 0;

  // Replaces the settings that may change on a live bucket (quota, flush, maxTTL, durability
  // minimum); `spec.name` names the bucket, and its type and eviction policy must match.
  virtual AdminResult update_bucket(const config::BucketSpec& spec) = 0;

  // Drops a bucket: it stops serving at once, its connections close at their next request,
  // and a couchbase bucket's files are removed.
  virtual AdminResult drop_bucket(std::string_view name) = 0;

  // Empties a bucket, memory and disk (the route checks that flush is enabled).
  virtual AdminResult flush_bucket(std::string_view name) = 0;

  // Whether changes survive a restart (a data directory holds the node state file); when
  // not, the routes say so in a Warning header.
  virtual bool changes_persist() const = 0;
};

}  // namespace tern::http
