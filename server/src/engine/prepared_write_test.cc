// Durable writes held aside until the disk has them (MutationOptions::prepare) and
// published by commit_prepared().
#include <functional>
#include <string>
#include <vector>

#include "engine/engine_fixture.h"
#include "engine/persistence_hooks.h"
#include "engine/stored_item.h"
#include "engine/vbucket.h"

namespace tern::engine {
namespace {

Config persistent_config() {
  Config config = small_config();
  config.persistent = true;
  return config;
}

class PreparedWriteTest : public EngineTest {
 protected:
  PreparedWriteTest() : EngineTest(persistent_config()) {}

  MutationOptions prepared() { return {.vbucket = &vbucket_, .prepare = true}; }
  MutationResult prepare_set(std::string_view key, std::string_view value) {
    return engine_.store(StoreMode::Set, key, value, 0, 0, 0, 0, prepared());
  }

  VBucket vbucket_;
};

TEST_F(PreparedWriteTest, ReadsSeeTheCommittedValueUntilTheCommit) {
  set("a", "old");
  const MutationResult prepare = prepare_set("a", "new");
  ASSERT_EQ(prepare.status, Status::Success);
  EXPECT_EQ(engine_.persistence().prepared_count(), 1u);
  EXPECT_EQ(value_of("a"), "old");
  EXPECT_EQ(engine_.get_document("a", false).item->value(), "old");
  EXPECT_NE(engine_.get_meta("a").cas, prepare.cas);

  ASSERT_TRUE(engine_.persistence().commit_prepared("a", prepare.cas));
  const GetResult got = engine_.get("a");
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.item->value(), "new");
  EXPECT_EQ(got.item->cas, prepare.cas);      // the CAS the prepare took, not a new one
  EXPECT_EQ(got.item->seqno, prepare.seqno);  // and its seqno
  EXPECT_EQ(got.item->rev_seqno, 2u);
  EXPECT_EQ(vbucket_.high_seqno(), prepare.seqno);  // committing numbers nothing
  EXPECT_EQ(engine_.persistence().prepared_count(), 0u);
  EXPECT_EQ(engine_.stats().curr_items, 1u);
}

TEST_F(PreparedWriteTest, ThePreparedWriteIsQueuedForTheDiskAtOnce) {
  const MutationResult prepare = prepare_set("a", "new");
  std::vector<ItemPtr> taken;
  engine_.persistence().take_dirty(taken);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0]->value(), "new");
  EXPECT_EQ(taken[0]->cas, prepare.cas);
  EXPECT_EQ(taken[0]->seqno, prepare.seqno);
  ASSERT_TRUE(engine_.persistence().commit_prepared("a", prepare.cas));
  taken.clear();
  engine_.persistence().take_dirty(taken);
  EXPECT_TRUE(taken.empty());  // the commit writes nothing more
}

// Every kind of mutation of the key waits for the durable write; other keys do not.
struct Mutation {
  const char* name;
  std::function<Status(Engine&)> run;
};

class PreparedKeyRefusesTest : public PreparedWriteTest,
                               public ::testing::WithParamInterface<Mutation> {};

TEST_P(PreparedKeyRefusesTest, WithSyncWriteInProgress) {
  set("a", "1");
  const MutationResult prepare = prepare_set("a", "2");
  EXPECT_EQ(GetParam().run(engine_), Status::SyncWriteInProgress);
  EXPECT_EQ(set("b", "1").status, Status::Success);
  ASSERT_TRUE(engine_.persistence().commit_prepared("a", prepare.cas));
  EXPECT_EQ(value_of("a"), "2");
  EXPECT_EQ(GetParam().run(engine_), Status::Success);
}

INSTANTIATE_TEST_SUITE_P(
    Mutations, PreparedKeyRefusesTest,
    ::testing::Values(
        Mutation{"Set", [](Engine& e) { return e.store(StoreMode::Set, "a", "x", 0, 0, 0, 0).status; }},
        Mutation{"Replace",
                 [](Engine& e) { return e.store(StoreMode::Replace, "a", "x", 0, 0, 0, 0).status; }},
        Mutation{"Remove", [](Engine& e) { return e.remove("a", 0).status; }},
        Mutation{"Append",
                 [](Engine& e) { return e.concat(ConcatMode::Append, "a", "x", 0).status; }},
        Mutation{"Touch", [](Engine& e) { return e.touch("a", 100).status; }},
        Mutation{"GetLocked", [](Engine& e) { return e.get_locked("a", 1).status; }},
        Mutation{"WriteDocument",
                 [](Engine& e) {
                   const uint64_t cas = e.get_document("a", false).item->cas;
                   return e.write_document("a", {.value = "x", .expected_cas = cas}).status;
                 }},
        Mutation{"AnotherPrepare",
                 [](Engine& e) {
                   return e.store(StoreMode::Set, "a", "x", 0, 0, 0, 0, {.prepare = true})
                       .status;
                 }}),
    [](const ::testing::TestParamInfo<Mutation>& info) { return info.param.name; });

TEST_F(PreparedWriteTest, CommitNeedsThePreparedCas) {
  const MutationResult prepare = prepare_set("a", "new");
  EXPECT_FALSE(engine_.persistence().commit_prepared("a", prepare.cas + 1));
  EXPECT_FALSE(engine_.persistence().commit_prepared("b", prepare.cas));
  EXPECT_EQ(value_of("a"), kMissing);
  EXPECT_EQ(engine_.persistence().prepared_count(), 1u);
  EXPECT_TRUE(engine_.persistence().commit_prepared("a", prepare.cas));
  EXPECT_FALSE(engine_.persistence().commit_prepared("a", prepare.cas));  // already committed
}

TEST_F(PreparedWriteTest, APreparedRemoveCommitsAsATombstone) {
  set("a", "1");
  const MutationResult prepare = engine_.remove("a", 0, prepared());
  ASSERT_EQ(prepare.status, Status::Success);
  EXPECT_EQ(value_of("a"), "1");
  ASSERT_TRUE(engine_.persistence().commit_prepared("a", prepare.cas));
  EXPECT_EQ(value_of("a"), kMissing);
  const MetaResult meta = engine_.get_meta("a");
  EXPECT_TRUE(meta.deleted);
  EXPECT_EQ(meta.cas, prepare.cas);
  EXPECT_EQ(engine_.stats().curr_items, 0u);
}

TEST_F(PreparedWriteTest, APreparedWriteIsChargedAndItsCommitMovesTheCharge) {
  const std::string value(1000, 'v');
  const MutationResult prepare = prepare_set("durable", value);
  ASSERT_EQ(prepare.status, Status::Success);
  EXPECT_EQ(engine_.mem_used(), item_charge(7, value.size()));
  ASSERT_TRUE(engine_.persistence().commit_prepared("durable", prepare.cas));
  EXPECT_EQ(engine_.mem_used(), item_charge(7, value.size()));
  EXPECT_EQ(value_of("durable"), value);
}

TEST_F(PreparedWriteTest, APreparedWritePastTheQuotaIsOutOfMemory) {
  const std::string value(1000, 'v');
  int stored = 0;
  while (set("k" + std::to_string(stored), value).status == Status::Success) ++stored;
  const uint64_t full = engine_.mem_used();
  const size_t queued = engine_.persistence().dirty_count();
  EXPECT_EQ(prepare_set("durable", value).status, Status::OutOfMemory);
  EXPECT_EQ(engine_.mem_used(), full);
  EXPECT_EQ(engine_.persistence().prepared_count(), 0u);
  EXPECT_EQ(engine_.persistence().dirty_count(), queued);
  EXPECT_EQ(value_of("durable"), kMissing);
}

TEST_F(PreparedWriteTest, AWriteThatExpiredBeforeItsCommitRemovesTheDocument) {
  set("a", "1");
  const MutationResult prepare =
      engine_.store(StoreMode::Set, "a", "2", 0, /*expiry=*/5, 0, 0, prepared());
  clock_.advance_seconds(10);
  ASSERT_TRUE(engine_.persistence().commit_prepared("a", prepare.cas));
  EXPECT_EQ(value_of("a"), kMissing);
  // Neither write is in the index; the dirty queue holds both until they are written.
  EXPECT_EQ(engine_.mem_used(), 2 * item_charge(1, 1));
  std::vector<ItemPtr> taken;
  engine_.persistence().take_dirty(taken);
  engine_.persistence().flushed(taken);
  EXPECT_EQ(engine_.mem_used(), 0u);
}

TEST(EphemeralPreparedWrite, IsPublishedAtOnce) {
  ManualClock clock;
  Engine engine(small_config(), clock);
  const MutationResult written =
      engine.store(StoreMode::Set, "a", "1", 0, 0, 0, 0, {.prepare = true});
  ASSERT_EQ(written.status, Status::Success);
  EXPECT_EQ(engine.persistence().prepared_count(), 0u);
  EXPECT_EQ(engine.get("a").status, Status::Success);
  EXPECT_FALSE(engine.persistence().commit_prepared("a", written.cas));
}

}  // namespace
}  // namespace tern::engine
