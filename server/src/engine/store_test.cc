#include <set>

#include "engine/engine_fixture.h"
#include "engine/paging_hooks.h"

namespace tern::engine {
namespace {

TEST_F(EngineTest, SetThenGetRoundTripsValueFlagsAndDatatype) {
  MutationResult stored = engine_.store(StoreMode::Set, "k", "hello", 0xdeadbeef, 0, 0x01, 0);
  ASSERT_EQ(stored.status, Status::Success);
  GetResult got = engine_.get("k");
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.item->key(), "k");
  EXPECT_EQ(got.item->value(), "hello");
  EXPECT_EQ(got.item->flags, 0xdeadbeefu);
  EXPECT_EQ(got.item->datatype, 0x01);
  EXPECT_EQ(got.item->cas, stored.cas);
  EXPECT_EQ(got.item->expiry_ms, 0);
}

TEST_F(EngineTest, EmptyKeyAndValueAreStored) {
  ASSERT_EQ(set("", "").status, Status::Success);
  EXPECT_EQ(value_of(""), "");
}

TEST_F(EngineTest, GetOfMissingKeyIsNotFound) {
  EXPECT_EQ(engine_.get("nope").status, Status::NotFound);
  EXPECT_EQ(engine_.stats().get_misses, 1u);
}

TEST_F(EngineTest, EveryMutationGetsADistinctCas) {
  std::set<uint64_t> seen;
  for (int i = 0; i < 200; ++i) {
    const std::string key = "key" + std::to_string(i % 37);
    MutationResult result = set(key, "v");
    ASSERT_EQ(result.status, Status::Success);
    EXPECT_NE(result.cas, 0u);
    EXPECT_TRUE(seen.insert(result.cas).second) << "duplicate cas " << result.cas;
  }
  EXPECT_TRUE(seen.insert(engine_.touch("key1", 0).cas).second);
  EXPECT_TRUE(seen.insert(engine_.remove("key2", 0).cas).second);
}

TEST_F(EngineTest, ReaderKeepsItsItemAfterOverwrite) {
  set("k", "first");
  GetResult before = engine_.get("k");
  set("k", "second");
  engine_.remove("k", 0);
  EXPECT_EQ(before.item->value(), "first");
}

TEST_F(EngineTest, SetWithMatchingCasSucceedsAndMismatchFails) {
  const uint64_t cas = set("k", "a").cas;
  MutationResult wrong = set("k", "b", 0, cas + 1);
  EXPECT_EQ(wrong.status, Status::CasMismatch);
  EXPECT_EQ(value_of("k"), "a");
  MutationResult right = set("k", "c", 0, cas);
  EXPECT_EQ(right.status, Status::Success);
  EXPECT_NE(right.cas, cas);
  EXPECT_EQ(value_of("k"), "c");
  // The old CAS is now stale.
  EXPECT_EQ(set("k", "d", 0, cas).status, Status::CasMismatch);
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.cas_hits, 1u);
  EXPECT_EQ(stats.cas_badval, 2u);
}

TEST_F(EngineTest, CasOnMissingKeyIsNotFound) {
  EXPECT_EQ(set("k", "a", 0, 1234).status, Status::NotFound);
  EXPECT_EQ(value_of("k"), kMissing);
  EXPECT_EQ(engine_.stats().cas_misses, 1u);
}

TEST_F(EngineTest, AddOnlyCreates) {
  EXPECT_EQ(engine_.store(StoreMode::Add, "k", "a", 0, 0, 0, 0).status, Status::Success);
  EXPECT_EQ(engine_.store(StoreMode::Add, "k", "b", 0, 0, 0, 0).status, Status::Exists);
  EXPECT_EQ(value_of("k"), "a");
}

TEST_F(EngineTest, ReplaceOnlyOverwrites) {
  EXPECT_EQ(engine_.store(StoreMode::Replace, "k", "a", 0, 0, 0, 0).status, Status::NotFound);
  EXPECT_EQ(value_of("k"), kMissing);
  set("k", "a");
  EXPECT_EQ(engine_.store(StoreMode::Replace, "k", "b", 0, 0, 0, 0).status, Status::Success);
  EXPECT_EQ(value_of("k"), "b");
}

TEST_F(EngineTest, ValueOverMaxItemSizeIsTooBig) {
  const std::string limit(engine_.config().max_item_size, 'x');
  EXPECT_EQ(set("k", limit).status, Status::Success);
  EXPECT_EQ(set("k", limit + "x").status, Status::TooBig);
  EXPECT_EQ(value_of("k"), limit);
}

TEST_F(EngineTest, RemoveHonoursCas) {
  const uint64_t cas = set("k", "a").cas;
  EXPECT_EQ(engine_.remove("k", cas + 1).status, Status::CasMismatch);
  EXPECT_EQ(value_of("k"), "a");
  EXPECT_EQ(engine_.remove("k", cas).status, Status::Success);
  EXPECT_EQ(value_of("k"), kMissing);
  EXPECT_EQ(engine_.remove("k", 0).status, Status::NotFound);
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.delete_hits, 1u);
  EXPECT_EQ(stats.delete_misses, 1u);
}

TEST_F(EngineTest, StatsCountItems) {
  set("a", "1");
  set("b", "2");
  set("a", "3");
  engine_.get("a");
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.curr_items, 2u);
  EXPECT_EQ(stats.total_items, 3u);
  EXPECT_EQ(stats.cmd_set, 3u);
  EXPECT_EQ(stats.cmd_get, 1u);
  EXPECT_EQ(stats.get_hits, 1u);
  EXPECT_GT(stats.mem_used, 0u);
  EXPECT_EQ(stats.mem_quota, engine_.config().memory_quota_bytes);
}

TEST_F(EngineTest, ShardCountIsRoundedUpToAPowerOfTwo) {
  Config config;
  config.shard_count = 5;
  Engine engine(config, clock_);
  EXPECT_EQ(engine.paging().shard_count(), 8u);
  EXPECT_EQ(engine.config().shard_count, 8u);
}

TEST_F(EngineTest, ManyKeysSurviveTableGrowthAndDeletes) {
  for (int i = 0; i < 5000; ++i) set("key" + std::to_string(i), std::to_string(i));
  for (int i = 0; i < 5000; i += 2) engine_.remove("key" + std::to_string(i), 0);
  for (int i = 0; i < 5000; ++i) {
    const std::string expected = i % 2 ? std::to_string(i) : std::string(kMissing);
    ASSERT_EQ(value_of("key" + std::to_string(i)), expected) << i;
  }
  EXPECT_EQ(engine_.stats().curr_items, 2500u);
}

}  // namespace
}  // namespace tern::engine
