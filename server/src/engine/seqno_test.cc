// Seqnos: every mutation that publishes a change takes its vbucket's next one under the
// key's lock, keeps it in the item (Item::seqno) and returns it.
#include "engine/engine_fixture.h"
#include "engine/vbucket.h"

namespace tern::engine {
namespace {

class SeqnoTest : public EngineTest {
 protected:
  MutationOptions on(VBucket& vbucket) { return {.vbucket = &vbucket}; }
  uint64_t item_seqno(std::string_view key) {
    return engine_.get_document(key, true).item->seqno;
  }

  VBucket vb_a;
  VBucket vb_b;
};

TEST_F(SeqnoTest, EachMutationTakesTheNextSeqnoOfItsVbucket) {
  const MutationResult stored =
      engine_.store(StoreMode::Set, "k", "1", 0, 0, 0, 0, on(vb_a));
  EXPECT_EQ(stored.seqno, 1u);
  EXPECT_EQ(item_seqno("k"), 1u);
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", "2", 0, on(vb_a)).seqno, 2u);
  EXPECT_EQ(item_seqno("k"), 2u);
  const ArithmeticResult counted = engine_.arithmetic("k", true, 1, 0, 0, 0, on(vb_a));
  EXPECT_EQ(counted.seqno, 3u);
  EXPECT_EQ(counted.value, 13u);
  EXPECT_EQ(item_seqno("k"), 3u);
  const MutationResult written = engine_.write_document(
      "k", {.value = "w", .expected_cas = counted.cas}, on(vb_a));
  EXPECT_EQ(written.seqno, 4u);
  EXPECT_EQ(item_seqno("k"), 4u);
  EXPECT_EQ(engine_.remove("k", 0, on(vb_a)).seqno, 5u);
  EXPECT_EQ(item_seqno("k"), 5u) << "the tombstone's";
  EXPECT_EQ(vb_a.high_seqno(), 5u);
}

TEST_F(SeqnoTest, EachVbucketCountsItsOwn) {
  engine_.store(StoreMode::Set, "a", "1", 0, 0, 0, 0, on(vb_a));
  engine_.store(StoreMode::Set, "b", "1", 0, 0, 0, 0, on(vb_b));
  engine_.store(StoreMode::Set, "a", "2", 0, 0, 0, 0, on(vb_a));
  EXPECT_EQ(item_seqno("a"), 2u);
  EXPECT_EQ(item_seqno("b"), 1u);
  EXPECT_EQ(vb_a.high_seqno(), 2u);
  EXPECT_EQ(vb_b.high_seqno(), 1u);
}

TEST_F(SeqnoTest, AFailedMutationTakesNone) {
  engine_.store(StoreMode::Set, "k", "v", 0, 0, 0, 0, on(vb_a));
  EXPECT_EQ(engine_.store(StoreMode::Add, "k", "v", 0, 0, 0, 0, on(vb_a)).status,
            Status::Exists);
  EXPECT_EQ(engine_.store(StoreMode::Set, "k", "v", 0, 0, 0, 1, on(vb_a)).status,
            Status::CasMismatch);
  EXPECT_EQ(engine_.arithmetic("k", true, 1, 0, 0, 0, on(vb_a)).status, Status::NotANumber);
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "missing", "x", 0, on(vb_a)).status,
            Status::NotStored);
  EXPECT_EQ(engine_.remove("missing", 0, on(vb_a)).status, Status::NotFound);
  EXPECT_EQ(engine_.write_document("k", {.value = "x"}, on(vb_a)).status, Status::Exists);
  const MutationResult failed = engine_.store(StoreMode::Add, "k", "v", 0, 0, 0, 0, on(vb_a));
  EXPECT_EQ(failed.seqno, 0u);
  EXPECT_EQ(vb_a.high_seqno(), 1u);
}

TEST_F(SeqnoTest, TouchAndLockTakeNoneAndKeepTheItemsSeqno) {
  engine_.store(StoreMode::Set, "k", "v", 0, 0, 0, 0, on(vb_a));
  engine_.touch("k", 100);
  engine_.get_and_touch("k", 200);
  const uint64_t lock_cas = engine_.get_locked("k", 5).item->cas;
  engine_.unlock("k", lock_cas);
  EXPECT_EQ(item_seqno("k"), 1u);
  EXPECT_EQ(vb_a.high_seqno(), 1u);
}

TEST_F(SeqnoTest, AMutationThatRemovesOutrightStillTakesOne) {
  Config forgetful = small_config();
  forgetful.metadata_purge_seconds = 0;
  Engine engine(forgetful, clock_);
  engine.store(StoreMode::Set, "k", "v", 0, 0, 0, 0, on(vb_a));
  EXPECT_EQ(engine.remove("k", 0, on(vb_a)).seqno, 2u);
  engine.store(StoreMode::Set, "k", "v", 0, 0, 0, 0, on(vb_a));
  // An absolute expiry in the past: the store removes the document it replaces.
  const auto past = static_cast<uint32_t>(clock_.unix_seconds() - 10);
  EXPECT_EQ(engine.store(StoreMode::Set, "k", "v", 0, past, 0, 0, on(vb_a)).seqno, 4u);
  EXPECT_EQ(engine.get_meta("k").status, Status::NotFound);
}

TEST_F(SeqnoTest, WithoutAVbucketThereIsNoSeqno) {
  const MutationResult stored = engine_.store(StoreMode::Set, "k", "v", 0, 0, 0, 0);
  EXPECT_EQ(stored.seqno, 0u);
  EXPECT_EQ(item_seqno("k"), 0u);
}

}  // namespace
}  // namespace tern::engine
