// Table tests of is_json(): exactly one valid JSON value, whitespace around it allowed.
#include <gtest/gtest.h>

#include <string>

#include "subdoc/json_document.h"

namespace tern::subdoc {
namespace {

struct IsJsonRow {
  std::string text;
  bool expected;
};

class IsJsonTest : public ::testing::TestWithParam<IsJsonRow> {};

TEST_P(IsJsonTest, AnswersWhetherTheTextIsOneJsonValue) {
  EXPECT_EQ(is_json(GetParam().text), GetParam().expected) << "'" << GetParam().text << "'";
}

INSTANTIATE_TEST_SUITE_P(
    Values, IsJsonTest,
    ::testing::Values(
        // One value of each kind, and whitespace around it.
        IsJsonRow{"{}", true}, IsJsonRow{"[]", true}, IsJsonRow{"0", true},
        IsJsonRow{"-1.5e3", true}, IsJsonRow{"\"x\"", true}, IsJsonRow{"true", true},
        IsJsonRow{"false", true}, IsJsonRow{"null", true},
        IsJsonRow{" \t\r\n{\"a\":[1,{\"b\":null}]} \n", true},
        IsJsonRow{"\"caf\xc3\xa9 \\u00e9 \\\" \\n\"", true},
        // Nothing, or only whitespace.
        IsJsonRow{"", false}, IsJsonRow{" \n\t", false},
        // A first byte no JSON value starts with (turned away before parsing).
        IsJsonRow{"hello", false}, IsJsonRow{"\x00\x01", false}, IsJsonRow{"}", false},
        IsJsonRow{"+1", false}, IsJsonRow{"'a'", false},
        // A plausible start, then not JSON.
        IsJsonRow{"{", false}, IsJsonRow{"[1,]", false}, IsJsonRow{"{\"a\":1,}", false},
        IsJsonRow{"{a:1}", false}, IsJsonRow{"01", false}, IsJsonRow{"1.", false},
        IsJsonRow{"-", false}, IsJsonRow{"tru", false}, IsJsonRow{"nul", false},
        IsJsonRow{"\"unterminated", false}, IsJsonRow{"\"bad \\x escape\"", false},
        IsJsonRow{"\"tab\tinside\"", false},
        // More than one value.
        IsJsonRow{"1 2", false}, IsJsonRow{"{} {}", false}, IsJsonRow{"[] x", false},
        IsJsonRow{"{}}", false},
        // Invalid UTF-8 inside a string: a stray continuation byte, a truncated sequence,
        // an overlong encoding, a surrogate encoded directly.
        IsJsonRow{"\"\x80\"", false}, IsJsonRow{"\"\xc3\"", false},
        IsJsonRow{"\"\xc0\xaf\"", false}, IsJsonRow{"\"\xed\xa0\x80\"", false}));

TEST(IsJsonTest, ALargeValueIsValidatedToo) {
  std::string big = "[";
  for (int i = 0; i < 200000; ++i) big += "{\"n\":12345678},";
  big.back() = ']';
  ASSERT_GT(big.size(), size_t{1} << 20);
  EXPECT_TRUE(is_json(big));
  big.back() = ',';
  EXPECT_FALSE(is_json(big));
}

TEST(IsJsonTest, ANulInsideTheTextIsNotJson) {
  EXPECT_FALSE(is_json(std::string("{}\0", 3)));
  EXPECT_FALSE(is_json(std::string("\"a\0b\"", 5)));
}

}  // namespace
}  // namespace tern::subdoc
