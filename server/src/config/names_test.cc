#include "config/names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tern::config {
namespace {

TEST(NamesTest, BucketNamesFollowCouchbase) {
  for (const std::string& name : std::vector<std::string>{
           "default", "travel-sample", "a", "b.c_d%e-F9", "_x", std::string(100, 'b')}) {
    EXPECT_EQ(bucket_name_problem(name), std::nullopt) << name;
  }
  EXPECT_EQ(bucket_name_problem(""), "must be 1-100 characters long");
  EXPECT_EQ(bucket_name_problem(std::string(101, 'b')), "must be 1-100 characters long");
  EXPECT_EQ(bucket_name_problem(".hidden"), "must not start with '.'");
  for (const char* name : {"a b", "a/b", "a:b", "caf\xC3\xA9", "a*"}) {
    EXPECT_EQ(bucket_name_problem(name), "may contain only A-Z, a-z, 0-9, '.', '_', '%' and '-'")
        << name;
  }
}

TEST(NamesTest, UserNamesFollowCouchbase) {
  for (const std::string& name : std::vector<std::string>{
           "Administrator", "app.user-1", "j\xC3\xBCrgen", "a+b%c", std::string(128, 'u')}) {
    EXPECT_EQ(user_name_problem(name), std::nullopt) << name;
  }
  EXPECT_EQ(user_name_problem(""), "must be 1-128 characters long");
  EXPECT_EQ(user_name_problem(std::string(129, 'u')), "must be 1-128 characters long");
  // Characters, not bytes: 128 two-byte characters are fine.
  std::string accented;
  for (int i = 0; i < 128; ++i) accented += "\xC3\xA9";
  EXPECT_EQ(user_name_problem(accented), std::nullopt);
  for (const char* name : {"a b", "a\tb", "a\x7F"}) {
    EXPECT_EQ(user_name_problem(name), "must not contain spaces or control characters") << name;
  }
  for (const char* name : {"a:b", "a@b", "(a)", "a=b", "a\\b", "a\"b", "{a}"}) {
    EXPECT_EQ(user_name_problem(name),
              "must not contain any of ( ) < > @ , ; : \\ \" / [ ] ? = { }")
        << name;
  }
}

}  // namespace
}  // namespace tern::config
