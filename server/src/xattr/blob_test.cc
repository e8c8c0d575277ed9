// Table tests of the XATTR section layout: sections written byte by byte here, so that the
// codec is checked against Couchbase's layout and not only against itself.
#include "xattr/blob.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "protocol/datatype.h"

namespace tern::xattr {
namespace {

using namespace std::string_literals;

constexpr uint8_t kXattr = protocol::datatype::kXattr;
constexpr uint8_t kJson = protocol::datatype::kJson;

}  // namespace

// Failed expectations print attributes as text.
void PrintTo(const Attribute& a, std::ostream* out) { *out << a.key << '=' << a.value; }

namespace {

// Test names show each table row by its name, not its bytes.
template <class Row>
  requires requires(const Row& row) { row.name; }
void PrintTo(const Row& row, std::ostream* out) {
  *out << row.name;
}

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// One pair as stored: its length word, then "key\0value\0".
std::string pair(std::string_view key, std::string_view value) {
  const std::string body = std::string(key) + '\0' + std::string(value) + '\0';
  return be32(static_cast<uint32_t>(body.size())) + body;
}

// A section around already-encoded pairs: their total length, then the pairs.
std::string section(const std::string& pairs) {
  return be32(static_cast<uint32_t>(pairs.size())) + pairs;
}

std::string encoded(std::vector<Attribute> attributes) {
  std::string out = "prefix:";
  append_section(attributes, out);
  EXPECT_EQ(out.substr(0, 7), "prefix:") << "append_section appends";
  return out.substr(7);
}

// Attributes view their text: a value this long must outlive the tables below.
const std::string kLongValue(300, 'x');

// --- append_section ---------------------------------------------------------------------

struct Layout {
  std::string name;
  std::vector<Attribute> attributes;
  std::string bytes;
};

class LayoutTest : public ::testing::TestWithParam<Layout> {};

TEST_P(LayoutTest, EncodesAsCouchbaseStoresIt) {
  EXPECT_EQ(encoded(GetParam().attributes), GetParam().bytes);
}

TEST_P(LayoutTest, ParsesBackInStoredOrder) {
  std::vector<Attribute> parsed{{"left", "over"}};
  ASSERT_TRUE(parse(GetParam().bytes, parsed));
  EXPECT_EQ(parsed, GetParam().attributes);
}

INSTANTIATE_TEST_SUITE_P(
    Sections, LayoutTest,
    ::testing::Values(
        Layout{"None", {}, ""},
        Layout{"One", {{"a", "1"}}, "\0\0\0\x08\0\0\0\x04" "a\0" "1\0"s},
        Layout{"Two", {{"meta", R"({"x":true})"}, {"_sync", "[1,2]"}},
               section(pair("meta", R"({"x":true})") + pair("_sync", "[1,2]"))},
        Layout{"OrderKept", {{"z", "1"}, {"a", "2"}, {"_m", "3"}},
               section(pair("z", "1") + pair("a", "2") + pair("_m", "3"))},
        Layout{"LongValue", {{"big", kLongValue}}, section(pair("big", kLongValue))}),
    [](const auto& info) { return info.param.name; });

// --- split ------------------------------------------------------------------------------

struct Splitting {
  std::string name;
  std::string value;
  uint8_t datatype;
  std::string attributes;
  std::string body;
};

class SplitTest : public ::testing::TestWithParam<Splitting> {};

TEST_P(SplitTest, SeparatesTheSectionFromTheBody) {
  Split out;
  ASSERT_TRUE(split(GetParam().value, GetParam().datatype, out));
  EXPECT_EQ(out.attributes, GetParam().attributes);
  EXPECT_EQ(out.body, GetParam().body);
}

const std::string kOne = section(pair("a", "1"));

INSTANTIATE_TEST_SUITE_P(
    Values, SplitTest,
    ::testing::Values(
        // Without the XATTR bit the bytes are all body, whatever they look like.
        Splitting{"Raw", kOne + "body", 0, "", kOne + "body"},
        Splitting{"JsonOnly", R"({"a":1})", kJson, "", R"({"a":1})"},
        Splitting{"Xattr", kOne + R"({"a":1})", kXattr, kOne, R"({"a":1})"},
        Splitting{"XattrAndJson", kOne + "[]", kXattr | kJson, kOne, "[]"},
        Splitting{"EmptyBody", kOne, kXattr, kOne, ""},
        Splitting{"EmptySection", be32(0) + "body", kXattr, be32(0), "body"}),
    [](const auto& info) { return info.param.name; });

struct Broken {
  std::string name;
  std::string bytes;
};

class BrokenValueTest : public ::testing::TestWithParam<Broken> {};

TEST_P(BrokenValueTest, DoesNotSplit) {
  Split out;
  EXPECT_FALSE(split(GetParam().bytes, kXattr, out));
}

INSTANTIATE_TEST_SUITE_P(
    Values, BrokenValueTest,
    ::testing::Values(Broken{"Empty", ""},
                      Broken{"ShortLengthWord", "\0\0\0"s},
                      Broken{"LengthPastTheEnd", be32(9) + "a\0b\0"s},
                      Broken{"HugeLength", "\xff\xff\xff\xff" "abc"s}),
    [](const auto& info) { return info.param.name; });

// --- parse: malformed sections ----------------------------------------------------------

class MalformedSectionTest : public ::testing::TestWithParam<Broken> {};

TEST_P(MalformedSectionTest, IsRefused) {
  std::vector<Attribute> out;
  EXPECT_FALSE(parse(GetParam().bytes, out));
}

INSTANTIATE_TEST_SUITE_P(
    Sections, MalformedSectionTest,
    ::testing::Values(
        Broken{"ShortLengthWord", "\0\0\0"s},
        Broken{"TotalTooLong", be32(9) + pair("a", "1")},
        Broken{"TotalTooShort", be32(7) + pair("a", "1")},
        Broken{"PairLengthPastTheEnd", section(be32(5) + "a\0" "1\0"s)},
        Broken{"PairCutShort", section("\0\0"s)},
        Broken{"NoTerminators", section(be32(2) + "a1")},
        Broken{"OneTerminator", section(be32(3) + "a\0" "1"s)},
        Broken{"OnlyTheKeysTerminator", section(be32(2) + "a\0"s)},
        Broken{"ThirdTerminator", section(be32(6) + "a\0" "1\0" "2\0"s)},
        Broken{"EmptyKey", section(pair("", "1"))},
        Broken{"GoodThenBad", section(pair("a", "1") + be32(2) + "b1")}),
    [](const auto& info) { return info.param.name; });

TEST(ParseTest, AnEmptySectionHoldsNoAttributes) {
  std::vector<Attribute> out{{"left", "over"}};
  ASSERT_TRUE(parse("", out));
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(parse(be32(0), out));
  EXPECT_TRUE(out.empty());
}

TEST(ParseTest, AnEmptyValueIsKeptAsStored) {
  const std::string stored = section(pair("a", ""));
  std::vector<Attribute> out;
  ASSERT_TRUE(parse(stored, out));
  EXPECT_EQ(out, (std::vector<Attribute>{{"a", ""}}));
}

// --- system_section ---------------------------------------------------------------------

struct SystemOnly {
  std::string name;
  std::string section;
  std::string expected;
};

class SystemSectionTest : public ::testing::TestWithParam<SystemOnly> {};

TEST_P(SystemSectionTest, KeepsOnlyTheSystemAttributes) {
  EXPECT_EQ(system_section(GetParam().section), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Sections, SystemSectionTest,
    ::testing::Values(
        SystemOnly{"Empty", "", ""},
        SystemOnly{"NoSystemAttributes", section(pair("user", "1") + pair("meta", "{}")), ""},
        SystemOnly{"OnlySystemAttributes", section(pair("_sync", "1") + pair("_txn", "2")),
                   section(pair("_sync", "1") + pair("_txn", "2"))},
        SystemOnly{"Mixed",
                   section(pair("user", "1") + pair("_sync", R"({"rev":3})") + pair("x", "[]") +
                           pair("_txn", "2")),
                   section(pair("_sync", R"({"rev":3})") + pair("_txn", "2"))},
        SystemOnly{"Malformed", section(pair("_sync", "1") + be32(2) + "b1"), ""}),
    [](const auto& info) { return info.param.name; });

TEST(SystemKeyTest, IsAnUnderscoreFirst) {
  EXPECT_TRUE(is_system_key("_sync"));
  EXPECT_TRUE(is_system_key("_"));
  EXPECT_FALSE(is_system_key("sync"));
  EXPECT_FALSE(is_system_key("$document"));
  EXPECT_FALSE(is_system_key(""));
}

}  // namespace
}  // namespace tern::xattr
