#include "auth/sasl_exchange.h"

#include <gtest/gtest.h>

#include "auth/test_scram_client.h"

namespace tern::auth {
namespace {

using namespace std::string_view_literals;

class SaslExchangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    User alice;
    alice.name = "alice";
    alice.buckets = {"travel"};
    for (ScramAlgorithm algorithm : kScramAlgorithmsStrongestFirst) {
      alice.credentials.push_back(
          derive_credential(algorithm, "correct horse", random_salt(algorithm), 100));
    }
    users_.add(std::move(alice));
  }

  // Runs a whole SCRAM exchange; returns the outcome of the last step.
  SaslResult scram(SaslExchange& exchange, ScramAlgorithm algorithm, std::string user,
                   std::string password) {
    TestScramClient client(algorithm, std::move(user), std::move(password));
    SaslResult first = exchange.start(mechanism_name(algorithm), client.first());
    if (first.outcome != SaslOutcome::Continue) return first;
    EXPECT_EQ(first.user, "");
    SaslResult last = exchange.step(client.final(first.challenge));
    if (last.outcome == SaslOutcome::Success) {
      EXPECT_EQ(last.challenge, client.expected_server_final());
    }
    return last;
  }

  UserDirectory users_;
};

TEST(SaslMechanismsTest, ListsScramStrongestFirstAndPlainOnlyWhenAllowed) {
  EXPECT_EQ(mechanisms(false), "SCRAM-SHA512 SCRAM-SHA256 SCRAM-SHA1");
  EXPECT_EQ(mechanisms(true), "SCRAM-SHA512 SCRAM-SHA256 SCRAM-SHA1 PLAIN");
}

TEST_F(SaslExchangeTest, AuthenticatesWithEveryScramMechanism) {
  for (ScramAlgorithm algorithm : kScramAlgorithmsStrongestFirst) {
    SCOPED_TRACE(std::string(mechanism_name(algorithm)));
    SaslExchange exchange(users_, false);
    SaslResult result = scram(exchange, algorithm, "alice", "correct horse");
    EXPECT_EQ(result.outcome, SaslOutcome::Success);
    EXPECT_EQ(result.user, "alice");
    // The exchange is over: nothing left to step.
    EXPECT_EQ(exchange.step("c=biws").outcome, SaslOutcome::NotStarted);
  }
}

TEST_F(SaslExchangeTest, FailsAWrongPasswordAndAnUnknownUserAlike) {
  SaslExchange exchange(users_, false);
  SaslResult wrong = scram(exchange, ScramAlgorithm::Sha512, "alice", "battery staple");
  SaslResult unknown = scram(exchange, ScramAlgorithm::Sha512, "mallory", "correct horse");
  for (const SaslResult& result : {wrong, unknown}) {
    EXPECT_EQ(result.outcome, SaslOutcome::AuthFailed);
    EXPECT_EQ(result.challenge, "");
    EXPECT_EQ(result.user, "");
  }
  EXPECT_EQ(exchange.step("c=biws").outcome, SaslOutcome::NotStarted);
}

TEST_F(SaslExchangeTest, StepBeforeStartIsNotStarted) {
  SaslExchange exchange(users_, true);
  EXPECT_EQ(exchange.step("c=biws,r=abc,p=AAAA").outcome, SaslOutcome::NotStarted);
}

TEST_F(SaslExchangeTest, MalformedMessagesEndTheExchange) {
  SaslExchange exchange(users_, false);
  EXPECT_EQ(exchange.start("SCRAM-SHA512", "hello").outcome, SaslOutcome::Malformed);
  EXPECT_EQ(exchange.step("c=biws,r=abc,p=AAAA").outcome, SaslOutcome::NotStarted);

  ASSERT_EQ(exchange.start("SCRAM-SHA512", "n,,n=alice,r=abc").outcome, SaslOutcome::Continue);
  EXPECT_EQ(exchange.step("p=AAAA").outcome, SaslOutcome::Malformed);
  EXPECT_EQ(exchange.step("c=biws,r=abc,p=AAAA").outcome, SaslOutcome::NotStarted);
}

TEST_F(SaslExchangeTest, UnknownMechanismsAreRefused) {
  SaslExchange exchange(users_, true);
  for (std::string_view mechanism : {"SCRAM-SHA-256", "scram-sha512", "CRAM-MD5", "", "PLAIN "}) {
    EXPECT_EQ(exchange.start(mechanism, "n,,n=alice,r=abc").outcome, SaslOutcome::UnknownMechanism)
        << mechanism;
  }
}

TEST_F(SaslExchangeTest, PlainWorksOnlyWhenAllowed) {
  SaslExchange allowed(users_, true);
  SaslResult result = allowed.start("PLAIN", "\0alice\0correct horse"sv);
  EXPECT_EQ(result.outcome, SaslOutcome::Success);
  EXPECT_EQ(result.user, "alice");
  EXPECT_EQ(result.challenge, "");
  EXPECT_EQ(allowed.step("anything").outcome, SaslOutcome::NotStarted);
  EXPECT_EQ(allowed.start("PLAIN", "\0alice\0wrong"sv).outcome, SaslOutcome::AuthFailed);
  EXPECT_EQ(allowed.start("PLAIN", "\0mallory\0correct horse"sv).outcome, SaslOutcome::AuthFailed);
  EXPECT_EQ(allowed.start("PLAIN", "alice:correct horse").outcome, SaslOutcome::Malformed);

  SaslExchange refused(users_, false);
  EXPECT_EQ(refused.start("PLAIN", "\0alice\0correct horse"sv).outcome,
            SaslOutcome::UnknownMechanism);
}

TEST_F(SaslExchangeTest, ANewStartAbandonsTheExchangeInProgress) {
  SaslExchange exchange(users_, true);
  TestScramClient abandoned(ScramAlgorithm::Sha256, "alice", "correct horse");
  SaslResult first = exchange.start("SCRAM-SHA256", abandoned.first());
  ASSERT_EQ(first.outcome, SaslOutcome::Continue);
  std::string stale_final = abandoned.final(first.challenge);

  // A PLAIN start in between ends the SCRAM exchange...
  EXPECT_EQ(exchange.start("PLAIN", "\0alice\0correct horse"sv).outcome, SaslOutcome::Success);
  EXPECT_EQ(exchange.step(stale_final).outcome, SaslOutcome::NotStarted);

  // ...and so does a fresh SCRAM start, whose nonce the stale message does not carry.
  SaslResult restarted = exchange.start("SCRAM-SHA256", abandoned.first());
  ASSERT_EQ(restarted.outcome, SaslOutcome::Continue);
  EXPECT_EQ(exchange.step(stale_final).outcome, SaslOutcome::AuthFailed);

  EXPECT_EQ(scram(exchange, ScramAlgorithm::Sha1, "alice", "correct horse").outcome,
            SaslOutcome::Success);
}

}  // namespace
}  // namespace tern::auth
