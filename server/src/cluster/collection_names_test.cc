#include "cluster/collection_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tern::cluster {
namespace {

TEST(CollectionNames, FollowCouchbase) {
  for (const std::string& name :
       std::vector<std::string>{"_default", "app", "a-b_c%d", "9lives", std::string(251, 's')}) {
    EXPECT_EQ(scope_or_collection_name_problem(name), std::nullopt) << name;
  }
  EXPECT_EQ(scope_or_collection_name_problem(""), "must be 1-251 characters long");
  EXPECT_EQ(scope_or_collection_name_problem(std::string(252, 's')),
            "must be 1-251 characters long");
  for (const char* name : {"_system", "%percent", "_Default", "_"}) {
    EXPECT_EQ(scope_or_collection_name_problem(name),
              "must not start with '_' or '%' (reserved for the system)")
        << name;
  }
  for (const char* name : {"a.b", "a b", "a/b", "a$b"}) {
    EXPECT_EQ(scope_or_collection_name_problem(name),
              "may contain only A-Z, a-z, 0-9, '_', '%' and '-'")
        << name;
  }
}

}  // namespace
}  // namespace tern::cluster
