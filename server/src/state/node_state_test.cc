// The node state file's parser: what ternd writes reads back the same, and what it would
// act on dangerously (bucket directories it removes, names it serves) is refused.

#include "state/node_state.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace tern::state {
namespace {

// A bucket as ternd writes it, with a name, a directory and a level that a test chooses.
std::string bucket_json(const std::string& name, const std::string& directory,
                        const std::string& level = "none") {
  return R"({"name":")" + name +
         R"(","type":"couchbase","eviction":"value","quota_bytes":268435456,"flush_enabled":true,)"
         R"("max_ttl":0,"durability_min_level":")" +
         level + R"(","directory":")" + directory +
         R"(","manifest":{"uid":1,"next_scope_id":8,"next_collection_id":9,"scopes":[)"
         R"({"name":"_default","id":0,"collections":[{"name":"_default","id":0,"max_ttl":0},)"
         R"({"name":"c","id":8,"max_ttl":60}]}]}})";
}

std::string state_json(const std::string& buckets, const std::string& pending = "old") {
  return R"({"version":1,"buckets":[)" + buckets + R"(],"pending_removal":[")" + pending + R"("]})";
}

TEST(NodeStateTest, WhatIsWrittenReadsBackTheSame) {
  const NodeState state = parse_node_state(
      state_json(bucket_json("b", "b-0a1b2c3d", "majority"), "old-01234567"), "s.json");
  ASSERT_EQ(state.buckets.size(), 1u);
  EXPECT_EQ(state.buckets[0].settings.name, "b");
  EXPECT_EQ(state.buckets[0].directory, "b-0a1b2c3d");
  EXPECT_EQ(state.buckets[0].settings.durability_min_level, "majority");
  EXPECT_EQ(state.pending_removal, std::vector<std::string>{"old-01234567"});
  const std::string written = to_json(state);
  EXPECT_EQ(to_json(parse_node_state(written, "s.json")), written);
}

// ternd removes <data dir>/<pending> at start-up, and a dropped bucket's <data dir>/<dir>: a
// name that is not one entry of the data directory would remove something else (found by
// node_state_fuzz: "" removed the whole data directory, "/" everything).
TEST(NodeStateTest, RefusesDirectoriesOutsideTheDataDirectory) {
  for (const std::string bad : {"", ".", "..", "/", "/etc", "../x", "a/b"}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT([&] { parse_node_state(state_json(bucket_json("b", "b-1"), bad), "s.json"); },
                ::testing::ThrowsMessage<StateError>(::testing::HasSubstr(
                    "s.json: pending_removal: '" + bad + "' is not a name in the data directory")));
    if (bad.empty()) continue;  // RefusesACouchbaseBucketWithoutADirectory
    EXPECT_THAT([&] { parse_node_state(state_json(bucket_json("b", bad)), "s.json"); },
                ::testing::ThrowsMessage<StateError>(::testing::HasSubstr(
                    "s.json: bucket 'b': directory '" + bad + "' is not a name in the data")));
  }
}

TEST(NodeStateTest, RefusesABucketNameOrLevelTheManagementPortWouldRefuse) {
  EXPECT_THAT(
      [] { parse_node_state(state_json(bucket_json(".hidden", "d")), "s.json"); },
      ::testing::ThrowsMessage<StateError>(::testing::HasSubstr("s.json: bucket name '.hidden' ")));
  EXPECT_THAT([] { parse_node_state(state_json(bucket_json("b", "d", "always")), "s.json"); },
              ::testing::ThrowsMessage<StateError>(
                  ::testing::HasSubstr("s.json: bucket 'b': unknown durability_min_level always")));
}

TEST(NodeStateTest, RefusesABucketTwiceOrTwoBucketsOnOneDirectory) {
  auto with_second = [](const std::string& name, const std::string& directory) {
    return state_json(bucket_json("b", "d") + "," + bucket_json(name, directory));
  };
  EXPECT_EQ(parse_node_state(with_second("c", "e"), "s.json").buckets.size(), 2u);
  EXPECT_THAT([&] { parse_node_state(with_second("b", "e"), "s.json"); },
              ::testing::ThrowsMessage<StateError>(
                  ::testing::HasSubstr("s.json: bucket 'b' is listed twice")));
  EXPECT_THAT([&] { parse_node_state(with_second("c", "d"), "s.json"); },
              ::testing::ThrowsMessage<StateError>(
                  ::testing::HasSubstr("s.json: bucket 'c': directory 'd' is another bucket's")));
}

TEST(NodeStateTest, RefusesACouchbaseBucketWithoutADirectory) {
  EXPECT_THAT([] { parse_node_state(state_json(bucket_json("b", "")), "s.json"); },
              ::testing::ThrowsMessage<StateError>(::testing::HasSubstr(
                  "s.json: bucket 'b': a couchbase bucket needs a directory")));
}

}  // namespace
}  // namespace tern::state
