#include "auth/plain.h"

#include <gtest/gtest.h>

namespace tern::auth {
namespace {

using namespace std::string_view_literals;

class PlainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    User alice;
    alice.name = "alice";
    alice.credentials = {derive_credential(ScramAlgorithm::Sha1, "old", "s1", 10),
                         derive_credential(ScramAlgorithm::Sha512, "pw", "s2", 10)};
    users_.add(std::move(alice));
    User bob;
    bob.name = "bob";
    bob.credentials = {derive_credential(ScramAlgorithm::Sha256, "pw", "s3", 10)};
    users_.add(std::move(bob));
    User carol;  // no credentials: cannot log in
    carol.name = "carol";
    users_.add(std::move(carol));
  }
  UserDirectory users_;
};

TEST_F(PlainTest, ParsesTheThreeParts) {
  PlainMessage parsed;
  ASSERT_TRUE(parse_plain("zid\0cid\0secret"sv, parsed));
  EXPECT_EQ(parsed.authzid, "zid");
  EXPECT_EQ(parsed.authcid, "cid");
  EXPECT_EQ(parsed.password, "secret");
  ASSERT_TRUE(parse_plain("\0cid\0secret"sv, parsed));
  EXPECT_EQ(parsed.authzid, "");
}

TEST_F(PlainTest, AcceptsTheRightPasswordAgainstTheStrongestCredential) {
  PlainResult result = check_plain(users_, "\0alice\0pw"sv);
  EXPECT_EQ(result.outcome, PlainOutcome::Success);
  EXPECT_EQ(result.user, "alice");
  // alice's SHA-1 credential holds another password; the SHA-512 one decides.
  EXPECT_EQ(check_plain(users_, "\0alice\0old"sv).outcome, PlainOutcome::AuthFailed);
  EXPECT_EQ(check_plain(users_, "\0bob\0pw"sv).outcome, PlainOutcome::Success);
}

TEST_F(PlainTest, FailsWrongPasswordsUnknownUsersAndUsersWithoutCredentials) {
  for (std::string_view message : {"\0alice\0PW"sv, "\0alice\0p"sv, "\0alice\0pw "sv,
                                   "\0mallory\0pw"sv, "\0carol\0pw"sv, "\0Alice\0pw"sv}) {
    PlainResult result = check_plain(users_, message);
    EXPECT_EQ(result.outcome, PlainOutcome::AuthFailed);
    EXPECT_EQ(result.user, "");
  }
}

TEST_F(PlainTest, AllowsAnAuthzidOnlyWhenItIsTheUserItself) {
  EXPECT_EQ(check_plain(users_, "alice\0alice\0pw"sv).outcome, PlainOutcome::Success);
  EXPECT_EQ(check_plain(users_, "bob\0alice\0pw"sv).outcome, PlainOutcome::AuthFailed);
}

TEST_F(PlainTest, RefusesMessagesWithoutThePlainShape) {
  for (std::string_view message : {""sv, "alice"sv, "alice\0pw"sv, "\0alice\0pw\0"sv, "\0\0pw"sv,
                                   "\0alice\0"sv, "\0\0"sv, "a\0b\0c\0d"sv}) {
    EXPECT_EQ(check_plain(users_, message).outcome, PlainOutcome::Malformed);
  }
}

}  // namespace
}  // namespace tern::auth
