// base64: RFC 4648's test vectors both ways, and what is not well formed.
#include "common/base64.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace tern {
namespace {

TEST(Base64Test, EncodesAndDecodesTheRfcVectors) {
  for (const auto& [raw, text] :
       std::initializer_list<std::pair<const char*, const char*>>{{"", ""},
                                                                  {"f", "Zg=="},
                                                                  {"fo", "Zm8="},
                                                                  {"foo", "Zm9v"},
                                                                  {"foob", "Zm9vYg=="},
                                                                  {"fooba", "Zm9vYmE="},
                                                                  {"foobar", "Zm9vYmFy"}}) {
    std::string encoded = "kept:";
    base64_append(raw, encoded);
    EXPECT_EQ(encoded, std::string("kept:") + text);
    std::string decoded = "junk";
    ASSERT_TRUE(base64_decode(text, decoded)) << text;
    EXPECT_EQ(decoded, raw);
  }
}

TEST(Base64Test, RefusesWhatIsNotWellFormed) {
  std::string out;
  for (const char* text :
       {"Zg", "Zg=", "Z===", "Zg=a", "Z=g=", "Zm 9", "Zm9\n", "Zm9v!A==", "===="}) {
    EXPECT_FALSE(is_base64(text)) << text;
    EXPECT_FALSE(base64_decode(text, out)) << text;
  }
  EXPECT_TRUE(is_base64("+/+/"));
}

}  // namespace
}  // namespace tern
