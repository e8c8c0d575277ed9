// Table tests of the sub-document path syntax.
#include "subdoc/path.h"

#include <gtest/gtest.h>

#include <string>

namespace tern::subdoc {
namespace {

using protocol::Status;

PathComponent key(std::string name) { return PathComponent::of_key(std::move(name)); }
PathComponent at(int64_t position) { return PathComponent::of_index(position); }

struct Valid {
  std::string text;
  Path expected;
};

class ValidPathTest : public ::testing::TestWithParam<Valid> {};

TEST_P(ValidPathTest, ParsesIntoItsComponents) {
  Path path{key("left over from an earlier parse")};
  ASSERT_EQ(parse_path(GetParam().text, path), Status::Success) << GetParam().text;
  EXPECT_EQ(path, GetParam().expected) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Paths, ValidPathTest,
    ::testing::Values(Valid{"", {}},
                      Valid{"a", {key("a")}},
                      Valid{"a.b.c", {key("a"), key("b"), key("c")}},
                      Valid{"list[0]", {key("list"), at(0)}},
                      Valid{"list[-1]", {key("list"), at(kLastElement)}},
                      Valid{"m[2][10].x", {key("m"), at(2), at(10), key("x")}},
                      Valid{"[3]", {at(3)}},
                      Valid{"[0].name", {at(0), key("name")}},
                      Valid{"`a.b`", {key("a.b")}},
                      Valid{"`a.b`.c", {key("a.b"), key("c")}},
                      Valid{"x.`[0]`[1]", {key("x"), key("[0]"), at(1)}},
                      Valid{"`x``y`", {key("x`y")}},
                      Valid{"`$document`.exptime", {key("$document"), key("exptime")}},
                      Valid{"_sync.rev", {key("_sync"), key("rev")}},
                      Valid{"caf\xc3\xa9 cr\xc3\xa8me", {key("caf\xc3\xa9 cr\xc3\xa8me")}}));

class InvalidPathTest : public ::testing::TestWithParam<std::string> {};

TEST_P(InvalidPathTest, IsPathEinval) {
  Path path;
  EXPECT_EQ(parse_path(GetParam(), path), Status::SubdocPathEinval) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Paths, InvalidPathTest,
                         ::testing::Values(".a", "a.", "a..b", "a.[0]", "a[", "a[]", "a[x]", "a[1x]",
                                           "a[ 1]", "a[-2]", "a[--1]", "a[+1]", "a]", "a[0]b",
                                           "a[0]]", "`", "`a", "``", "`a`b", "a`b`", "a.``",
                                           "a[99999999999999999999]", "\xff", "a.\xc3",
                                           "`\xed\xa0\x80`"));

TEST(PathLimitsTest, APathOfTheLongestLengthParsesAndOneByteMoreIsE2big) {
  Path path;
  const std::string longest(kMaxPathBytes, 'k');
  EXPECT_EQ(parse_path(longest, path), Status::Success);
  EXPECT_EQ(parse_path(longest + "k", path), Status::SubdocPathE2big);
}

TEST(PathLimitsTest, MoreComponentsThanTheLimitIsE2big) {
  Path path;
  std::string deepest = "a";
  for (size_t i = 1; i < kMaxPathComponents; ++i) deepest += ".a";
  EXPECT_EQ(parse_path(deepest, path), Status::Success);
  EXPECT_EQ(path.size(), kMaxPathComponents);
  EXPECT_EQ(parse_path(deepest + ".a", path), Status::SubdocPathE2big);
  EXPECT_EQ(parse_path(deepest + "[0]", path), Status::SubdocPathE2big);
}

}  // namespace
}  // namespace tern::subdoc
