// parse_config on valid files (ids, manifest uids, defaults) and on each kind of mistake,
// which must be refused with a message naming the file, the place and the problem.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/credential_toml.h"
#include "config/file_config.h"

namespace tern::config {
namespace {

constexpr const char* kSource = "test.toml";
constexpr const char* kMinimalBucket = "[[bucket]]\nname = \"b\"\nmemory_quota_mb = 64\n";

// Secrets of the right sizes for each mechanism; their bytes do not matter to the parser.
CredentialSpec fake_credential(std::string mechanism, size_t digest_size) {
  return {std::move(mechanism), "salt\x01\xFF", std::string(digest_size, 'k'),
          std::string(digest_size, '\x80'), 15000};
}

struct Ids {
  std::string name;
  uint32_t id;
  bool operator==(const Ids&) const = default;
};

std::vector<Ids> scope_ids(const BucketSpec& bucket) {
  std::vector<Ids> ids;
  for (const ScopeSpec& scope : bucket.scopes) ids.push_back({scope.name, scope.id});
  return ids;
}

std::vector<Ids> collection_ids(const ScopeSpec& scope) {
  std::vector<Ids> ids;
  for (const CollectionSpec& collection : scope.collections) {
    ids.push_back({collection.name, collection.id});
  }
  return ids;
}

void PrintTo(const Ids& ids, std::ostream* out) { *out << ids.name << "=" << ids.id; }

TEST(ParseConfigTest, AMinimalFileHasTheDefaultScopeAndCollectionAndUidZero) {
  const FileConfig config = parse_config(kMinimalBucket, kSource);
  ASSERT_EQ(config.buckets.size(), 1u);
  const BucketSpec& bucket = config.buckets[0];
  EXPECT_EQ(bucket.name, "b");
  EXPECT_EQ(bucket.type, BucketType::Couchbase);  // a file's buckets are persistent
  EXPECT_EQ(bucket.eviction_policy, EvictionPolicy::Value);
  EXPECT_EQ(bucket.memory_quota_bytes, 64u * 1024 * 1024);
  EXPECT_EQ(bucket.manifest_uid, 0u);
  EXPECT_EQ(scope_ids(bucket), (std::vector<Ids>{{"_default", 0}}));
  EXPECT_EQ(collection_ids(bucket.scopes[0]), (std::vector<Ids>{{"_default", 0}}));

  EXPECT_EQ(config.server.listen, std::nullopt);
  EXPECT_EQ(config.server.port, std::nullopt);
  EXPECT_FALSE(config.server.allow_plain_auth);
  EXPECT_EQ(config.server.anonymous_bucket, std::nullopt);
  EXPECT_EQ(config.server.data_dir, std::nullopt);
  EXPECT_TRUE(config.users.empty());
  EXPECT_TRUE(config.warnings.empty());
}

TEST(ParseConfigTest, IdsFollowDeclarationOrderFromEightAndCollectionIdsSpanTheBucket) {
  // "zeta" before "alpha", and "orders" before "carts": toml++ sorts table keys, but ids
  // must follow the file.
  const FileConfig config = parse_config(R"(
[[bucket]]
name = "shop"
memory_quota_mb = 100
[[bucket.scope]]
name = "zeta"
collections = ["orders", "carts"]
[[bucket.scope]]
name = "alpha"
[[bucket.scope]]
name = "beta"
collections = ["orders"]

[[bucket]]
name = "second"
memory_quota_mb = 1
[[bucket.scope]]
name = "only"
collections = ["one"]
)",
                                         kSource);
  ASSERT_EQ(config.buckets.size(), 2u);
  const BucketSpec& shop = config.buckets[0];
  EXPECT_EQ(scope_ids(shop),
            (std::vector<Ids>{{"_default", 0}, {"zeta", 8}, {"alpha", 9}, {"beta", 10}}));
  EXPECT_EQ(collection_ids(shop.scopes[0]), (std::vector<Ids>{{"_default", 0}}));
  EXPECT_EQ(collection_ids(shop.scopes[1]), (std::vector<Ids>{{"orders", 8}, {"carts", 9}}));
  EXPECT_TRUE(shop.scopes[2].collections.empty());
  // The same name in another scope is another collection, with its own id.
  EXPECT_EQ(collection_ids(shop.scopes[3]), (std::vector<Ids>{{"orders", 10}}));
  EXPECT_EQ(shop.manifest_uid, 6u);  // three scopes and three collections

  // Each bucket has its own manifest: ids start again.
  const BucketSpec& second = config.buckets[1];
  EXPECT_EQ(scope_ids(second), (std::vector<Ids>{{"_default", 0}, {"only", 8}}));
  EXPECT_EQ(collection_ids(second.scopes[1]), (std::vector<Ids>{{"one", 8}}));
  EXPECT_EQ(second.manifest_uid, 2u);
}

TEST(ParseConfigTest, DeclaringTheDefaultScopeAddsCollectionsToIt) {
  const FileConfig config = parse_config(std::string(kMinimalBucket) + R"(
[[bucket.scope]]
name = "app"
collections = ["a"]
[[bucket.scope]]
name = "_default"
collections = ["extra"]
)",
                                         kSource);
  const BucketSpec& bucket = config.buckets[0];
  EXPECT_EQ(scope_ids(bucket), (std::vector<Ids>{{"_default", 0}, {"app", 8}}));
  EXPECT_EQ(collection_ids(bucket.scopes[0]), (std::vector<Ids>{{"_default", 0}, {"extra", 9}}));
  EXPECT_EQ(collection_ids(bucket.scopes[1]), (std::vector<Ids>{{"a", 8}}));
  EXPECT_EQ(bucket.manifest_uid, 3u);  // app, a and extra; _default was there already
}

TEST(ParseConfigTest, AnExplicitManifestUidWins) {
  const FileConfig config =
      parse_config(std::string(kMinimalBucket) + "manifest_uid = 42\n", kSource);
  EXPECT_EQ(config.buckets[0].manifest_uid, 42u);
}

TEST(ParseConfigTest, ReadsTheServerTable) {
  const FileConfig config = parse_config(std::string(R"(
[server]
listen = "::1"
port = 0
allow_plain_auth = true
anonymous_bucket = "b"
data_dir = "var/tern"
)") + kMinimalBucket,
                                         kSource);
  EXPECT_EQ(config.server.listen, "::1");
  EXPECT_EQ(config.server.port, 0);
  EXPECT_TRUE(config.server.allow_plain_auth);
  EXPECT_EQ(config.server.anonymous_bucket, "b");
  EXPECT_EQ(config.server.data_dir, "var/tern");
}

TEST(ParseConfigTest, ReadsTheTlsPortsAndTable) {
  const FileConfig config = parse_config(std::string(R"(
[server]
tls_port = 0
mgmt_tls_port = "none"
[tls]
certificate = "tls/server.pem"
private_key = "tls/server.key"
client_ca = "tls/client-ca.pem"
client_auth = "mandatory"
)") + kMinimalBucket,
                                         kSource);
  EXPECT_EQ(config.server.tls_port, std::optional<uint16_t>(0));
  ASSERT_TRUE(config.server.mgmt_tls_port.has_value());
  EXPECT_EQ(*config.server.mgmt_tls_port, std::nullopt);
  EXPECT_EQ(config.tls.certificate, "tls/server.pem");
  EXPECT_EQ(config.tls.private_key, "tls/server.key");
  EXPECT_EQ(config.tls.client_ca, "tls/client-ca.pem");
  EXPECT_EQ(config.tls.client_auth, "mandatory");

  const FileConfig without = parse_config(kMinimalBucket, kSource);
  EXPECT_FALSE(without.server.tls_port.has_value());
  EXPECT_FALSE(without.server.mgmt_tls_port.has_value());
  EXPECT_FALSE(without.tls.certificate.has_value());
}

TEST(ParseConfigTest, ReadsBucketTypesAndTheEvictionPolicy) {
  struct Row {
    std::string lines;  // added to the minimal bucket
    BucketType type;
    EvictionPolicy policy;
  };
  for (const Row& row : std::vector<Row>{
           {"", BucketType::Couchbase, EvictionPolicy::Value},
           {"type = \"couchbase\"\n", BucketType::Couchbase, EvictionPolicy::Value},
           {"type = \"couchbase\"\neviction_policy = \"value\"\n", BucketType::Couchbase,
            EvictionPolicy::Value},
           {"type = \"couchbase\"\neviction_policy = \"full\"\n", BucketType::Couchbase,
            EvictionPolicy::Full},
           {"eviction_policy = \"full\"\n", BucketType::Couchbase, EvictionPolicy::Full},
           {"type = \"ephemeral\"\n", BucketType::Ephemeral, EvictionPolicy::Value}}) {
    const FileConfig config = parse_config(kMinimalBucket + row.lines, kSource);
    EXPECT_EQ(config.buckets[0].type, row.type) << row.lines;
    EXPECT_EQ(config.buckets[0].eviction_policy, row.policy) << row.lines;
  }
}

TEST(ParseConfigTest, ADevPasswordWorksButWarnsNamingTheUserAndLine) {
  const FileConfig config = parse_config(std::string(kMinimalBucket) + R"(
[[user]]
name = "dev"
password = "secret"
)",
                                         kSource);
  ASSERT_EQ(config.users.size(), 1u);
  const UserSpec& user = config.users[0];
  EXPECT_EQ(user.name, "dev");
  EXPECT_EQ(user.dev_password, "secret");
  EXPECT_TRUE(user.credentials.empty());
  EXPECT_TRUE(user.buckets.empty());
  EXPECT_FALSE(user.admin);
  ASSERT_EQ(config.warnings.size(), 1u);
  EXPECT_EQ(config.warnings[0].rfind("test.toml:7:12: user[0].password: user 'dev' has a "
                                     "clear-text password",
                                     0),
            0u)
      << config.warnings[0];
  EXPECT_NE(config.warnings[0].find("ternd --hash-password"), std::string::npos);
}

TEST(ParseConfigTest, ScramLinesAsHashPasswordWritesThemReadBackStrongestFirst) {
  const std::vector<CredentialSpec> written = {fake_credential("SCRAM-SHA1", 20),
                                               fake_credential("SCRAM-SHA512", 64),
                                               fake_credential("SCRAM-SHA256", 32)};
  std::string text = std::string(kMinimalBucket) +
                     "[[bucket]]\nname = \"c\"\nmemory_quota_mb = 1\n"
                     "[[user]]\nname = \"app\"\nbuckets = [\"c\", \"b\"]\nadmin = true\n";
  for (const CredentialSpec& credential : written) text += credential_toml_line(credential) + "\n";

  const FileConfig config = parse_config(text, kSource);
  ASSERT_EQ(config.users.size(), 1u);
  const UserSpec& user = config.users[0];
  EXPECT_EQ(user.buckets, (std::vector<std::string>{"c", "b"}));
  EXPECT_TRUE(user.admin);
  EXPECT_EQ(user.dev_password, std::nullopt);
  EXPECT_TRUE(config.warnings.empty());
  ASSERT_EQ(user.credentials.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const CredentialSpec& read = user.credentials[i];
    const CredentialSpec& expected = written[(i + 1) % 3];  // SHA512, SHA256, SHA1
    EXPECT_EQ(read.mechanism, expected.mechanism);
    EXPECT_EQ(read.salt, expected.salt);
    EXPECT_EQ(read.iterations, expected.iterations);
    EXPECT_EQ(read.stored_key, expected.stored_key);
    EXPECT_EQ(read.server_key, expected.server_key);
  }
}

TEST(ParseConfigTest, CredentialLinesLookLikeTheDocumentedOnes) {
  CredentialSpec credential{"SCRAM-SHA1", "ab", std::string(20, '\0'), std::string(20, '\xFF'),
                            4096};
  EXPECT_EQ(credential_toml_line(credential),
            "scram_sha1 = { salt = \"YWI=\", iterations = 4096, "
            "stored_key = \"AAAAAAAAAAAAAAAAAAAAAAAAAAA=\", "
            "server_key = \"//////////////////////////8=\" }");
  credential.mechanism = "SCRAM-MD5";
  EXPECT_THROW(credential_toml_line(credential), std::invalid_argument);
}

TEST(ParseConfigTest, AStarGrantsEveryBucket) {
  const FileConfig config = parse_config(std::string(kMinimalBucket) + R"(
[[user]]
name = "ops"
buckets = ["*"]
password = "x"
)",
                                         kSource);
  EXPECT_EQ(config.users[0].buckets, std::vector<std::string>{"*"});
}

TEST(ParseConfigTest, SyntaxErrorsGiveTheLineAndColumn) {
  try {
    parse_config("[[bucket]]\nname = \"b\"\nmemory_quota_mb = = 3\n", kSource);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.source_name(), kSource);
    EXPECT_EQ(error.line(), 3u);
    EXPECT_GT(error.column(), 0u);
    EXPECT_EQ(std::string(error.what()).rfind("test.toml:3:", 0), 0u) << error.what();
    EXPECT_NE(error.problem().find("TOML syntax error"), std::string::npos) << error.what();
  }
}

TEST(ParseConfigTest, SemanticErrorsGiveThePathLineAndColumn) {
  try {
    parse_config("[[bucket]]\nname = \"b\"\nmemory_quota_mb = 0\n", kSource);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(),
                 "test.toml:3:19: bucket[0].memory_quota_mb: must be a whole number "
                 "1-1073741824 (got 0)");
    EXPECT_EQ(error.path(), "bucket[0].memory_quota_mb");
  }
}

struct Rejection {
  const char* what;  // the mistake
  std::string toml;
  std::string message;  // a part of what() that must appear
};

std::string with_bucket(const std::string& rest) { return kMinimalBucket + rest; }

std::string with_user(const std::string& user_lines) {
  return with_bucket("[[user]]\nname = \"u\"\n" + user_lines);
}

std::string with_secret(const std::string& secret) {
  return with_user("scram_sha1 = { " + secret + " }\n");
}

// A SHA-1 secret with one field replaced.
std::string sha1_secret(const std::string& salt, const std::string& iterations,
                        const std::string& stored_key) {
  return "salt = " + salt + ", iterations = " + iterations + ", stored_key = " + stored_key +
         ", server_key = \"AAAAAAAAAAAAAAAAAAAAAAAAAAA=\"";
}

const std::string kGoodKey = "\"AAAAAAAAAAAAAAAAAAAAAAAAAAA=\"";

std::vector<Rejection> rejections() {
  return {
      {"TOML syntax", "[[bucket]\n", "test.toml:1:"},
      {"no bucket", "", "test.toml: bucket: at least one [[bucket]] is required"},
      {"only a server table", "[server]\nport = 1\n", "at least one [[bucket]] is required"},
      {"bucket as a table", "[bucket]\nname = \"b\"\n",
       "bucket: must be an array of tables, each headed [[bucket]] (got a table)"},
      {"unknown top-level key", "buckets = 1\n" + with_bucket(""),
       "buckets: unknown key 'buckets' (this table accepts: server, tls, bucket, user)"},
      {"unknown top-level key, first in the file", "zz = 1\naa = 2\n" + with_bucket(""),
       "test.toml:1:1: zz: unknown key 'zz'"},
      {"misspelt bucket key", "[[bucket]]\nname = \"b\"\nmemory_quota = 256\n",
       "test.toml:3:1: bucket[0].memory_quota: unknown key 'memory_quota' (this table accepts: "
       "name, type, eviction_policy, memory_quota_mb, manifest_uid, scope, flush_enabled)"},
      {"flush_enabled as a string", with_bucket("flush_enabled = \"yes\"\n"),
       "bucket[0].flush_enabled: must be true or false (got a string)"},
      {"mgmt_port as a word other than none", "[server]\nmgmt_port = \"off\"\n" + with_bucket(""),
       "server.mgmt_port: must be a port number 0-65535 or \"none\""},
      {"mgmt_port out of range", "[server]\nmgmt_port = 70000\n" + with_bucket(""),
       "server.mgmt_port"},
      {"tls_port as a word other than none", "[server]\ntls_port = \"on\"\n" + with_bucket(""),
       "server.tls_port: must be a port number 0-65535 or \"none\""},
      {"mgmt_tls_port out of range", "[server]\nmgmt_tls_port = -1\n" + with_bucket(""),
       "server.mgmt_tls_port: must be a whole number 0-65535"},
      {"misspelt tls key", "[tls]\ncert = \"a.pem\"\n" + with_bucket(""),
       "tls.cert: unknown key 'cert' (this table accepts: certificate, private_key, client_ca, "
       "client_auth)"},
      {"tls certificate without a key", "[tls]\ncertificate = \"a.pem\"\n" + with_bucket(""),
       "test.toml:2:15: tls.certificate: needs private_key"},
      {"tls key without a certificate", "[tls]\nprivate_key = \"a.key\"\n" + with_bucket(""),
       "tls.private_key: needs certificate"},
      {"empty tls path", "[tls]\ncertificate = \"\"\nprivate_key = \"k\"\n" + with_bucket(""),
       "tls.certificate: must not be empty"},
      {"unknown client_auth", "[tls]\nclient_auth = \"required\"\n" + with_bucket(""),
       "tls.client_auth: must be \"disabled\", \"enabled\" or \"mandatory\" (got 'required')"},
      {"client_auth without client_ca", "[tls]\nclient_auth = \"enabled\"\n" + with_bucket(""),
       "tls.client_auth: \"enabled\" needs client_ca"},
      {"unknown bucket type", with_bucket("type = \"memcached\"\n"),
       "test.toml:4:8: bucket[0].type: must be \"couchbase\" (persistent) or \"ephemeral\" "
       "(memory only) (got 'memcached')"},
      {"bucket type as a boolean", with_bucket("type = true\n"),
       "bucket[0].type: must be a string (got a boolean)"},
      {"unknown eviction policy", with_bucket("eviction_policy = \"lru\"\n"),
       "bucket[0].eviction_policy: must be \"value\" or \"full\" (got 'lru')"},
      {"eviction policy of an ephemeral bucket",
       with_bucket("type = \"ephemeral\"\neviction_policy = \"value\"\n"),
       "bucket[0].eviction_policy: applies to couchbase buckets only"},
      {"full eviction of an ephemeral bucket",
       with_bucket("type = \"ephemeral\"\neviction_policy = \"full\"\n"),
       "bucket[0].eviction_policy: applies to couchbase buckets only"},
      {"empty data dir", "[server]\ndata_dir = \"\"\n" + with_bucket(""),
       "test.toml:2:12: server.data_dir: must not be empty"},
      {"data dir as a number", "[server]\ndata_dir = 5\n" + with_bucket(""),
       "server.data_dir: must be a string (got an integer)"},
      {"misspelt scope key", with_bucket("[[bucket.scope]]\nname = \"s\"\ncollection = [\"c\"]\n"),
       "bucket[0].scope[0].collection: unknown key 'collection'"},
      {"misspelt server key", "[server]\nlisten_address = \"::\"\n" + with_bucket(""),
       "server.listen_address: unknown key 'listen_address'"},
      {"misspelt user key", with_user("pasword = \"x\"\n"), "user[0].pasword: unknown key"},
      {"misspelt secret key",
       with_secret(sha1_secret("\"YWI=\"", "4096", kGoodKey) + ", iteration = 5000"),
       "user[0].scram_sha1.iteration: unknown key 'iteration'"},
      {"bucket without a name", "[[bucket]]\nmemory_quota_mb = 1\n", "bucket[0].name: is required"},
      {"bucket without a quota", "[[bucket]]\nname = \"b\"\n",
       "bucket[0].memory_quota_mb: is required"},
      {"quota zero", "[[bucket]]\nname = \"b\"\nmemory_quota_mb = 0\n",
       "must be a whole number 1-1073741824 (got 0)"},
      {"quota absurd", "[[bucket]]\nname = \"b\"\nmemory_quota_mb = 1073741825\n",
       "must be a whole number 1-1073741824 (got 1073741825)"},
      {"quota negative", "[[bucket]]\nname = \"b\"\nmemory_quota_mb = -5\n", "(got -5)"},
      {"quota as a string", "[[bucket]]\nname = \"b\"\nmemory_quota_mb = \"256\"\n",
       "bucket[0].memory_quota_mb: must be a whole number 1-1073741824 (got a string)"},
      {"quota as a float", "[[bucket]]\nname = \"b\"\nmemory_quota_mb = 2.5\n",
       "(got a floating-point number)"},
      {"negative manifest uid", with_bucket("manifest_uid = -1\n"),
       "bucket[0].manifest_uid: must be a whole number 0-9223372036854775807 (got -1)"},
      {"bucket name starting with a dot", "[[bucket]]\nname = \".b\"\nmemory_quota_mb = 1\n",
       "bucket[0].name: bucket name '.b' must not start with '.'"},
      {"bucket name with a space", "[[bucket]]\nname = \"my b\"\nmemory_quota_mb = 1\n",
       "bucket name 'my b' may contain only"},
      {"empty bucket name", "[[bucket]]\nname = \"\"\nmemory_quota_mb = 1\n",
       "bucket name '' must be 1-100 characters long"},
      {"long bucket name",
       "[[bucket]]\nname = \"" + std::string(101, 'b') + "\"\nmemory_quota_mb = 1\n",
       "must be 1-100 characters long"},
      {"duplicate bucket", with_bucket("") + kMinimalBucket,
       "test.toml:5:8: bucket[1].name: bucket 'b' is declared twice"},
      {"scope without a name", with_bucket("[[bucket.scope]]\ncollections = []\n"),
       "bucket[0].scope[0].name: is required"},
      {"system scope name", with_bucket("[[bucket.scope]]\nname = \"_system\"\n"),
       "bucket[0].scope[0].name: scope name '_system' must not start with '_' or '%'"},
      {"scope name with a dot", with_bucket("[[bucket.scope]]\nname = \"a.b\"\n"),
       "scope name 'a.b' may contain only A-Z, a-z, 0-9, '_', '%' and '-'"},
      {"long scope name",
       with_bucket("[[bucket.scope]]\nname = \"" + std::string(252, 's') + "\"\n"),
       "must be 1-251 characters long"},
      {"duplicate scope",
       with_bucket("[[bucket.scope]]\nname = \"s\"\n[[bucket.scope]]\nname = \"s\"\n"),
       "bucket[0].scope[1].name: scope name 's' is declared twice in bucket 'b'"},
      {"default scope declared twice",
       with_bucket("[[bucket.scope]]\nname = \"_default\"\n[[bucket.scope]]\nname = "
                   "\"_default\"\n"),
       "scope name '_default' is declared twice in bucket 'b'"},
      {"scope as a table", with_bucket("[bucket.scope]\nname = \"s\"\n"),
       "bucket[0].scope: must be an array of tables, each headed [[bucket[0].scope]]"},
      {"duplicate collection",
       with_bucket("[[bucket.scope]]\nname = \"s\"\ncollections = [\"c\", \"d\", \"c\"]\n"),
       "bucket[0].scope[0].collections[2]: collection name 'c' is declared twice in scope 's'"},
      {"default collection declared",
       with_bucket("[[bucket.scope]]\nname = \"_default\"\ncollections = [\"_default\"]\n"),
       "collection name '_default' always exists in the _default scope"},
      {"default collection in another scope",
       with_bucket("[[bucket.scope]]\nname = \"s\"\ncollections = [\"_default\"]\n"),
       "collection name '_default' is reserved for the _default scope's own collection"},
      {"system collection name",
       with_bucket("[[bucket.scope]]\nname = \"s\"\ncollections = [\"%c\"]\n"),
       "collection name '%c' must not start with '_' or '%'"},
      {"collection that is not a string",
       with_bucket("[[bucket.scope]]\nname = \"s\"\ncollections = [\"c\", 7]\n"),
       "bucket[0].scope[0].collections[1]: must be a string (got an integer)"},
      {"collections as a string",
       with_bucket("[[bucket.scope]]\nname = \"s\"\ncollections = \"c\"\n"),
       "bucket[0].scope[0].collections: must be an array of strings (got a string)"},
      {"port out of range", "[server]\nport = 65536\n" + with_bucket(""),
       "test.toml:2:8: server.port: must be a whole number 0-65535 (got 65536)"},
      {"negative port", "[server]\nport = -1\n" + with_bucket(""), "server.port: must be"},
      {"host name for listen", "[server]\nlisten = \"localhost\"\n" + with_bucket(""),
       "server.listen: must be an IPv4 or IPv6 address (got 'localhost')"},
      {"switch as a string", "[server]\nallow_plain_auth = \"yes\"\n" + with_bucket(""),
       "server.allow_plain_auth: must be true or false (got a string)"},
      {"unknown anonymous bucket", "[server]\nanonymous_bucket = \"nope\"\n" + with_bucket(""),
       "server.anonymous_bucket: no bucket 'nope' is declared"},
      {"server as an array", "server = []\n" + with_bucket(""),
       "server: must be a table (got an array)"},
      {"user without a name", with_bucket("[[user]]\npassword = \"x\"\n"),
       "user[0].name: is required"},
      {"user name with a colon", with_bucket("[[user]]\nname = \"a:b\"\npassword = \"x\"\n"),
       "user[0].name: user name 'a:b' must not contain any of"},
      {"user name with a space", with_bucket("[[user]]\nname = \"a b\"\npassword = \"x\"\n"),
       "must not contain spaces or control characters"},
      {"duplicate user",
       with_bucket("[[user]]\nname = \"u\"\npassword = \"x\"\n[[user]]\nname = \"u\"\n"
                   "password = \"y\"\n"),
       "user[1].name: user 'u' is declared twice"},
      {"user with no way to log in", with_user("buckets = [\"b\"]\n"),
       "test.toml:4:1: user[0]: user 'u' has no way to log in"},
      {"user with a password and secrets",
       with_user("password = \"x\"\nscram_sha1 = { " + sha1_secret("\"YWI=\"", "4096", kGoodKey) +
                 " }\n"),
       "user[0].password: give either a password or scram_* secrets, not both"},
      {"empty password", with_user("password = \"\"\n"), "user[0].password: must not be empty"},
      {"grant of an unknown bucket", with_user("password = \"x\"\nbuckets = [\"b\", \"nope\"]\n"),
       "user[0].buckets[1]: no bucket 'nope' is declared"},
      {"grant listed twice", with_user("password = \"x\"\nbuckets = [\"b\", \"b\"]\n"),
       "user[0].buckets[1]: 'b' is listed twice"},
      {"star among names", with_user("password = \"x\"\nbuckets = [\"b\", \"*\"]\n"),
       "user[0].buckets[1]: '*' already grants every bucket: list it alone"},
      {"buckets as a string", with_user("password = \"x\"\nbuckets = \"*\"\n"),
       "user[0].buckets: must be an array of strings (got a string)"},
      {"admin as a string", with_user("password = \"x\"\nadmin = \"yes\"\n"),
       "user[0].admin: must be true or false"},
      {"secret that is not a table", with_user("scram_sha512 = \"abc\"\n"),
       "user[0].scram_sha512: must be a table (got a string)"},
      {"bad base64 salt", with_secret(sha1_secret("\"not base64!\"", "4096", kGoodKey)),
       "user[0].scram_sha1.salt: is not valid base64"},
      {"unpadded base64 key",
       with_secret(sha1_secret("\"YWI=\"", "4096", "\"AAAAAAAAAAAAAAAAAAAAAAAAAAA\"")),
       "user[0].scram_sha1.stored_key: is not valid base64"},
      {"empty salt", with_secret(sha1_secret("\"\"", "4096", kGoodKey)),
       "user[0].scram_sha1.salt: must not be empty"},
      {"key of the wrong size", with_secret(sha1_secret("\"YWI=\"", "4096", "\"AAAA\"")),
       "user[0].scram_sha1.stored_key: must be 20 bytes for SCRAM-SHA1 (got 3)"},
      {"too few iterations", with_secret(sha1_secret("\"YWI=\"", "4095", kGoodKey)),
       "user[0].scram_sha1.iterations: must be a whole number 4096-4294967295 (got 4095)"},
      {"too many iterations", with_secret(sha1_secret("\"YWI=\"", "4294967296", kGoodKey)),
       "(got 4294967296)"},
      {"missing iterations",
       with_secret("salt = \"YWI=\", stored_key = " + kGoodKey + ", server_key = " + kGoodKey),
       "user[0].scram_sha1.iterations: is required"},
      {"missing server key",
       with_secret("salt = \"YWI=\", iterations = 4096, stored_key = " + kGoodKey),
       "user[0].scram_sha1.server_key: is required"},
  };
}

TEST(ParseConfigTest, RefusesEachMistakeNamingFilePlaceAndProblem) {
  for (const Rejection& rejection : rejections()) {
    try {
      parse_config(rejection.toml, kSource);
      ADD_FAILURE() << rejection.what << ": accepted:\n" << rejection.toml;
    } catch (const ConfigError& error) {
      const std::string what = error.what();
      EXPECT_EQ(what.rfind("test.toml:", 0), 0u) << rejection.what << ": " << what;
      EXPECT_NE(what.find(rejection.message), std::string::npos)
          << rejection.what << ":\n  expected: " << rejection.message << "\n  got:      " << what;
    }
  }
}

}  // namespace
}  // namespace tern::config
