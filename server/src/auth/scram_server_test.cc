#include "auth/scram_server.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "auth/base64.h"
#include "auth/test_scram_client.h"

namespace tern::auth {
namespace {

// A credential store for one algorithm, and a server on it whose nonce a test may fix.
class ScramServerTest : public ::testing::Test {
 protected:
  void add_user(const std::string& name, ScramAlgorithm algorithm, std::string_view password,
                std::string_view salt, uint32_t iterations = 4096) {
    credentials_[name] = derive_credential(algorithm, password, salt, iterations);
  }

  ScramServer make_server(ScramAlgorithm algorithm, std::string server_nonce = "") {
    ScramServer::NonceSource nonce_source = ScramServer::random_nonce;
    if (!server_nonce.empty()) nonce_source = [server_nonce] { return server_nonce; };
    return ScramServer(
        algorithm,
        [this](std::string_view name) -> const ScramCredential* {
          looked_up_.emplace_back(name);
          auto it = credentials_.find(std::string(name));
          return it == credentials_.end() ? nullptr : &it->second;
        },
        /*decoy_iterations=*/4096, nonce_source);
  }

  std::map<std::string, ScramCredential> credentials_;
  std::vector<std::string> looked_up_;
};

// The values of a server-first message's three attributes, checking its exact shape.
struct ServerFirst {
  std::string nonce;
  std::string salt;  // raw
  std::string iterations;
};
std::optional<ServerFirst> parse_server_first(std::string_view message) {
  size_t s = message.find(",s=");
  size_t i = message.find(",i=");
  if (!message.starts_with("r=") || s == std::string_view::npos || i == std::string_view::npos ||
      i < s) {
    return std::nullopt;
  }
  auto salt = base64_decode(message.substr(s + 3, i - s - 3));
  if (!salt) return std::nullopt;
  return ServerFirst{std::string(message.substr(2, s - 2)), *salt,
                     std::string(message.substr(i + 3))};
}

TEST_F(ScramServerTest, ReproducesTheSha1ExampleOfRfc5802) {
  add_user("user", ScramAlgorithm::Sha1, "pencil", *base64_decode("QSXCR+Q6sek8bf92"));
  ScramServer server = make_server(ScramAlgorithm::Sha1, "3rfcNHYJY1ZVvWVs7j");

  ScramReply first = server.first("n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL");
  EXPECT_EQ(first.outcome, ScramOutcome::Continue);
  EXPECT_EQ(first.message,
            "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096");

  ScramReply final = server.final(
      "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=");
  EXPECT_EQ(final.outcome, ScramOutcome::Success);
  EXPECT_EQ(final.message, "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=");
  EXPECT_EQ(server.user(), "user");
}

TEST_F(ScramServerTest, ReproducesTheSha256ExampleOfRfc7677) {
  add_user("user", ScramAlgorithm::Sha256, "pencil", *base64_decode("W22ZaJ0SNY7soEsUEjb6gQ=="));
  ScramServer server = make_server(ScramAlgorithm::Sha256, "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");

  ScramReply first = server.first("n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  EXPECT_EQ(first.outcome, ScramOutcome::Continue);
  EXPECT_EQ(first.message,
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,"
            "i=4096");

  ScramReply final = server.final(
      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
      "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  EXPECT_EQ(final.outcome, ScramOutcome::Success);
  EXPECT_EQ(final.message, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
}

TEST_F(ScramServerTest, CompletesARoundTripWithAnIndependentClientForEveryAlgorithm) {
  for (ScramAlgorithm algorithm :
       {ScramAlgorithm::Sha512, ScramAlgorithm::Sha256, ScramAlgorithm::Sha1}) {
    SCOPED_TRACE(std::string(mechanism_name(algorithm)));
    add_user("alice", algorithm, "correct horse", random_salt(algorithm), 1000);
    ScramServer server = make_server(algorithm);
    TestScramClient client(algorithm, "alice", "correct horse");

    ScramReply first = server.first(client.first());
    ASSERT_EQ(first.outcome, ScramOutcome::Continue);
    auto parsed = parse_server_first(first.message);
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(parsed->nonce.starts_with("2bEDcRKfKoLVbDPtdZqXxQ"));
    EXPECT_EQ(parsed->nonce.size(), 22u + 24u);  // the client's part, then a random 24
    EXPECT_EQ(parsed->salt.size(), digest_size(algorithm));
    EXPECT_EQ(parsed->iterations, "1000");

    ScramReply final = server.final(client.final(first.message));
    EXPECT_EQ(final.outcome, ScramOutcome::Success);
    EXPECT_EQ(final.message, client.expected_server_final());
  }
}

TEST_F(ScramServerTest, UsesFreshServerNonces) {
  ScramServer a = make_server(ScramAlgorithm::Sha512);
  ScramServer b = make_server(ScramAlgorithm::Sha512);
  std::string first_a = a.first("n,,n=alice,r=abc").message;
  std::string first_b = b.first("n,,n=alice,r=abc").message;
  EXPECT_NE(parse_server_first(first_a)->nonce, parse_server_first(first_b)->nonce);
}

TEST_F(ScramServerTest, FailsAWrongPasswordAtTheProof) {
  add_user("alice", ScramAlgorithm::Sha512, "correct horse", "salt");
  ScramServer server = make_server(ScramAlgorithm::Sha512);
  TestScramClient client(ScramAlgorithm::Sha512, "alice", "battery staple");

  ScramReply first = server.first(client.first());
  ASSERT_EQ(first.outcome, ScramOutcome::Continue);
  ScramReply final = server.final(client.final(first.message));
  EXPECT_EQ(final.outcome, ScramOutcome::AuthFailed);
  EXPECT_EQ(final.message, "");
}

TEST_F(ScramServerTest, AnswersAnUnknownUserLikeAKnownOneAndFailsAtTheProof) {
  add_user("alice", ScramAlgorithm::Sha512, "pw", random_salt(ScramAlgorithm::Sha512));
  ScramServer known = make_server(ScramAlgorithm::Sha512);
  ScramServer unknown = make_server(ScramAlgorithm::Sha512);
  TestScramClient alice(ScramAlgorithm::Sha512, "alice", "pw");
  TestScramClient mallory(ScramAlgorithm::Sha512, "mallory", "pw");

  ScramReply known_first = known.first(alice.first());
  ScramReply unknown_first = unknown.first(mallory.first());
  ASSERT_EQ(unknown_first.outcome, ScramOutcome::Continue);
  auto known_parsed = parse_server_first(known_first.message);
  auto unknown_parsed = parse_server_first(unknown_first.message);
  ASSERT_TRUE(unknown_parsed);
  EXPECT_EQ(unknown_parsed->nonce.size(), known_parsed->nonce.size());
  EXPECT_EQ(unknown_parsed->salt.size(), known_parsed->salt.size());
  EXPECT_EQ(unknown_parsed->iterations, known_parsed->iterations);

  EXPECT_EQ(unknown.final(mallory.final(unknown_first.message)).outcome, ScramOutcome::AuthFailed);
}

TEST_F(ScramServerTest, GivesAnUnknownUserTheSameSaltEachTime) {
  ScramServer a = make_server(ScramAlgorithm::Sha256);
  ScramServer b = make_server(ScramAlgorithm::Sha256);
  ScramServer other = make_server(ScramAlgorithm::Sha256);
  auto salt_a = parse_server_first(a.first("n,,n=ghost,r=abc").message)->salt;
  auto salt_b = parse_server_first(b.first("n,,n=ghost,r=abc").message)->salt;
  auto salt_other = parse_server_first(other.first("n,,n=spectre,r=abc").message)->salt;
  EXPECT_EQ(salt_a, salt_b);
  EXPECT_NE(salt_a, salt_other);
}

TEST_F(ScramServerTest, FailsAUserWithoutACredentialOfThisAlgorithm) {
  add_user("alice", ScramAlgorithm::Sha1, "pw", "salt");  // stored under SHA-1 only
  ScramServer server = make_server(ScramAlgorithm::Sha512);
  TestScramClient client(ScramAlgorithm::Sha512, "alice", "pw");
  ScramReply first = server.first(client.first());
  ASSERT_EQ(first.outcome, ScramOutcome::Continue);
  EXPECT_EQ(server.final(client.final(first.message)).outcome, ScramOutcome::AuthFailed);
}

TEST_F(ScramServerTest, LooksUpTheUnescapedUserName) {
  add_user("a,b=c", ScramAlgorithm::Sha256, "pw", "salt");
  ScramServer server = make_server(ScramAlgorithm::Sha256);
  TestScramClient client(ScramAlgorithm::Sha256, "a=2Cb=3Dc", "pw");
  ScramReply first = server.first(client.first());
  EXPECT_EQ(looked_up_, std::vector<std::string>{"a,b=c"});
  EXPECT_EQ(server.final(client.final(first.message)).outcome, ScramOutcome::Success);
  EXPECT_EQ(server.user(), "a,b=c");
}

TEST_F(ScramServerTest, RefusesToActAsAnotherUser) {
  add_user("alice", ScramAlgorithm::Sha256, "pw", "salt");
  EXPECT_EQ(make_server(ScramAlgorithm::Sha256).first("n,a=bob,n=alice,r=abc").outcome,
            ScramOutcome::AuthFailed);
  EXPECT_EQ(make_server(ScramAlgorithm::Sha256).first("n,a=alice,n=alice,r=abc").outcome,
            ScramOutcome::Continue);
}

TEST_F(ScramServerTest, CallsOutOfTurnAreMalformed) {
  add_user("alice", ScramAlgorithm::Sha256, "pw", "salt");
  TestScramClient client(ScramAlgorithm::Sha256, "alice", "pw");

  ScramServer final_first = make_server(ScramAlgorithm::Sha256);
  EXPECT_EQ(final_first.final("c=biws,r=abc,p=AAAA").outcome, ScramOutcome::Malformed);
  EXPECT_EQ(final_first.first(client.first()).outcome, ScramOutcome::Malformed);  // ended

  ScramServer first_twice = make_server(ScramAlgorithm::Sha256);
  EXPECT_EQ(first_twice.first(client.first()).outcome, ScramOutcome::Continue);
  EXPECT_EQ(first_twice.first(client.first()).outcome, ScramOutcome::Malformed);

  ScramServer final_twice = make_server(ScramAlgorithm::Sha256);
  std::string client_final = client.final(final_twice.first(client.first()).message);
  EXPECT_EQ(final_twice.final(client_final).outcome, ScramOutcome::Success);
  EXPECT_EQ(final_twice.final(client_final).outcome, ScramOutcome::Malformed);
}

TEST_F(ScramServerTest, NotAClientFirstMessageIsMalformed) {
  for (std::string_view message : {
           std::string_view(""),
           std::string_view("n=user,r=abc"),                // no gs2 header
           std::string_view("n,n=user,r=abc"),              // gs2 header lacks a comma
           std::string_view("x,,n=user,r=abc"),             // unknown binding flag
           std::string_view("p=tls-unique,,n=user,r=abc"),  // binding not offered
           std::string_view("n,,r=abc,n=user"),             // wrong order
           std::string_view("n,,n=user"),                   // no nonce
           std::string_view("n,,r=abc"),                    // no user
           std::string_view("n,,n=,r=abc"),                 // empty user
           std::string_view("n,,n=us=er,r=abc"),            // bad escape
           std::string_view("n,,n=user,r="),                // empty nonce
           std::string_view("n,,n=user,r=a\tb"),             // nonce not printable
           std::string_view("n,,n=user,r=abc,r=def"),       // repeated attribute
           std::string_view("n,,n=user,r=abc,"),            // trailing comma
           std::string_view("n,,m=ext,n=user,r=abc"),       // mandatory extension
           std::string_view("n,,n=user\0,r=abc", 16),       // NUL
       }) {
    SCOPED_TRACE(std::string(message));
    EXPECT_EQ(make_server(ScramAlgorithm::Sha512).first(message).outcome, ScramOutcome::Malformed);
  }
}

TEST_F(ScramServerTest, NotAClientFinalMessageIsMalformed) {
  const std::string nonce = "abc" + std::string("SERVERNONCE");
  for (const std::string& message : std::vector<std::string>{
           "",
           "c=biws,r=" + nonce,                     // no proof
           "r=" + nonce + ",c=biws,p=AAAA",         // wrong order
           "c=biws,p=AAAA,r=" + nonce,              // proof not last
           "c=biws,r=" + nonce + ",p=",             // empty proof
           "c=biws,r=" + nonce + ",p=not*base64",   // not base64
           "c=biws,r=" + nonce + ",p=AAA",          // bad padding
           "c=biws,r=" + nonce + ",p=AAAA,p=AAAA",  // repeated
           "c=,r=" + nonce + ",p=AAAA",             // empty binding
           "c=biws,r=,p=AAAA",                      // empty nonce
           "c=biws,r=" + nonce + ",p=AAAA,",        // trailing comma
       }) {
    SCOPED_TRACE(message);
    ScramServer server = make_server(ScramAlgorithm::Sha512, "SERVERNONCE");
    ASSERT_EQ(server.first("n,,n=user,r=abc").outcome, ScramOutcome::Continue);
    EXPECT_EQ(server.final(message).outcome, ScramOutcome::Malformed);
  }
}

TEST_F(ScramServerTest, AWellFormedButUnfaithfulClientFinalFails) {
  add_user("alice", ScramAlgorithm::Sha256, "pw", "salt");
  auto attempt = [this](auto&& edit) {
    ScramServer server = make_server(ScramAlgorithm::Sha256);
    TestScramClient client(ScramAlgorithm::Sha256, "alice", "pw");
    std::string message = client.final(server.first(client.first()).message);
    edit(message);
    return server.final(message).outcome;
  };
  EXPECT_EQ(attempt([](std::string&) {}), ScramOutcome::Success);
  // Binding "y,," where the client-first said "n,,".
  EXPECT_EQ(attempt([](std::string& m) { m.replace(0, 6, "c=eSws"); }), ScramOutcome::AuthFailed);
  // Another nonce.
  EXPECT_EQ(attempt([](std::string& m) { m.insert(m.find(",p="), "x"); }),
            ScramOutcome::AuthFailed);
  // A proof of the wrong length.
  EXPECT_EQ(attempt([](std::string& m) { m = m.substr(0, m.find(",p=")) + ",p=AAAA"; }),
            ScramOutcome::AuthFailed);
  // One flipped bit of the proof.
  EXPECT_EQ(attempt([](std::string& m) {
              size_t at = m.find(",p=") + 3;
              m[at] = m[at] == 'A' ? 'B' : 'A';
            }),
            ScramOutcome::AuthFailed);
}

TEST_F(ScramServerTest, AcceptsOptionalExtensionsAndTheYFlag) {
  add_user("alice", ScramAlgorithm::Sha256, "pw", "salt");
  ScramServer server = make_server(ScramAlgorithm::Sha256);
  ScramReply first = server.first("y,,n=alice,r=abc,x=ignored");
  EXPECT_EQ(first.outcome, ScramOutcome::Continue);
}

}  // namespace
}  // namespace tern::auth
