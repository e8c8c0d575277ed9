#include "auth/base64.h"

#include <gtest/gtest.h>

namespace tern::auth {
namespace {

TEST(Base64Test, EncodesTheRfc4648Examples) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
}

TEST(Base64Test, DecodesWhatItEncodesWithPaddingRemoved) {
  for (std::string_view bytes : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    EXPECT_EQ(base64_decode(base64_encode(bytes)), std::string(bytes));
  }
  std::string binary("\0\xff\x80 ,=\n", 7);
  EXPECT_EQ(base64_decode(base64_encode(binary)), binary);
}

TEST(Base64Test, RefusesAnythingButStrictBase64) {
  for (std::string_view text : {
           "Zg",        // padding missing
           "Zg=",       // padding short
           "Z===",      // too much padding
           "====",      // only padding
           "Zg==Zg==",  // padding inside
           "Zm=v",      // '=' before the end
           "Zm9v\n",    // whitespace
           " Zm9v",     // whitespace
           "Zm9*",      // outside the alphabet
           "Zm9-",      // the URL alphabet
       }) {
    EXPECT_EQ(base64_decode(text), std::nullopt) << text;
  }
}

}  // namespace
}  // namespace tern::auth
