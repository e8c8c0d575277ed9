#include "config/bucket_section.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "config/names.h"

namespace tern::config {

namespace {

constexpr size_t kBytesPerMb = size_t{1024} * 1024;

template <typename Spec>
bool has_name(const std::vector<Spec>& specs, std::string_view name) {
  return std::any_of(specs.begin(), specs.end(),
                     [name](const Spec& spec) { return spec.name == name; });
}

// What the bucket's declarations so far have used up.
struct Declarations {
  // Ids are handed out in declaration order; `created` counts for the manifest uid.
  uint32_t next_scope_id = kFirstDeclaredId;
  uint32_t next_collection_id = kFirstDeclaredId;
  uint64_t created = 0;
  // Not the bucket's scopes: "_default" is among those without being declared.
  std::vector<std::string> scope_names;
};

void read_collections(const TableReader& scope_table, ScopeSpec& scope, Declarations& declared) {
  const auto collections = scope_table.strings("collections");
  for (size_t i = 0; i < collections.size(); ++i) {
    const auto& [name, node] = collections[i];
    const std::string path = fmt::format("{}[{}]", scope_table.path_of("collections"), i);
    auto problem = scope_or_collection_name_problem(name);
    if (!problem && name == kDefaultName) {
      problem = scope.name == kDefaultName ? "always exists in the _default scope: leave it out"
                                           : "is reserved for the _default scope's own collection";
    }
    if (!problem && has_name(scope.collections, name)) {
      problem = fmt::format("is declared twice in scope '{}'", scope.name);
    }
    if (problem) {
      fail_at(scope_table.source_name(), node, path,
              fmt::format("collection name '{}' {}", name, *problem));
    }
    scope.collections.push_back({name, declared.next_collection_id++});
    ++declared.created;
  }
}

void read_scope(const TableReader& scope_table, BucketSpec& bucket, Declarations& declared) {
  const std::string name = scope_table.required_string("name");
  auto problem = scope_or_collection_name_problem(name);
  if (!problem && std::find(declared.scope_names.begin(), declared.scope_names.end(), name) !=
                      declared.scope_names.end()) {
    problem = fmt::format("is declared twice in bucket '{}'", bucket.name);
  }
  if (problem) scope_table.fail("name", fmt::format("scope name '{}' {}", name, *problem));
  declared.scope_names.push_back(name);

  // The _default scope is always there: declaring it only adds collections to it.
  ScopeSpec* scope = &bucket.scopes.front();
  if (name != kDefaultName) {
    bucket.scopes.push_back({name, declared.next_scope_id++, {}});
    ++declared.created;
    scope = &bucket.scopes.back();
  }
  read_collections(scope_table, *scope, declared);
}

void read_type_and_eviction(const TableReader& bucket_table, BucketSpec& bucket) {
  if (auto type = bucket_table.string("type")) {
    if (*type == "ephemeral") {
      bucket.type = BucketType::Ephemeral;
    } else if (*type != "couchbase") {
      bucket_table.fail("type", fmt::format("must be \"couchbase\" (persistent) or \"ephemeral\" "
                                             "(memory only) (got '{}')",
                                             *type));
    }
  }
  const auto policy = bucket_table.string("eviction_policy");
  if (!policy) return;
  if (bucket.type == BucketType::Ephemeral) {
    bucket_table.fail("eviction_policy",
                      "applies to couchbase buckets only: an ephemeral bucket has no disk to "
                      "evict to");
  }
  if (*policy == "value") {
    bucket.eviction_policy = EvictionPolicy::Value;
  } else if (*policy == "full") {
    bucket.eviction_policy = EvictionPolicy::Full;
  } else {
    bucket_table.fail("eviction_policy",
                      fmt::format("must be \"value\" or \"full\" (got '{}')", *policy));
  }
}

}  // namespace

BucketSpec read_bucket(const TableReader& bucket_table) {
  BucketSpec bucket;
  bucket.name = bucket_table.required_string("name");
  if (auto problem = bucket_name_problem(bucket.name)) {
    bucket_table.fail("name", fmt::format("bucket name '{}' {}", bucket.name, *problem));
  }
  read_type_and_eviction(bucket_table, bucket);
  bucket.flush_enabled = bucket_table.boolean("flush_enabled").value_or(false);
  const auto quota_mb =
      bucket_table.integer("memory_quota_mb", 1, static_cast<int64_t>(kMaxBucketQuotaMb));
  if (!quota_mb) bucket_table.fail("memory_quota_mb", "is required (the bucket's quota, in MiB)");
  bucket.memory_quota_bytes = static_cast<size_t>(*quota_mb) * kBytesPerMb;
  const auto manifest_uid =
      bucket_table.integer("manifest_uid", 0, std::numeric_limits<int64_t>::max());

  bucket.scopes.push_back(
      {std::string(kDefaultName), kDefaultId, {{std::string(kDefaultName), kDefaultId}}});
  Declarations declared;
  const auto scope_tables = bucket_table.tables("scope");
  for (size_t i = 0; i < scope_tables.size(); ++i) {
    TableReader scope_table(*scope_tables[i],
                            fmt::format("{}[{}]", bucket_table.path_of("scope"), i),
                            bucket_table.source_name(), {"name", "collections"});
    read_scope(scope_table, bucket, declared);
  }
  bucket.manifest_uid = manifest_uid ? static_cast<uint64_t>(*manifest_uid) : declared.created;
  return bucket;
}

}  // namespace tern::config
