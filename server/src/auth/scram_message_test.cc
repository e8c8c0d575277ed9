#include "auth/scram_message.h"

#include <gtest/gtest.h>

namespace tern::auth {
namespace {

TEST(SaslnameTest, UnescapesCommaAndEquals) {
  EXPECT_EQ(decode_saslname("user"), "user");
  EXPECT_EQ(decode_saslname("a=2Cb=3Dc"), "a,b=c");
  EXPECT_EQ(decode_saslname("=3D=2C"), "=,");
  EXPECT_EQ(decode_saslname("=3D2C"), "=2C");  // unescaped once, not twice
  EXPECT_EQ(decode_saslname("ünïcødé"), "ünïcødé");
}

TEST(SaslnameTest, RefusesBadEscapesAndForbiddenCharacters) {
  for (std::string_view name :
       {std::string_view(""), std::string_view("a=b"), std::string_view("a="),
        std::string_view("a=2"), std::string_view("a=2c"), std::string_view("a,b"),
        std::string_view("a\0b", 3)}) {
    EXPECT_EQ(decode_saslname(name), std::nullopt) << name;
  }
}

TEST(ClientFirstTest, SplitsHeaderAndBareMessage) {
  auto parsed = parse_client_first("n,,n=us=2Cer,r=abc");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->gs2_header, "n,,");
  EXPECT_EQ(parsed->authzid, "");
  EXPECT_EQ(parsed->user, "us,er");
  EXPECT_EQ(parsed->nonce, "abc");
  EXPECT_EQ(parsed->bare, "n=us=2Cer,r=abc");  // as sent, still escaped
}

TEST(ClientFirstTest, KeepsAnAuthzidAndIgnoresOptionalExtensions) {
  auto parsed = parse_client_first("y,a=ad=3Dmin,n=user,r=abc,x=1,z=a=b");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->gs2_header, "y,a=ad=3Dmin,");
  EXPECT_EQ(parsed->authzid, "ad=min");
  EXPECT_EQ(parsed->user, "user");
  EXPECT_EQ(parsed->bare, "n=user,r=abc,x=1,z=a=b");
}

TEST(ClientFirstTest, RefusesAnAuthzidThatIsNotOne) {
  EXPECT_EQ(parse_client_first("n,b=bob,n=user,r=abc"), std::nullopt);
  EXPECT_EQ(parse_client_first("n,a=,n=user,r=abc"), std::nullopt);
  EXPECT_EQ(parse_client_first("n,a=b=ob,n=user,r=abc"), std::nullopt);
}

TEST(ClientFinalTest, DecodesBindingAndProofAndKeepsTheMessageWithoutProof) {
  auto parsed = parse_client_final("c=biws,r=abcdef,x=ext,p=AAEC");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->channel_binding, "n,,");
  EXPECT_EQ(parsed->nonce, "abcdef");
  EXPECT_EQ(parsed->proof, std::string("\0\1\2", 3));
  EXPECT_EQ(parsed->without_proof, "c=biws,r=abcdef,x=ext");
}

TEST(ClientFinalTest, RefusesMisplacedOrRepeatedAttributes) {
  EXPECT_EQ(parse_client_final("c=biws,r=abc,r=abc,p=AAEC"), std::nullopt);
  EXPECT_EQ(parse_client_final("c=biws,c=biws,r=abc,p=AAEC"), std::nullopt);
  EXPECT_EQ(parse_client_final("c=biws,r=abc,p=AAEC,x=ext"), std::nullopt);
  EXPECT_EQ(parse_client_final("c=biws,r=abc,1=ext,p=AAEC"), std::nullopt);
  EXPECT_EQ(parse_client_final("c=bi*s,r=abc,p=AAEC"), std::nullopt);
}

TEST(NonceTest, AcceptsPrintableAsciiAndSpaceButComma) {
  EXPECT_TRUE(is_valid_nonce("%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"));
  EXPECT_TRUE(is_valid_nonce("!~"));
  EXPECT_FALSE(is_valid_nonce(""));
  EXPECT_FALSE(is_valid_nonce("a,b"));
  // What the Couchbase C++ SDK sends (RFC 5802 would refuse the spaces).
  EXPECT_TRUE(is_valid_nonce("0xffffffb1 0xffffff86 0x62"));
  EXPECT_FALSE(is_valid_nonce("a\tb"));
  EXPECT_FALSE(is_valid_nonce("a\x7f"));
  EXPECT_FALSE(is_valid_nonce("é"));
}

}  // namespace
}  // namespace tern::auth
