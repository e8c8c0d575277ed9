// libFuzzer target: the configuration file's parser (parse_config) on any text. A file it
// refuses must be refused with a ConfigError that names the file, never another exception
// or a crash; a file it accepts must hold what file_config.h promises.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "auth/scram_algorithm.h"
#include "common/fuzz_check.h"
#include "config/durability_levels.h"
#include "config/file_config.h"
#include "config/names.h"

namespace {

using namespace tern::config;

constexpr std::string_view kSource = "fuzz.toml";

void check_bucket(const BucketSpec& bucket) {
  TERN_FUZZ_CHECK(!bucket_name_problem(bucket.name));
  TERN_FUZZ_CHECK(durability_level_number(bucket.durability_min_level));
  TERN_FUZZ_CHECK(bucket.type == BucketType::Couchbase ||
                  bucket.eviction_policy == EvictionPolicy::Value);
  TERN_FUZZ_CHECK(bucket.memory_quota_bytes > 0);
  TERN_FUZZ_CHECK(bucket.memory_quota_bytes <= kMaxBucketQuotaMb * 1024 * 1024);
  TERN_FUZZ_CHECK(!bucket.scopes.empty());
  TERN_FUZZ_CHECK(bucket.scopes[0].name == kDefaultName && bucket.scopes[0].id == kDefaultId);
  TERN_FUZZ_CHECK(!bucket.scopes[0].collections.empty());
  TERN_FUZZ_CHECK(bucket.scopes[0].collections[0].name == kDefaultName &&
                  bucket.scopes[0].collections[0].id == kDefaultId);
  std::set<uint32_t> scope_ids;
  std::set<uint32_t> collection_ids;
  std::set<std::string_view> scope_names;
  for (const ScopeSpec& scope : bucket.scopes) {
    TERN_FUZZ_CHECK(scope_ids.insert(scope.id).second);
    TERN_FUZZ_CHECK(scope_names.insert(scope.name).second);
    TERN_FUZZ_CHECK(scope.id == kDefaultId || scope.id >= kFirstDeclaredId);
    TERN_FUZZ_CHECK(!scope_or_collection_name_problem(scope.name));
    std::set<std::string_view> collection_names;
    for (const CollectionSpec& collection : scope.collections) {
      TERN_FUZZ_CHECK(collection_ids.insert(collection.id).second);
      TERN_FUZZ_CHECK(collection_names.insert(collection.name).second);
      TERN_FUZZ_CHECK(collection.id == kDefaultId || collection.id >= kFirstDeclaredId);
      TERN_FUZZ_CHECK(!scope_or_collection_name_problem(collection.name));
    }
  }
}

void check_config(const FileConfig& config) {
  TERN_FUZZ_CHECK(!config.buckets.empty());
  std::set<std::string_view> bucket_names;
  for (const BucketSpec& bucket : config.buckets) {
    check_bucket(bucket);
    TERN_FUZZ_CHECK(bucket_names.insert(bucket.name).second);
  }
  std::set<std::string_view> user_names;
  for (const UserSpec& user : config.users) {
    TERN_FUZZ_CHECK(!user_name_problem(user.name) && user_names.insert(user.name).second);
    TERN_FUZZ_CHECK(user.credentials.empty() == user.dev_password.has_value());
    if (user.dev_password) TERN_FUZZ_CHECK(!user.dev_password->empty());
    for (const CredentialSpec& credential : user.credentials) {
      TERN_FUZZ_CHECK(credential.iterations >= kMinScramIterations);
      const auto algorithm = tern::auth::algorithm_for_mechanism(credential.mechanism);
      TERN_FUZZ_CHECK(algorithm.has_value());
      TERN_FUZZ_CHECK(!credential.salt.empty());
      TERN_FUZZ_CHECK(credential.stored_key.size() == tern::auth::digest_size(*algorithm));
      TERN_FUZZ_CHECK(credential.server_key.size() == tern::auth::digest_size(*algorithm));
    }
    for (const std::string& bucket : user.buckets) {
      TERN_FUZZ_CHECK(bucket == "*" || bucket_names.contains(bucket));
    }
  }
  if (config.server.anonymous_bucket) {
    TERN_FUZZ_CHECK(bucket_names.contains(*config.server.anonymous_bucket));
  }
  if (config.server.data_dir) TERN_FUZZ_CHECK(!config.server.data_dir->empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    check_config(parse_config(text, kSource));
  } catch (const ConfigError& error) {
    TERN_FUZZ_CHECK(error.source_name() == kSource);
    TERN_FUZZ_CHECK(std::string_view(error.what()).starts_with(kSource));
    TERN_FUZZ_CHECK(!error.problem().empty());
  }
  // Any other exception escapes, and libFuzzer reports it as a crash: the contract is
  // ConfigError only, which ternd turns into a clear start-up error.
  return 0;
}
