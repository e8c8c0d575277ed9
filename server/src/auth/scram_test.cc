#include "auth/scram.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "auth/base64.h"

namespace tern::auth {
namespace {

TEST(ScramAlgorithmTest, NamesMechanismsAsCouchbaseDoes) {
  EXPECT_EQ(mechanism_name(ScramAlgorithm::Sha1), "SCRAM-SHA1");
  EXPECT_EQ(mechanism_name(ScramAlgorithm::Sha256), "SCRAM-SHA256");
  EXPECT_EQ(mechanism_name(ScramAlgorithm::Sha512), "SCRAM-SHA512");
  for (ScramAlgorithm algorithm : kScramAlgorithmsStrongestFirst) {
    EXPECT_EQ(algorithm_for_mechanism(mechanism_name(algorithm)), algorithm);
  }
  EXPECT_EQ(algorithm_for_mechanism("SCRAM-SHA-256"), std::nullopt);
  EXPECT_EQ(algorithm_for_mechanism("scram-sha256"), std::nullopt);
  EXPECT_EQ(algorithm_for_mechanism("PLAIN"), std::nullopt);
}

TEST(ScramCredentialTest, DerivesTheKeysOfRfc5802) {
  // StoredKey and ServerKey of the section 5 example, worked out from its SaltedPassword.
  ScramCredential credential =
      derive_credential(ScramAlgorithm::Sha1, "pencil", *base64_decode("QSXCR+Q6sek8bf92"), 4096);
  EXPECT_EQ(credential.algorithm, ScramAlgorithm::Sha1);
  EXPECT_EQ(credential.iterations, 4096u);
  EXPECT_EQ(base64_encode(credential.salt), "QSXCR+Q6sek8bf92");
  EXPECT_EQ(base64_encode(credential.stored_key), "6dlGYMOdZcOPutkcNY8U2g7vK9Y=");
  EXPECT_EQ(base64_encode(credential.server_key), "D+CSWLOshSulAsxiupA+qs2/fTE=");
}

TEST(ScramCredentialTest, KeysHaveTheDigestSize) {
  for (ScramAlgorithm algorithm : kScramAlgorithmsStrongestFirst) {
    ScramCredential credential = derive_credential(algorithm, "pw", random_salt(algorithm), 2);
    EXPECT_EQ(credential.salt.size(), digest_size(algorithm));
    EXPECT_EQ(credential.stored_key.size(), digest_size(algorithm));
    EXPECT_EQ(credential.server_key.size(), digest_size(algorithm));
    EXPECT_NE(credential.stored_key, credential.server_key);
  }
}

TEST(ScramCredentialTest, RefusesZeroIterations) {
  EXPECT_THROW(derive_credential(ScramAlgorithm::Sha256, "pw", "salt", 0), std::invalid_argument);
}

TEST(ScramCredentialTest, RandomSaltsDiffer) {
  EXPECT_NE(random_salt(ScramAlgorithm::Sha512), random_salt(ScramAlgorithm::Sha512));
}

TEST(ScramCredentialTest, DecoysAreStablePerNameAndShapedLikeRealCredentials) {
  ScramCredential ghost = decoy_credential(ScramAlgorithm::Sha256, "ghost", 4096);
  EXPECT_EQ(ghost.algorithm, ScramAlgorithm::Sha256);
  EXPECT_EQ(ghost.iterations, 4096u);
  EXPECT_EQ(ghost.salt.size(), 32u);
  EXPECT_EQ(ghost.stored_key.size(), 32u);
  EXPECT_EQ(ghost.server_key.size(), 32u);
  EXPECT_EQ(decoy_credential(ScramAlgorithm::Sha256, "ghost", 4096).stored_key, ghost.stored_key);
  EXPECT_NE(decoy_credential(ScramAlgorithm::Sha256, "spectre", 4096).salt, ghost.salt);
}

}  // namespace
}  // namespace tern::auth
