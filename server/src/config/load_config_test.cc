// load_config on real files: the development configuration that ships with ternd, and files
// that cannot be read.

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "config/file_config.h"

namespace tern::config {
namespace {

const std::string kDevToml = TERN_TESTDATA_DIR "/../server/config/dev.toml";

TEST(LoadConfigTest, TheDevelopmentConfigurationIsWhatItsCommentsSay) {
  const FileConfig config = load_config(kDevToml);
  EXPECT_EQ(config.server.listen, "127.0.0.1");
  EXPECT_EQ(config.server.port, 11210);
  EXPECT_FALSE(config.server.allow_plain_auth);
  EXPECT_EQ(config.server.anonymous_bucket, "default");  // for memcached tools in development
  EXPECT_EQ(config.server.data_dir, "data");  // relative: the repository's git-ignored data/

  ASSERT_EQ(config.buckets.size(), 1u);
  const BucketSpec& bucket = config.buckets[0];
  EXPECT_EQ(bucket.name, "default");
  EXPECT_EQ(bucket.type, BucketType::Couchbase);
  EXPECT_EQ(bucket.memory_quota_bytes, 256u * 1024 * 1024);
  EXPECT_EQ(bucket.manifest_uid, 3u);
  ASSERT_EQ(bucket.scopes.size(), 2u);
  EXPECT_EQ(bucket.scopes[1].name, "app");
  EXPECT_EQ(bucket.scopes[1].id, 8u);
  ASSERT_EQ(bucket.scopes[1].collections.size(), 2u);
  EXPECT_EQ(bucket.scopes[1].collections[0].name, "users");
  EXPECT_EQ(bucket.scopes[1].collections[0].id, 8u);
  EXPECT_EQ(bucket.scopes[1].collections[1].name, "orders");
  EXPECT_EQ(bucket.scopes[1].collections[1].id, 9u);

  ASSERT_EQ(config.users.size(), 1u);
  const UserSpec& user = config.users[0];
  EXPECT_EQ(user.name, "Administrator");
  EXPECT_EQ(user.dev_password, "password");
  EXPECT_TRUE(user.admin);
  EXPECT_EQ(user.buckets, std::vector<std::string>{"*"});
  // The clear-text password is flagged, with the file's own name.
  ASSERT_EQ(config.warnings.size(), 1u);
  EXPECT_EQ(config.warnings[0].rfind(kDevToml + ":", 0), 0u) << config.warnings[0];
}

TEST(LoadConfigTest, AMissingFileIsAnErrorNamingIt) {
  const std::string path = ::testing::TempDir() + "no-such-tern-config.toml";
  try {
    load_config(path);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              path + ": cannot open the file: No such file or directory");
  }
}

TEST(LoadConfigTest, ADirectoryIsAnErrorNamingIt) {
  try {
    load_config(::testing::TempDir());
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("is a directory"), std::string::npos) << error.what();
  }
}

TEST(LoadConfigTest, ErrorsInsideTheFileNameItsPath) {
  const std::string path =
      ::testing::TempDir() + "tern-config-" + std::to_string(getpid()) + ".toml";
  std::ofstream(path) << "[[bucket]]\nname = \"b\"\n";
  try {
    load_config(path);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()).rfind(path + ":", 0), 0u) << error.what();
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tern::config
