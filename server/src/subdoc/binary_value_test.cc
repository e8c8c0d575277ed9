// Binary XATTR values: the stored form Couchbase documents, round trips of every length
// class, and the strings that must not pass for one.
#include "subdoc/binary_value.h"

#include <gtest/gtest.h>

#include <string>

namespace tern::subdoc {
namespace {

std::string encoded(std::string_view raw) {
  std::string out;
  encode_binary_value(raw, out);
  return out;
}

TEST(BinaryValueTest, EncodesAsCouchbaseDocumentsIt) {
  // kv_engine docs/ExtendedAttributes.md's example.
  EXPECT_EQ(encoded("base64_encode_value"),
            R"("cb-content-base64-encoded:YmFzZTY0X2VuY29kZV92YWx1ZQ==")");
  EXPECT_EQ(encoded(""), R"("cb-content-base64-encoded:")");
}

TEST(BinaryValueTest, RoundTripsEveryPaddingAndEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  for (size_t length = 0; length <= all.size(); length += (length < 8 ? 1 : 61)) {
    const std::string raw = all.substr(0, length);
    std::string decoded = "junk";
    ASSERT_TRUE(decode_binary_value(encoded(raw), decoded)) << length;
    EXPECT_EQ(decoded, raw) << length;
    EXPECT_TRUE(binary_values_well_formed(R"({"bin":)" + encoded(raw) + "}")) << length;
  }
}

TEST(BinaryValueTest, RefusesWhatIsNoEncodedValue) {
  std::string out;
  for (const char* json : {
           R"(cb-content-base64-encoded:AAE=)",      // not a string
           R"("AAE=")",                              // no prefix
           R"(" cb-content-base64-encoded:AAE=")",   // the prefix not at the start
           R"("cb-content-base64-encoded:AAE")",     // not a multiple of 4
           R"("cb-content-base64-encoded:AA=E")",    // padding inside
           R"("cb-content-base64-encoded:A===")",    // three padding bytes
           R"("cb-content-base64-encoded:AA E")",    // whitespace (OpenSSL would skip it)
           R"("cb-content-base64-encoded:AA\nE")",   // an escape
           R"({"a":"cb-content-base64-encoded:AAE="})",
           R"(")",
       }) {
    EXPECT_FALSE(decode_binary_value(json, out)) << json;
  }
}

TEST(BinaryValueTest, ChecksEveryEncodedValueInAMutationsValue) {
  EXPECT_TRUE(binary_values_well_formed(R"({"plain":"text","n":1})"));
  EXPECT_TRUE(binary_values_well_formed(
      R"({"a":"cb-content-base64-encoded:AAE=","b":"cb-content-base64-encoded:"})"));
  EXPECT_FALSE(binary_values_well_formed(
      R"({"a":"cb-content-base64-encoded:AAE=","b":"cb-content-base64-encoded:AAE"})"));
  EXPECT_FALSE(binary_values_well_formed(R"("cb-content-base64-encoded:AA)"));
}

}  // namespace
}  // namespace tern::subdoc
