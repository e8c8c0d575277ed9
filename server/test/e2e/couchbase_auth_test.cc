// Who may do what, end to end: SASL (SCRAM), SELECT_BUCKET and the refusals before them,
// against a real ternd started from the development configuration without its anonymous
// bucket; the anonymous bucket of dev.toml; and ternd without a configuration, which stays
// an open memcached.

#include <gtest/gtest.h>

#include <memory>

#include "auth/test_scram_client.h"
#include "couchbase_session.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

using auth::ScramAlgorithm;

class CouchbaseAuthTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    config_ = std::make_unique<StrictDevConfig>();
    server_ = std::make_unique<TerndProcess>(config_->args());
  }
  static void TearDownTestSuite() {
    server_.reset();
    config_.reset();
  }

  void SetUp() override {
    ASSERT_NE(server_->port(), 0);
    session_ = std::make_unique<CouchbaseSession>(server_->port());
    ASSERT_TRUE(session_->connected());
  }

  static std::unique_ptr<StrictDevConfig> config_;
  static std::unique_ptr<TerndProcess> server_;
  std::unique_ptr<CouchbaseSession> session_;
};

std::unique_ptr<StrictDevConfig> CouchbaseAuthTest::config_;
std::unique_ptr<TerndProcess> CouchbaseAuthTest::server_;

TEST_F(CouchbaseAuthTest, ListsTheScramMechanisms) {
  Response mechs = session_->call(simple(Opcode::SaslListMechs));
  ASSERT_EQ(mechs.status, Status::Success);
  for (const char* mechanism : {"SCRAM-SHA512", "SCRAM-SHA256", "SCRAM-SHA1"}) {
    EXPECT_NE(mechs.value.find(mechanism), std::string::npos) << mechs.value;
  }
  // dev.toml does not enable PLAIN.
  EXPECT_EQ(mechs.value.find("PLAIN"), std::string::npos) << mechs.value;
}

TEST_F(CouchbaseAuthTest, EveryScramAlgorithmLogsIn) {
  for (ScramAlgorithm algorithm :
       {ScramAlgorithm::Sha512, ScramAlgorithm::Sha256, ScramAlgorithm::Sha1}) {
    CouchbaseSession session(server_->port());
    session.hello({kXerror, kSelectBucket});
    EXPECT_EQ(session.login(kAdminUser, kAdminPassword, algorithm), Status::Success)
        << auth::mechanism_name(algorithm);
    EXPECT_EQ(session.select_bucket(), Status::Success);
    EXPECT_EQ(session.call(store(Opcode::Set, "scram-login", "v")).status, Status::Success);
  }
}

TEST_F(CouchbaseAuthTest, WrongPasswordAnswersAuthErrorAndTheConnectionMayRetry) {
  session_->hello({kXerror, kSelectBucket});
  EXPECT_EQ(session_->login(kAdminUser, "not-the-password"), Status::AuthError);
  EXPECT_EQ(session_->call(simple(Opcode::Get, "after-wrong-password")).status, Status::Eaccess);
  EXPECT_EQ(session_->login(), Status::Success);
  EXPECT_EQ(session_->select_bucket(), Status::Success);
  EXPECT_EQ(session_->call(simple(Opcode::Get, "after-wrong-password")).status,
            Status::KeyEnoent);
  // The log names the failure, never the password.
  EXPECT_EQ(server_->log().find("not-the-password"), std::string::npos);
}

TEST_F(CouchbaseAuthTest, UnknownUserAnswersAuthError) {
  session_->hello({kXerror});
  EXPECT_EQ(session_->login("nobody", kAdminPassword), Status::AuthError);
  EXPECT_EQ(session_->call(simple(Opcode::Noop)).status, Status::Success);
}

TEST_F(CouchbaseAuthTest, UnauthenticatedDataCommandsAnswerEaccess) {
  session_->hello({kXerror});
  EXPECT_EQ(session_->call(simple(Opcode::Get, "k")).status, Status::Eaccess);
  EXPECT_EQ(session_->call(store(Opcode::Set, "k", "v")).status, Status::Eaccess);
  EXPECT_EQ(session_->select_bucket(), Status::Eaccess);
  EXPECT_EQ(session_->call(simple(Opcode::GetClusterConfig)).status, Status::Eaccess);
  // What needs no user still answers.
  EXPECT_EQ(session_->call(simple(Opcode::Noop)).status, Status::Success);

  // A client without XERROR gets Eaccess mapped down to AuthError.
  CouchbaseSession classic(server_->port());
  EXPECT_EQ(classic.call(simple(Opcode::Get, "k")).status, Status::AuthError);
}

TEST_F(CouchbaseAuthTest, DataCommandsBeforeSelectBucketAnswerNoBucket) {
  session_->hello({kXerror, kSelectBucket});
  ASSERT_EQ(session_->login(), Status::Success);
  EXPECT_EQ(session_->call(simple(Opcode::Get, "k")).status, Status::NoBucket);
  EXPECT_EQ(session_->call(store(Opcode::Set, "k", "v")).status, Status::NoBucket);
  ASSERT_EQ(session_->select_bucket(), Status::Success);
  EXPECT_EQ(session_->call(store(Opcode::Set, "k", "v")).status, Status::Success);
}

TEST_F(CouchbaseAuthTest, MalformedScramMessageAnswersEinvalAndKeepsTheConnection) {
  session_->hello({kXerror});
  // Not a SCRAM client-first message at all.
  EXPECT_EQ(session_->call(simple(Opcode::SaslAuth, "SCRAM-SHA512", "garbage")).status,
            Status::Einval);
  EXPECT_EQ(session_->call(simple(Opcode::Noop)).status, Status::Success);
  // A good first message, then a final one that is not SCRAM.
  auth::TestScramClient scram(ScramAlgorithm::Sha512, kAdminUser, kAdminPassword);
  Response first = session_->call(simple(Opcode::SaslAuth, "SCRAM-SHA512", scram.first()));
  ASSERT_EQ(first.status, Status::AuthContinue);
  EXPECT_EQ(session_->call(simple(Opcode::SaslStep, "SCRAM-SHA512", "p=,,,")).status,
            Status::Einval);
  EXPECT_EQ(session_->call(simple(Opcode::Noop)).status, Status::Success);
  EXPECT_EQ(session_->login(), Status::Success);
}

TEST_F(CouchbaseAuthTest, SaslStepWithoutSaslAuthAnswersEinval) {
  session_->hello({kXerror});
  EXPECT_EQ(session_->call(simple(Opcode::SaslStep, "SCRAM-SHA512", "c=biws,r=abc,p=AAAA"))
                .status,
            Status::Einval);
  EXPECT_EQ(session_->call(simple(Opcode::Noop)).status, Status::Success);
  EXPECT_EQ(session_->login(), Status::Success);
}

TEST_F(CouchbaseAuthTest, UnknownMechanismIsRefusedAndTheConnectionKeepsWorking) {
  session_->hello({kXerror});
  const Status status = session_->call(simple(Opcode::SaslAuth, "NO-SUCH-MECH", "x")).status;
  EXPECT_TRUE(status == Status::NotSupported || status == Status::AuthError)
      << "status 0x" << std::hex << static_cast<int>(status);
  EXPECT_EQ(session_->login(), Status::Success);
}

TEST_F(CouchbaseAuthTest, SelectBucketWithA300ByteNameAnswersEinval) {
  session_->hello({kXerror, kSelectBucket});
  ASSERT_EQ(session_->login(), Status::Success);
  EXPECT_EQ(session_->select_bucket(std::string(300, 'b')), Status::Einval);
  EXPECT_EQ(session_->select_bucket(), Status::Success);
}

TEST_F(CouchbaseAuthTest, SetClusterConfigNeedsTheAdminRoleAndValidJson) {
  // Only the administrator exists in dev.toml, so the non-admin case is an unauthenticated
  // connection that selected nothing.
  CouchbaseSession anonymous(server_->port());
  anonymous.hello({kXerror});
  EXPECT_EQ(anonymous.call(simple(Opcode::SetClusterConfig, kDefaultBucket, "{}")).status,
            Status::Eaccess);

  session_->open({kXerror, kSelectBucket});
  EXPECT_EQ(session_->call(simple(Opcode::SetClusterConfig, kDefaultBucket, "{not json")).status,
            Status::Einval);
  EXPECT_EQ(session_->call(simple(Opcode::Noop)).status, Status::Success);
}

// dev.toml names "default" as its anonymous bucket: memcached clients, which cannot log
// in, use it without HELLO or SASL. Logging in leaves it, as Couchbase requires a
// SELECT_BUCKET after authenticating.
TEST(CouchbaseAnonymousBucketTest, UnauthenticatedClientsUseTheAnonymousBucketOnly) {
  TerndProcess server(dev_config_args());
  ASSERT_NE(server.port(), 0);
  Client memcached(server.port());
  ASSERT_EQ(memcached.call(store(Opcode::Set, "anonymous", "v")).status, Status::Success);
  EXPECT_EQ(memcached.call(simple(Opcode::Get, "anonymous")).value, "v");

  CouchbaseSession session(server.port());
  session.hello({kXerror, kSelectBucket});
  EXPECT_EQ(session.call(simple(Opcode::Get, "anonymous")).value, "v");
  EXPECT_EQ(session.select_bucket(kDefaultBucket), Status::Success);
  EXPECT_EQ(session.select_bucket("no-such-bucket"), Status::Eaccess);
  ASSERT_EQ(session.login(), Status::Success);
  EXPECT_EQ(session.call(simple(Opcode::Get, "anonymous")).status, Status::NoBucket);
  ASSERT_EQ(session.select_bucket(), Status::Success);
  EXPECT_EQ(session.call(simple(Opcode::Get, "anonymous")).value, "v");
}

// Without --config, ternd is the memcached it was: one open bucket, no HELLO, no login.
TEST(MemcachedWithoutConfigTest, DataCommandsNeedNoHelloAndNoAuthentication) {
  TerndProcess server;
  ASSERT_NE(server.port(), 0);
  Client client(server.port());
  ASSERT_TRUE(client.connected());
  EXPECT_EQ(client.call(simple(Opcode::Get, "open")).status, Status::KeyEnoent);
  ASSERT_EQ(client.call(store(Opcode::Set, "open", "v")).status, Status::Success);
  Response got = client.call(simple(Opcode::Get, "open"));
  EXPECT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.value, "v");
  EXPECT_TRUE(got.extras.size() == 4 && got.magic == 0x81);
}

}  // namespace
}  // namespace tern::e2e
