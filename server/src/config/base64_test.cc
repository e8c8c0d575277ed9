#include "config/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace tern::config {
namespace {

TEST(Base64Test, EncodesWithPaddingAsRfc4648) {
  // RFC 4648 section 10's test vectors.
  EXPECT_EQ(encode_base64(""), "");
  EXPECT_EQ(encode_base64("f"), "Zg==");
  EXPECT_EQ(encode_base64("fo"), "Zm8=");
  EXPECT_EQ(encode_base64("foo"), "Zm9v");
  EXPECT_EQ(encode_base64("foob"), "Zm9vYg==");
  EXPECT_EQ(encode_base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(encode_base64("foobar"), "Zm9vYmFy");
}

TEST(Base64Test, DecodesWhatItEncodesForEveryByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  for (size_t size = 0; size <= bytes.size(); size += 1) {
    const std::string prefix = bytes.substr(0, size);
    EXPECT_EQ(decode_base64(encode_base64(prefix)), prefix) << size;
  }
}

TEST(Base64Test, RefusesAnythingButStrictBase64) {
  for (const char* text : {"Zg", "Zg=", "Zm9", "Zg===", "====", "Z===", "Zm9v Yg==", "Zm9v\nYg==",
                           "Zm-v", "Zm_v", "Zh==", "Zm9=", "=Zm9", "Zg==Zg=="}) {
    EXPECT_EQ(decode_base64(text), std::nullopt) << text;
  }
}

}  // namespace
}  // namespace tern::config
