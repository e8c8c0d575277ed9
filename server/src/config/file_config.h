#pragma once
// What `ternd --config FILE` declares: the [server] settings, the buckets with their scopes
// and collections, and the users allowed in. The file is TOML; docs/configuration.md gives
// the schema. Parsing validates everything the server would otherwise trip over later, and
// assigns the ids a Couchbase cluster would: a client sees the same manifest every start.
//
// Collection ids follow Couchbase: every bucket has the `_default` scope (id 0) holding the
// `_default` collection (id 0); scopes the file declares get ids 8, 9, ... and collections
// get ids 8, 9, ... across the whole bucket, both in declaration order (ids below 8 are
// reserved for the system). The manifest uid counts the scopes and collections the file
// creates, as if each had been created one by one on a fresh bucket, unless the file sets it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_error.h"

namespace tern::config {

inline constexpr std::string_view kDefaultName = "_default";  // scope and collection
inline constexpr uint32_t kDefaultId = 0;
inline constexpr uint32_t kFirstDeclaredId = 8;  // Couchbase reserves 1-7
// A bucket quota beyond this is a typo, not a machine: 1 PiB, as ternd --memory-mb.
inline constexpr size_t kMaxBucketQuotaMb = size_t{1} << 30;
// Fewer PBKDF2 rounds than RFC 7677's minimum make stolen credentials cheap to crack.
inline constexpr uint32_t kMinScramIterations = 4096;

struct CollectionSpec {
  std::string name;
  uint32_t id = 0;
};

struct ScopeSpec {
  std::string name;
  uint32_t id = 0;
  std::vector<CollectionSpec> collections;  // in declaration order
};

// Couchbase's bucket types: `couchbase` keeps its documents on disk too (under the server's
// data directory) and survives a restart; `ephemeral` lives in memory only.
enum class BucketType { Couchbase, Ephemeral };

// What a couchbase bucket may evict under memory pressure: values only (keys and metadata
// stay in memory), or whole items, so that memory no longer bounds the number of keys.
enum class EvictionPolicy { Value, Full };

struct BucketSpec {
  std::string name;
  BucketType type = BucketType::Couchbase;  // the default for a bucket a file declares
  EvictionPolicy eviction_policy = EvictionPolicy::Value;  // couchbase buckets only
  size_t memory_quota_bytes = 0;
  // Whether FLUSH (and the management port's doFlush) may empty the bucket.
  bool flush_enabled = false;
  // The longest expiry a document may have, in seconds; 0 for none (Couchbase's maxTTL).
  uint32_t max_ttl_seconds = 0;
  // The least durability every write gets, in Couchbase's words: "none", "majority",
  // "majorityAndPersistActive" or "persistToMajority".
  std::string durability_min_level = "none";
  uint64_t manifest_uid = 0;
  // scopes[0] is always "_default" (id 0) and its collections start with "_default" (id 0);
  // declared scopes follow in declaration order.
  std::vector<ScopeSpec> scopes;
};

// SCRAM secrets as RFC 5802 stores them: the client's password never appears.
struct CredentialSpec {
  std::string mechanism;                     // "SCRAM-SHA512", "SCRAM-SHA256" or "SCRAM-SHA1"
  std::string salt, stored_key, server_key;  // raw bytes (the file holds them in base64)
  uint32_t iterations = 0;
};

struct UserSpec {
  std::string name;
  std::vector<std::string> buckets;  // bucket names, or the single entry "*" for every bucket
  bool admin = false;
  // Strongest first (SHA512, SHA256, SHA1); empty when the user has a dev_password.
  std::vector<CredentialSpec> credentials;
  // A clear-text password from the file: for development only (parsing adds a warning).
  // Exactly one of credentials and dev_password is set.
  std::optional<std::string> dev_password;
};

// Unset values leave ternd's own defaults (or its command-line flags) in force.
struct ServerSpec {
  std::optional<std::string> listen;  // an IPv4 or IPv6 address
  std::optional<uint16_t> port;       // 0 picks a free port
  // The management (HTTP) port: unset keeps ternd's default; set to nullopt ("none") turns
  // it off; 0 picks a free port.
  std::optional<std::optional<uint16_t>> mgmt_port;
  // The TLS ports, KV and management, as mgmt_port; open only with a [tls] certificate.
  std::optional<std::optional<uint16_t>> tls_port;
  std::optional<std::optional<uint16_t>> mgmt_tls_port;
  bool allow_plain_auth = false;  // SASL PLAIN sends the password itself: off by default
  std::optional<std::string> anonymous_bucket;  // unauthenticated connections may use it
  // Where couchbase buckets keep their files, one directory per bucket; relative to the
  // current directory. Never empty when set.
  std::optional<std::string> data_dir;
};

// The [tls] table: the files of the TLS ports' certificate, paths relative to the current
// directory. Unset values leave ternd's flags in force.
struct TlsSpec {
  std::optional<std::string> certificate;  // PEM chain, leaf first
  std::optional<std::string> private_key;  // PEM
  std::optional<std::string> client_ca;    // PEM CAs that client certificates chain to
  // Couchbase's names: "disabled" (certificates ignored), "enabled" (one, if sent, logs the
  // client in) or "mandatory" (a client without one is refused). One of the three when set.
  std::optional<std::string> client_auth;
};

// Couchbase's names for [tls] client_auth and --tls-client-auth.
inline const std::vector<std::string_view> kClientAuthModes = {"disabled", "enabled", "mandatory"};

struct FileConfig {
  ServerSpec server;
  TlsSpec tls;
  std::vector<BucketSpec> buckets;  // at least one, in declaration order
  std::vector<UserSpec> users;      // in declaration order
  // Things that work but should not reach production, for the caller to log.
  std::vector<std::string> warnings;
};

// Parses and validates a configuration. `source_name` (usually the file's path) prefixes
// every error and warning. Throws ConfigError for a TOML syntax error, an unknown key, a
// value of the wrong type or out of range, a name Couchbase would refuse, a duplicate
// name, or a reference to a bucket the file does not declare.
FileConfig parse_config(std::string_view toml_text, std::string_view source_name);

// Reads the file at `path` and parses it as parse_config does, naming the file in errors.
// Throws ConfigError also when the file cannot be read.
FileConfig load_config(const std::string& path);

}  // namespace tern::config
