// SASL_LIST_MECHS, SASL_AUTH and SASL_STEP on a node with users, driven by an independent
// SCRAM client (auth/test_scram_client.h). Time is the node's ManualClock, so the failure
// throttle's windows are crossed without sleeping.
#include <gtest/gtest.h>

#include <string>

#include "auth/failure_throttle.h"
#include "commands/dispatcher_harness.h"

namespace tern::commands {
namespace {

using auth::ScramAlgorithm;
using protocol::Opcode;
using protocol::Status;
using namespace testing;

class AuthenticationTest : public CommandsTest {
 protected:
  // A connection that negotiated XERROR, as every SDK does.
  Connection& client() {
    Connection& c = connect();
    c.hello({Feature::Xerror});
    return c;
  }

  static Request sasl_auth(std::string mechanism, std::string data) {
    return {.opcode = Opcode::SaslAuth, .key = std::move(mechanism), .value = std::move(data)};
  }
  static Request sasl_step(std::string mechanism, std::string data) {
    return {.opcode = Opcode::SaslStep, .key = std::move(mechanism), .value = std::move(data)};
  }
};

TEST_F(AuthenticationTest, ListMechsOffersScramStrongestFirstAndNoPlainByDefault) {
  const Response answer = client().one({.opcode = Opcode::SaslListMechs});
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.value, "SCRAM-SHA512 SCRAM-SHA256 SCRAM-SHA1");
}

TEST_F(AuthenticationTest, ListMechsOffersPlainWhenTheConfigAllowsIt) {
  use_secure_node(secure_settings(/*allow_plain_auth=*/true));
  EXPECT_EQ(client().one({.opcode = Opcode::SaslListMechs}).value,
            "SCRAM-SHA512 SCRAM-SHA256 SCRAM-SHA1 PLAIN");
}

class ScramExchangeTest : public AuthenticationTest,
                          public ::testing::WithParamInterface<ScramAlgorithm> {};

TEST_P(ScramExchangeTest, FullExchangeAuthenticatesWithoutSelectingABucket) {
  const ScramAlgorithm algorithm = GetParam();
  const std::string mechanism(auth::mechanism_name(algorithm));
  Connection& c = client();
  auth::TestScramClient scram(algorithm, "reader", "password", "fyko+d2lbbFgONRv9qkxdawL");

  const Response first = c.one(sasl_auth(mechanism, scram.first()));
  EXPECT_EQ(first.status, Status::AuthContinue);
  EXPECT_EQ(first.opcode, static_cast<uint8_t>(Opcode::SaslAuth));
  // server-first: the client's nonce extended by the server's, the salt, the iterations.
  EXPECT_TRUE(first.value.starts_with("r=fyko+d2lbbFgONRv9qkxdawL")) << first.value;
  EXPECT_NE(first.value.find(",s="), std::string::npos) << first.value;
  EXPECT_TRUE(first.value.ends_with(",i=4096")) << first.value;
  EXPECT_FALSE(c.session().authenticated());

  const Response last = c.one(sasl_step(mechanism, scram.final(first.value)));
  EXPECT_EQ(last.status, Status::Success);
  EXPECT_EQ(last.opcode, static_cast<uint8_t>(Opcode::SaslStep));
  EXPECT_EQ(last.value, scram.expected_server_final());

  EXPECT_TRUE(c.session().authenticated());
  EXPECT_EQ(c.session().user(), "reader");
  EXPECT_FALSE(c.session().admin());
  EXPECT_EQ(c.session().bucket, nullptr);
  EXPECT_EQ(c.get("k").status, Status::NoBucket);
}

INSTANTIATE_TEST_SUITE_P(EachAlgorithm, ScramExchangeTest,
                         ::testing::Values(ScramAlgorithm::Sha512, ScramAlgorithm::Sha256,
                                           ScramAlgorithm::Sha1),
                         [](const auto& info) {
                           return std::string(auth::mechanism_name(info.param)).substr(6);
                         });

TEST_F(AuthenticationTest, AnAdministratorIsAnAdmin) {
  Connection& c = client();
  EXPECT_EQ(c.authenticate("Administrator", "password").status, Status::Success);
  EXPECT_TRUE(c.session().admin());
  EXPECT_EQ(c.session().user(), "Administrator");
}

// Couchbase requires a new SELECT_BUCKET after authenticating, even as the same user.
TEST_F(AuthenticationTest, AuthenticatingAgainDropsTheSelectedBucket) {
  Connection& c = client();
  ASSERT_EQ(c.authenticate("reader", "password").status, Status::Success);
  ASSERT_EQ(c.select_bucket("default").status, Status::Success);
  ASSERT_EQ(c.set("k", "v").status, Status::Success);
  ASSERT_EQ(c.authenticate("reader", "password", ScramAlgorithm::Sha1).status, Status::Success);
  EXPECT_EQ(c.session().bucket, nullptr);
  EXPECT_EQ(c.get("k").status, Status::NoBucket);
}

TEST_F(AuthenticationTest, WrongPasswordIsAuthErrorAndTheConnectionStaysUsable) {
  Connection& c = client();
  const Response refused = c.authenticate("reader", "wrong");
  expect_error(refused, Status::AuthError);
  EXPECT_FALSE(c.session().authenticated());
  EXPECT_EQ(c.get("k").status, Status::Eaccess);
  EXPECT_EQ(c.one({.opcode = Opcode::Noop}).status, Status::Success);
  // A mistyped password costs nothing: the retry is checked at once.
  EXPECT_EQ(c.authenticate("reader", "password").status, Status::Success);
  EXPECT_TRUE(c.session().authenticated());
  EXPECT_EQ(c.session().auth_failures.failures(), 0);
}

TEST_F(AuthenticationTest, UnknownUserIsAuthErrorLikeAWrongPassword) {
  expect_error(client().authenticate("nobody", "password"), Status::AuthError);
}

TEST_F(AuthenticationTest, FourthFailureThrottlesAttemptsUntilItsWindowEnds) {
  Connection& c = client();
  for (int i = 0; i < auth::FailureThrottle::kFreeFailures + 1; ++i) {
    expect_error(c.authenticate("reader", "wrong"), Status::AuthError);
  }
  // Inside the window the right password is refused without being checked: SASL_AUTH
  // answers AuthError at once instead of starting an exchange.
  auth::TestScramClient scram(ScramAlgorithm::Sha512, "reader", "password");
  expect_error(c.one(sasl_auth("SCRAM-SHA512", scram.first())), Status::AuthError);
  clock_.advance_ms(auth::FailureThrottle::kFirstPenaltyMs - 1);
  expect_error(c.authenticate("reader", "password"), Status::AuthError);
  // Refusals do not extend the window: it ends 500 ms after the failure.
  clock_.advance_ms(1);
  EXPECT_EQ(c.authenticate("reader", "password").status, Status::Success);
  EXPECT_TRUE(c.session().authenticated());
}

TEST_F(AuthenticationTest, ThrottledStepIsRefusedToo) {
  Connection& c = client();
  auth::TestScramClient scram(ScramAlgorithm::Sha256, "reader", "password");
  const Response first = c.one(sasl_auth("SCRAM-SHA256", scram.first()));
  ASSERT_EQ(first.status, Status::AuthContinue);
  // A new SASL_AUTH would abandon this exchange, so the failures that open a window in
  // between are recorded on the connection's throttle directly.
  for (int i = 0; i < auth::FailureThrottle::kFreeFailures + 1; ++i) {
    c.session().auth_failures.failed(clock_.steady_ms());
  }
  expect_error(c.one(sasl_step("SCRAM-SHA256", scram.final(first.value))), Status::AuthError);
  EXPECT_FALSE(c.session().authenticated());
}

TEST_F(AuthenticationTest, SaslStepWithoutSaslAuthIsEinval) {
  Connection& c = client();
  expect_error(c.one(sasl_step("SCRAM-SHA512", "c=biws,r=abc,p=AAAA")), Status::Einval);
  // Nor after an exchange has ended.
  ASSERT_EQ(c.authenticate("reader", "password").status, Status::Success);
  expect_error(c.one(sasl_step("SCRAM-SHA512", "c=biws,r=abc,p=AAAA")), Status::Einval);
  EXPECT_TRUE(c.session().authenticated());
}

TEST_F(AuthenticationTest, MalformedScramIsEinval) {
  Connection& c = client();
  // client-first without the GS2 header, and with nothing at all.
  expect_error(c.one(sasl_auth("SCRAM-SHA512", "n=reader,r=abc")), Status::Einval);
  expect_error(c.one(sasl_auth("SCRAM-SHA512", "")), Status::Einval);
  expect_error(c.one(sasl_auth("SCRAM-SHA512", "garbage")), Status::Einval);
  // client-final that is not one.
  auth::TestScramClient scram(ScramAlgorithm::Sha512, "reader", "password");
  ASSERT_EQ(c.one(sasl_auth("SCRAM-SHA512", scram.first())).status, Status::AuthContinue);
  expect_error(c.one(sasl_step("SCRAM-SHA512", "garbage")), Status::Einval);
  // None of that was a wrong password, and the connection can still authenticate.
  EXPECT_EQ(c.session().auth_failures.failures(), 0);
  EXPECT_EQ(c.authenticate("reader", "password").status, Status::Success);
}

TEST_F(AuthenticationTest, UnknownMechanismIsNotSupported) {
  Connection& c = client();
  auth::TestScramClient scram(ScramAlgorithm::Sha512, "reader", "password");
  for (const char* mechanism : {"SCRAM-MD5", "scram-sha512", "SCRAM-SHA-512", "PLAIN", "X"}) {
    expect_error(c.one(sasl_auth(mechanism, scram.first())), Status::NotSupported);
  }
  EXPECT_FALSE(c.session().authenticated());
}

TEST_F(AuthenticationTest, SaslAuthWithoutAMechanismIsEinval) {
  expect_error(client().one(sasl_auth("", "n,,n=reader,r=abc")), Status::Einval);
}

TEST_F(AuthenticationTest, PlainIsRefusedUnlessAllowed) {
  const std::string credentials = std::string("\0reader\0password", 16);
  expect_error(client().one(sasl_auth("PLAIN", credentials)), Status::NotSupported);

  use_secure_node(secure_settings(/*allow_plain_auth=*/true));
  Connection& c = client();
  const Response accepted = c.one(sasl_auth("PLAIN", credentials));
  EXPECT_EQ(accepted.status, Status::Success);
  EXPECT_EQ(accepted.value, "");
  EXPECT_TRUE(c.session().authenticated());
  EXPECT_EQ(c.session().user(), "reader");

  Connection& wrong = client();
  expect_error(wrong.one(sasl_auth("PLAIN", std::string("\0reader\0nope", 12))), Status::AuthError);
  expect_error(wrong.one(sasl_auth("PLAIN", "reader")), Status::Einval);
  EXPECT_FALSE(wrong.session().authenticated());
}

TEST_F(AuthenticationTest, PlainIsOfferedAndAcceptedOnASecureConnection) {
  const std::string credentials = std::string("\0reader\0password", 16);
  Connection& plain = client();
  expect_error(plain.one(sasl_auth("PLAIN", credentials)), Status::NotSupported);

  // The connection turns secure after its session exists, as a TLS handshake finishes.
  Connection& tls = client();
  tls.session().secure = true;
  EXPECT_EQ(tls.one({.opcode = Opcode::SaslListMechs}).value,
            "SCRAM-SHA512 SCRAM-SHA256 SCRAM-SHA1 PLAIN");
  EXPECT_EQ(tls.one(sasl_auth("PLAIN", credentials)).status, Status::Success);
  EXPECT_EQ(tls.session().user(), "reader");
}

TEST_F(AuthenticationTest, AClientCertificateLogsInAsTheUserItNames) {
  Connection& c = client();
  EXPECT_TRUE(c.session().authenticate_by_certificate("reader", "CN=reader"));
  EXPECT_TRUE(c.session().authenticated());
  EXPECT_EQ(c.session().user(), "reader");

  Connection& stranger = client();
  EXPECT_FALSE(stranger.session().authenticate_by_certificate("nobody", "CN=nobody"));
  EXPECT_FALSE(stranger.session().authenticated());
}

}  // namespace
}  // namespace tern::commands
