#include "ternd/node_builder.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <stdexcept>

#include "auth/scram.h"
#include "config/durability_levels.h"
#include "auth/scram_algorithm.h"
#include "storage/store.h"
#include "ternd/version.h"

namespace tern::ternd {

namespace {

// Iterations for credentials derived from a development password at start-up.
constexpr uint32_t kDevPasswordIterations = 4096;

// An ephemeral bucket's engine settings: what every bucket shares.
engine::Config engine_config(const Options& options, size_t quota_bytes) {
  engine::Config config;
  config.memory_quota_bytes = quota_bytes;
  config.max_item_size = options.max_item_size;
  return config;
}

// A bucket the file declares: its type and eviction policy on top of the shared settings.
engine::Config engine_config(const Options& options, const config::BucketSpec& spec) {
  engine::Config config = engine_config(options, spec.memory_quota_bytes);
  config.persistent = spec.type == config::BucketType::Couchbase;
  config.max_ttl_seconds = spec.max_ttl_seconds;
  config.full_eviction = config.persistent && spec.eviction_policy == config::EvictionPolicy::Full;
  return config;
}

// Opens the bucket's store in `directory` under the data directory, for the bucket.
void make_persistent(engine::Bucket& bucket, const Options& options,
                     const std::string& directory_name) {
  if (!options.data_dir) {
    throw std::runtime_error(fmt::format(
        "bucket {} is persistent (type couchbase) and needs a data directory: --data-dir or "
        "[server] data_dir",
        bucket.name()));
  }
  const std::string directory =
      (std::filesystem::path(*options.data_dir) / directory_name).string();
  storage::StoreOptions store_options;
  // Tombstones live on disk as long as in memory: a purge on one side only would let a
  // deleted document come back at the next warmup, or be forgotten while memory still has it.
  store_options.purge_interval_seconds = bucket.documents().config().metadata_purge_seconds;
  bucket.make_persistent(storage::open_rocksdb_store(directory, store_options));
  spdlog::info("bucket {}: couchbase (persistent), data in {}, {} eviction", bucket.name(),
               directory, bucket.documents().config().full_eviction ? "full" : "value");
}

}  // namespace

cluster::CollectionsManifest manifest_of(const config::BucketSpec& spec) {
  if (spec.scopes.empty()) return cluster::CollectionsManifest::default_only();
  std::vector<cluster::Scope> scopes;
  for (const config::ScopeSpec& scope : spec.scopes) {
    std::vector<cluster::Collection> collections;
    for (const config::CollectionSpec& collection : scope.collections) {
      collections.push_back({collection.name, collection.id});
    }
    scopes.push_back({scope.name, scope.id, std::move(collections)});
  }
  return cluster::CollectionsManifest(spec.manifest_uid, std::move(scopes));
}

namespace {

auth::User user_of(const config::UserSpec& spec) {
  auth::User user;
  user.name = spec.name;
  user.buckets = spec.buckets;
  user.admin = spec.admin;
  for (const config::CredentialSpec& credential : spec.credentials) {
    const auto algorithm = auth::algorithm_for_mechanism(credential.mechanism);
    if (!algorithm) continue;  // parse_config accepts only the three mechanisms
    user.credentials.push_back({*algorithm, credential.salt, credential.iterations,
                                credential.stored_key, credential.server_key});
  }
  if (spec.dev_password) {
    for (auth::ScramAlgorithm algorithm : auth::kScramAlgorithmsStrongestFirst) {
      user.credentials.push_back(auth::derive_credential(
          algorithm, *spec.dev_password, auth::random_salt(algorithm), kDevPasswordIterations));
    }
  }
  return user;
}

}  // namespace

std::unique_ptr<commands::Node> build_node(const Options& options, const config::FileConfig* file) {
  commands::NodeSettings settings;
  settings.version = kVersion;
  settings.max_item_size = options.max_item_size;
  settings.range_scans = {.max_per_bucket = options.range_scan_max,
                          .idle_ms = int64_t{options.range_scan_idle_timeout} * 1000};
  auth::UserDirectory users;
  if (file != nullptr) {
    settings.open_access = false;
    settings.allow_plain_auth = file->server.allow_plain_auth;
    settings.anonymous_bucket = file->server.anonymous_bucket.value_or("");
    for (const config::UserSpec& spec : file->users) users.add(user_of(spec));
  }
  return std::make_unique<commands::Node>(
      std::move(settings), std::vector<std::unique_ptr<engine::Bucket>>{}, std::move(users));
}

std::vector<config::BucketSpec> configured_buckets(const Options& options,
                                                   const config::FileConfig* file) {
  if (file != nullptr) return file->buckets;
  config::BucketSpec open;
  open.name = "default";
  open.type = config::BucketType::Ephemeral;
  open.memory_quota_bytes = options.memory_mb * 1024 * 1024;
  open.flush_enabled = true;
  return {open};
}

std::unique_ptr<engine::Bucket> build_bucket(const Options& options, const config::BucketSpec& spec,
                                             cluster::CollectionsManifest manifest,
                                             executor::OwnerId owner,
                                             const std::string& directory) {
  auto bucket = std::make_unique<engine::Bucket>(spec.name, engine_config(options, spec),
                                                 std::move(manifest), owner);
  if (bucket->documents().config().persistent) {
    make_persistent(*bucket, options, directory);
  } else {
    spdlog::info("bucket {}: ephemeral (memory only)", spec.name);
  }
  bucket->set_min_durability_level(
      config::durability_level_number(spec.durability_min_level).value_or(0));
  return bucket;
}

void install_single_node_map(commands::Node& node, engine::Bucket& bucket, uint16_t kv_port,
                             std::optional<uint16_t> mgmt_port, cluster::TlsPorts tls) {
  const std::shared_ptr<const cluster::ClusterMap> current = bucket.cluster_map();
  cluster::SingleNodeParams params;
  params.bucket_name = bucket.name();
  params.bucket_uuid = bucket.uuid();
  params.kv_port = kv_port;
  params.mgmt_port = mgmt_port;
  params.tls = tls;
  params.rev_epoch = current ? current->epoch() : node.clock().unix_seconds();
  params.rev = current ? current->rev() + 1 : 1;
  params.collections_manifest_uid = bucket.manifest().uid();
  params.collections = true;  // HELLO always acknowledges Collections: the two go together
  node.install_cluster_map(bucket, cluster::ClusterMap::single_node(params));
}

void install_global_map(commands::Node& node, uint16_t kv_port, std::optional<uint16_t> mgmt_port,
                        cluster::TlsPorts tls) {
  cluster::SingleNodeParams params;
  params.kv_port = kv_port;
  params.mgmt_port = mgmt_port;
  params.tls = tls;
  params.rev_epoch = node.clock().unix_seconds();
  params.rev = 1;
  node.set_global_map(cluster::ClusterMap::global(params));
}

}  // namespace tern::ternd
