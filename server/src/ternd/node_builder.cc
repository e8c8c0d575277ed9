#include "ternd/node_builder.h"

#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "auth/scram.h"
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
  config.full_eviction =
      config.persistent && spec.eviction_policy == config::EvictionPolicy::Full;
  return config;
}

// Opens the bucket's store under the data directory and hands it to the bucket.
void make_persistent(engine::Bucket& bucket, const Options& options) {
  if (!options.data_dir) {
    throw std::runtime_error(fmt::format(
        "bucket {} is persistent (type couchbase) and needs a data directory: --data-dir or "
        "[server] data_dir",
        bucket.name()));
  }
  const std::string directory = (std::filesystem::path(*options.data_dir) / bucket.name()).string();
  storage::StoreOptions store_options;
  // Tombstones live on disk as long as in memory: a purge on one side only would let a
  // deleted document come back at the next warmup, or be forgotten while memory still has it.
  store_options.purge_interval_seconds = bucket.documents().config().metadata_purge_seconds;
  bucket.make_persistent(storage::open_rocksdb_store(directory, store_options));
  spdlog::info("bucket {}: couchbase (persistent), data in {}, {} eviction", bucket.name(),
               directory, bucket.documents().config().full_eviction ? "full" : "value");
}

cluster::CollectionsManifest manifest_of(const config::BucketSpec& spec) {
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

std::unique_ptr<commands::Node> build_node(const Options& options,
                                           const config::FileConfig* file) {
  commands::NodeSettings settings;
  settings.version = kVersion;
  settings.max_item_size = options.max_item_size;
  std::vector<std::unique_ptr<engine::Bucket>> buckets;
  auth::UserDirectory users;
  if (file == nullptr) {
    buckets.push_back(std::make_unique<engine::Bucket>(
        "default", engine_config(options, options.memory_mb * 1024 * 1024),
        cluster::CollectionsManifest::default_only(), 1));
    return std::make_unique<commands::Node>(std::move(settings), std::move(buckets),
                                            std::move(users));
  }
  settings.open_access = false;
  settings.allow_plain_auth = file->server.allow_plain_auth;
  settings.anonymous_bucket = file->server.anonymous_bucket.value_or("");
  for (size_t i = 0; i < file->buckets.size(); ++i) {
    const config::BucketSpec& spec = file->buckets[i];
    buckets.push_back(std::make_unique<engine::Bucket>(spec.name, engine_config(options, spec),
                                                       manifest_of(spec), i + 1));
    if (buckets.back()->documents().config().persistent) {
      make_persistent(*buckets.back(), options);
    } else {
      spdlog::info("bucket {}: ephemeral (memory only)", spec.name);
    }
  }
  for (const config::UserSpec& spec : file->users) users.add(user_of(spec));
  return std::make_unique<commands::Node>(std::move(settings), std::move(buckets),
                                          std::move(users));
}

void install_single_node_maps(commands::Node& node, uint16_t port) {
  for (const auto& bucket : node.buckets()) {
    cluster::SingleNodeParams params;
    params.bucket_name = bucket->name();
    params.bucket_uuid = bucket->uuid();
    params.kv_port = port;
    params.rev_epoch = node.clock().unix_seconds();
    params.rev = 1;
    params.collections_manifest_uid = bucket->manifest().uid();
    params.collections = true;  // HELLO always acknowledges Collections: the two go together
    node.install_cluster_map(*bucket, cluster::ClusterMap::single_node(params));
  }
}

}  // namespace tern::ternd
