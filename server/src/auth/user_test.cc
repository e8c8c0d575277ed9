#include "auth/user.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tern::auth {
namespace {

ScramCredential credential(ScramAlgorithm algorithm, uint32_t iterations = 10) {
  return derive_credential(algorithm, "pw", "salt", iterations);
}

User make_user(std::string name, std::vector<ScramCredential> credentials = {},
               std::vector<std::string> buckets = {}, bool admin = false) {
  User user;
  user.name = std::move(name);
  user.credentials = std::move(credentials);
  user.buckets = std::move(buckets);
  user.admin = admin;
  return user;
}

TEST(UserTest, FindsTheCredentialOfEachAlgorithm) {
  User user =
      make_user("alice", {credential(ScramAlgorithm::Sha1), credential(ScramAlgorithm::Sha512)});
  ASSERT_NE(user.credential(ScramAlgorithm::Sha1), nullptr);
  EXPECT_EQ(user.credential(ScramAlgorithm::Sha1)->algorithm, ScramAlgorithm::Sha1);
  EXPECT_EQ(user.credential(ScramAlgorithm::Sha512)->algorithm, ScramAlgorithm::Sha512);
  EXPECT_EQ(user.credential(ScramAlgorithm::Sha256), nullptr);
}

TEST(UserTest, MayUseTheGrantedBucketsOnly) {
  User user = make_user("alice", {}, {"travel", "beer"});
  EXPECT_TRUE(user.may_use("travel"));
  EXPECT_TRUE(user.may_use("beer"));
  EXPECT_FALSE(user.may_use("Travel"));
  EXPECT_FALSE(user.may_use("travel-sample"));
  EXPECT_FALSE(user.may_use(""));
}

TEST(UserTest, AStarGrantsEveryBucket) {
  User user = make_user("ops", {}, {"*"});
  EXPECT_TRUE(user.may_use("travel"));
  EXPECT_TRUE(user.may_use("anything"));
  EXPECT_FALSE(user.may_use(""));
}

TEST(UserTest, AdminGrantsNoBucketByItself) {
  User admin = make_user("root", {}, {}, /*admin=*/true);
  EXPECT_FALSE(admin.may_use("travel"));
}

TEST(UserDirectoryTest, FindsUsersByExactName) {
  UserDirectory users;
  users.add(make_user("alice", {}, {"a"}));
  users.add(make_user("bob", {}, {}, /*admin=*/true));
  EXPECT_EQ(users.size(), 2u);
  ASSERT_NE(users.find("alice"), nullptr);
  EXPECT_EQ(users.find("alice")->buckets, std::vector<std::string>{"a"});
  EXPECT_TRUE(users.find("bob")->admin);
  EXPECT_EQ(users.find("Alice"), nullptr);
  EXPECT_EQ(users.find("carol"), nullptr);
  EXPECT_EQ(users.find(""), nullptr);
}

TEST(UserDirectoryTest, RefusesNamelessDuplicateAndDoubleCredentialedUsers) {
  UserDirectory users;
  users.add(make_user("alice"));
  EXPECT_THROW(users.add(make_user("alice")), std::invalid_argument);
  EXPECT_THROW(users.add(make_user("")), std::invalid_argument);
  EXPECT_THROW(users.add(make_user(
                   "bob", {credential(ScramAlgorithm::Sha1), credential(ScramAlgorithm::Sha1)})),
               std::invalid_argument);
  EXPECT_EQ(users.size(), 1u);
}

TEST(UserDirectoryTest, DecoysClaimTheCommonestIterationCount) {
  UserDirectory users;
  EXPECT_EQ(users.decoy_iterations(ScramAlgorithm::Sha512), kDefaultIterations);
  users.add(make_user("a", {credential(ScramAlgorithm::Sha512, 5)}));
  EXPECT_EQ(users.decoy_iterations(ScramAlgorithm::Sha512), 5u);
  users.add(make_user("b", {credential(ScramAlgorithm::Sha512, 7)}));
  EXPECT_EQ(users.decoy_iterations(ScramAlgorithm::Sha512), 7u);  // a tie: the larger
  users.add(
      make_user("c", {credential(ScramAlgorithm::Sha512, 5), credential(ScramAlgorithm::Sha1, 3)}));
  EXPECT_EQ(users.decoy_iterations(ScramAlgorithm::Sha512), 5u);
  EXPECT_EQ(users.decoy_iterations(ScramAlgorithm::Sha1), 3u);
  EXPECT_EQ(users.decoy_iterations(ScramAlgorithm::Sha256), kDefaultIterations);
}

}  // namespace
}  // namespace tern::auth
