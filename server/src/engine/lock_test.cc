#include "engine/engine_fixture.h"

namespace tern::engine {
namespace {

class LockTest : public EngineTest {
 protected:
  uint64_t lock(std::string_view key, uint32_t seconds = 0) {
    GetResult locked = engine_.get_locked(key, seconds);
    EXPECT_EQ(locked.status, Status::Success);
    return locked.item ? locked.item->cas : 0;
  }
};

TEST_F(LockTest, GetLockedReturnsTheItemWithAFreshCas) {
  const uint64_t stored = set("k", "v").cas;
  GetResult locked = engine_.get_locked("k", 0);
  ASSERT_EQ(locked.status, Status::Success);
  EXPECT_EQ(locked.item->value(), "v");
  EXPECT_NE(locked.item->cas, stored);
  EXPECT_EQ(engine_.get_locked("missing", 0).status, Status::NotFound);
}

TEST_F(LockTest, LockedItemIsReadableButHidesItsCas) {
  set("k", "v");
  lock("k");
  GetResult got = engine_.get("k");
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.item->value(), "v");
  EXPECT_EQ(got.item->cas, Engine::kLockedCas);
}

TEST_F(LockTest, LockingALockedItemIsLocked) {
  set("k", "v");
  lock("k");
  EXPECT_EQ(engine_.get_locked("k", 0).status, Status::Locked);
}

TEST_F(LockTest, MutationsWithoutTheLockCasAreLocked) {
  const uint64_t old_cas = set("k", "v").cas;
  lock("k");
  EXPECT_EQ(set("k", "x").status, Status::Locked);
  EXPECT_EQ(set("k", "x", 0, old_cas).status, Status::Locked);
  EXPECT_EQ(engine_.remove("k", 0).status, Status::Locked);
  EXPECT_EQ(engine_.touch("k", 10).status, Status::Locked);
  EXPECT_EQ(engine_.get_and_touch("k", 10).status, Status::Locked);
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", "x", 0).status, Status::Locked);
  EXPECT_EQ(engine_.arithmetic("k", true, 1, 0, 0, 0).status, Status::Locked);
  EXPECT_EQ(engine_.store(StoreMode::Replace, "k", "x", 0, 0, 0, 0).status, Status::Locked);
  EXPECT_EQ(value_of("k"), "v");
}

TEST_F(LockTest, MutationWithTheLockCasSucceedsAndUnlocks) {
  set("k", "v");
  const uint64_t lock_cas = lock("k");
  MutationResult result = set("k", "new", 0, lock_cas);
  ASSERT_EQ(result.status, Status::Success);
  EXPECT_EQ(value_of("k"), "new");
  EXPECT_EQ(set("k", "free").status, Status::Success);
  EXPECT_EQ(engine_.unlock("k", result.cas), Status::NotLocked);
}

TEST_F(LockTest, DeleteWithTheLockCasRemoves) {
  set("k", "v");
  EXPECT_EQ(engine_.remove("k", lock("k")).status, Status::Success);
  EXPECT_EQ(value_of("k"), kMissing);
}

TEST_F(LockTest, UnlockWithTheRightCasUnlocksAndKeepsThatCas) {
  set("k", "v");
  const uint64_t lock_cas = lock("k");
  EXPECT_EQ(engine_.unlock("k", lock_cas), Status::Success);
  EXPECT_EQ(engine_.get("k").item->cas, lock_cas);
  EXPECT_EQ(set("k", "x").status, Status::Success);
}

TEST_F(LockTest, UnlockWithAWrongCasIsLocked) {
  set("k", "v");
  const uint64_t lock_cas = lock("k");
  EXPECT_EQ(engine_.unlock("k", lock_cas + 1), Status::Locked);
  EXPECT_EQ(set("k", "x").status, Status::Locked);
}

TEST_F(LockTest, UnlockOfAnUnlockedOrMissingItem) {
  const uint64_t cas = set("k", "v").cas;
  EXPECT_EQ(engine_.unlock("k", cas), Status::NotLocked);
  EXPECT_EQ(engine_.unlock("missing", cas), Status::NotFound);
}

TEST_F(LockTest, DefaultLockExpires) {
  set("k", "v");
  const uint64_t lock_cas = lock("k", 0);
  clock_.advance_ms(engine_.config().default_lock_seconds * 1000 - 1);
  EXPECT_EQ(set("k", "x").status, Status::Locked);
  clock_.advance_ms(1);
  EXPECT_EQ(engine_.unlock("k", lock_cas), Status::NotLocked);
  EXPECT_EQ(set("k", "x").status, Status::Success);
}

TEST_F(LockTest, ExplicitLockTimeIsHonoured) {
  set("k", "v");
  lock("k", 3);
  clock_.advance_ms(2999);
  EXPECT_EQ(engine_.get_locked("k", 0).status, Status::Locked);
  clock_.advance_ms(1);
  EXPECT_EQ(engine_.get_locked("k", 0).status, Status::Success);
}

TEST_F(LockTest, LockTimeIsCappedAtTheMaximum) {
  set("k", "v");
  lock("k", 1000);
  clock_.advance_ms(engine_.config().max_lock_seconds * 1000 - 1);
  EXPECT_EQ(set("k", "x").status, Status::Locked);
  clock_.advance_ms(1);
  EXPECT_EQ(set("k", "x").status, Status::Success);
}

TEST_F(LockTest, ExpiredItemCannotBeLocked) {
  set("k", "v", 2);
  clock_.advance_seconds(1);
  ASSERT_EQ(value_of("k"), "v");
  clock_.advance_seconds(1);
  EXPECT_EQ(engine_.get_locked("k", 0).status, Status::NotFound);
}

}  // namespace
}  // namespace tern::engine
