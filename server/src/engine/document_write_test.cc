// get_document and write_document: the read-modify-write the sub-document commands build on.
#include <string>

#include "engine/engine_fixture.h"
#include "engine/stored_item.h"
#include "engine/vbucket.h"

namespace tern::engine {
namespace {

constexpr uint8_t kXattr = 0x04;

class DocumentWriteTest : public EngineTest {
 protected:
  // Writes `value` over what get_document read (its CAS), as a sub-document mutation does.
  MutationResult write(std::string_view key, std::string_view value, uint64_t expected_cas,
                       bool deleted = false) {
    return engine_.write_document(
        key, {.value = value, .deleted = deleted, .expected_cas = expected_cas});
  }

  // The key's document or tombstone as get_document(include_deleted) reads it.
  ItemPtr read(std::string_view key) { return engine_.get_document(key, true).item; }
};

// --- get_document -----------------------------------------------------------------------

TEST_F(DocumentWriteTest, ReadsALiveDocumentWithItsCas) {
  const uint64_t cas = engine_.store(StoreMode::Set, "k", "v", 5, 0, 0x01, 0).cas;
  const GetResult got = engine_.get_document("k", false);
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.item->value(), "v");
  EXPECT_EQ(got.item->cas, cas);
  EXPECT_EQ(got.item->flags, 5u);
  EXPECT_FALSE(got.locked);
}

TEST_F(DocumentWriteTest, ReadsALockedDocumentWithItsRealCasAndSaysItIsLocked) {
  set("k", "v");
  const uint64_t lock_cas = engine_.get_locked("k", 10).item->cas;
  EXPECT_EQ(engine_.get("k").item->cas, Engine::kLockedCas) << "a plain get hides it";
  const GetResult got = engine_.get_document("k", false);
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_TRUE(got.locked);
  EXPECT_EQ(got.item->cas, lock_cas);
  clock_.advance_seconds(10);
  EXPECT_FALSE(engine_.get_document("k", false).locked) << "the lock expired";
}

TEST_F(DocumentWriteTest, ReadsATombstoneOnlyWhenAskedFor) {
  set("k", "v");
  const uint64_t removed = engine_.remove("k", 0).cas;
  EXPECT_EQ(engine_.get_document("k", false).status, Status::NotFound);
  const GetResult got = engine_.get_document("k", true);
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_TRUE(got.item->deleted);
  EXPECT_EQ(got.item->cas, removed);
  EXPECT_EQ(got.item->value(), "");
  EXPECT_EQ(engine_.get_document("never", true).status, Status::NotFound);
}

TEST_F(DocumentWriteTest, CountsAsAGet) {
  set("k", "v");
  engine_.get_document("k", false);
  engine_.get_document("missing", true);
  const Stats stats = engine_.stats();
  EXPECT_EQ(stats.cmd_get, 2u);
  EXPECT_EQ(stats.get_hits, 1u);
  EXPECT_EQ(stats.get_misses, 1u);
}

// --- write_document: what it may replace ---------------------------------------------

TEST_F(DocumentWriteTest, ReplacesTheLiveDocumentItRead) {
  const uint64_t cas = set("k", "old").cas;
  const MutationResult written = engine_.write_document(
      "k", {.value = "new", .datatype = 0x01, .flags = 9, .expected_cas = cas});
  ASSERT_EQ(written.status, Status::Success);
  EXPECT_NE(written.cas, cas);
  const ItemPtr item = read("k");
  EXPECT_EQ(item->value(), "new");
  EXPECT_EQ(item->cas, written.cas);
  EXPECT_EQ(item->datatype, 0x01);
  EXPECT_EQ(item->flags, 9u);
  EXPECT_EQ(item->rev_seqno, 2u);
  EXPECT_EQ(engine_.stats().cmd_set, 2u);
}

TEST_F(DocumentWriteTest, ADocumentChangedSinceItWasReadIsACasMismatch) {
  const uint64_t read_cas = set("k", "v1").cas;
  set("k", "v2");  // another writer got there first
  EXPECT_EQ(write("k", "mine", read_cas).status, Status::CasMismatch);
  EXPECT_EQ(value_of("k"), "v2");
}

TEST_F(DocumentWriteTest, ADocumentRemovedSinceItWasReadIsACasMismatch) {
  const uint64_t read_cas = set("k", "v").cas;
  engine_.remove("k", 0);
  EXPECT_EQ(write("k", "mine", read_cas).status, Status::CasMismatch);
  Config forgetful = small_config();
  forgetful.metadata_purge_seconds = 0;  // no tombstone: the key is simply gone
  Engine engine(forgetful, clock_);
  const uint64_t cas = engine.store(StoreMode::Set, "k", "v", 0, 0, 0, 0).cas;
  engine.remove("k", 0);
  EXPECT_EQ(engine.write_document("k", {.value = "x", .expected_cas = cas}).status,
            Status::CasMismatch);
}

TEST_F(DocumentWriteTest, AnAbsentKeyIsCreatedUnlessADocumentAppeared) {
  ASSERT_EQ(write("k", "created", 0).status, Status::Success);
  EXPECT_EQ(value_of("k"), "created");
  EXPECT_EQ(read("k")->rev_seqno, 1u);
  // Read as absent, but a document is there now.
  EXPECT_EQ(write("k", "again", 0).status, Status::Exists);
  EXPECT_EQ(value_of("k"), "created");
}

TEST_F(DocumentWriteTest, ATombstoneIsReplacedWhetherItWasReadOrNot) {
  set("k", "v");
  const uint64_t tombstone = engine_.remove("k", 0).cas;
  ASSERT_EQ(write("k", "revived", tombstone).status, Status::Success);
  EXPECT_EQ(value_of("k"), "revived");
  EXPECT_EQ(read("k")->rev_seqno, 3u) << "the revision follows the tombstone's";
  engine_.remove("k", 0);
  ASSERT_EQ(write("k", "created", 0).status, Status::Success) << "read as absent";
  EXPECT_EQ(value_of("k"), "created");
  EXPECT_EQ(engine_.stats().curr_items, 1u);
}

// Two creations that read the key with its tombstones and found nothing: the second must
// not overwrite the tombstone the first created (transactions' staged inserts rely on it).
TEST_F(DocumentWriteTest, ATombstoneThatAppearedSinceAReadWithTombstonesIsExists) {
  ASSERT_EQ(engine_.write_document("k", {.value = "first", .deleted = true, .read_deleted = true})
                .status,
            Status::Success);
  EXPECT_EQ(engine_.write_document("k", {.value = "second", .deleted = true, .read_deleted = true})
                .status,
            Status::Exists);
  EXPECT_EQ(read("k")->value(), "first");
}

TEST_F(DocumentWriteTest, AStaleTombstoneCasIsACasMismatch) {
  set("k", "v");
  const uint64_t first = engine_.remove("k", 0).cas;
  write("k", "v2", 0);
  engine_.remove("k", 0);
  EXPECT_EQ(write("k", "mine", first).status, Status::CasMismatch);
  EXPECT_TRUE(read("k")->deleted);
}

TEST_F(DocumentWriteTest, ALockedDocumentTakesOnlyTheLocksCas) {
  set("k", "v");
  const uint64_t lock_cas = engine_.get_locked("k", 10).item->cas;
  EXPECT_EQ(write("k", "x", lock_cas + 1).status, Status::Locked);
  EXPECT_EQ(write("k", "x", 0).status, Status::Locked);
  ASSERT_EQ(write("k", "x", lock_cas).status, Status::Success);
  EXPECT_FALSE(engine_.get_document("k", false).locked) << "the write unlocked it";
}

TEST_F(DocumentWriteTest, AValueOverTheItemSizeIsTooBig) {
  const std::string big(engine_.config().max_item_size + 1, 'x');
  EXPECT_EQ(write("k", big, 0).status, Status::TooBig);
  EXPECT_EQ(engine_.get_meta("k").status, Status::NotFound);
}

// --- write_document: deleted writes -----------------------------------------------------

TEST_F(DocumentWriteTest, ADeletedWriteLeavesATombstoneHoldingTheValue) {
  const uint64_t cas = set("k", "body").cas;
  const MutationResult written = engine_.write_document(
      "k", {.value = "attrs", .datatype = kXattr, .deleted = true, .expected_cas = cas});
  ASSERT_EQ(written.status, Status::Success);
  EXPECT_EQ(value_of("k"), kMissing);
  const ItemPtr tombstone = read("k");
  EXPECT_TRUE(tombstone->deleted);
  EXPECT_EQ(tombstone->value(), "attrs");
  EXPECT_EQ(tombstone->datatype, kXattr);
  EXPECT_EQ(tombstone->cas, written.cas);
  EXPECT_TRUE(engine_.get_meta("k").deleted);
  const Stats stats = engine_.stats();
  EXPECT_EQ(stats.curr_items, 0u);
  EXPECT_EQ(stats.mem_used, item_charge(1, 5)) << "a tombstone is charged as any item";
}

TEST_F(DocumentWriteTest, ADocumentMayBeCreatedDeletedAndStaysUntilPurged) {
  ASSERT_EQ(write("k", "attrs", 0, true).status, Status::Success);
  EXPECT_TRUE(read("k")->deleted);
  EXPECT_EQ(engine_.stats().total_items, 0u) << "no document was stored";
  clock_.advance_seconds(engine_.config().metadata_purge_seconds);
  EXPECT_EQ(engine_.get_document("k", true).status, Status::NotFound);
}

// --- write_document: expiry --------------------------------------------------------------

TEST_F(DocumentWriteTest, KeepExpiryKeepsTheLiveDocumentsExpiry) {
  const uint64_t cas = set("k", "v", 100).cas;
  const int64_t expiry = read("k")->expiry_ms;
  const uint64_t kept =
      engine_.write_document("k", {.value = "w", .expiry = 5, .keep_expiry = true,
                                   .expected_cas = cas}).cas;
  EXPECT_EQ(read("k")->expiry_ms, expiry);
  // PreserveTtl says the same.
  engine_.write_document("k", {.value = "x", .expiry = 5, .expected_cas = kept},
                         {.preserve_ttl = true});
  EXPECT_EQ(read("k")->expiry_ms, expiry);
}

TEST_F(DocumentWriteTest, WithoutKeepExpiryTheWriteSetsItsOwn) {
  const uint64_t cas = set("k", "v", 100).cas;
  engine_.write_document("k", {.value = "w", .expiry = 5, .expected_cas = cas});
  EXPECT_EQ(engine_.get_meta("k").expiry, clock_.unix_seconds() + 5);
}

TEST_F(DocumentWriteTest, ARevivedTombstoneTakesTheWritesExpiry) {
  set("k", "v", 100);
  const uint64_t tombstone = engine_.remove("k", 0).cas;
  engine_.write_document(
      "k", {.value = "w", .expiry = 5, .keep_expiry = true, .expected_cas = tombstone});
  EXPECT_EQ(engine_.get_meta("k").expiry, clock_.unix_seconds() + 5);
}

TEST_F(DocumentWriteTest, ExpiryUnixSecondsIsWhatGetMetaReports) {
  set("k", "v", 100);
  EXPECT_EQ(engine_.expiry_unix_seconds(*read("k")), clock_.unix_seconds() + 100);
  set("never", "v");
  EXPECT_EQ(engine_.expiry_unix_seconds(*read("never")), 0u);
}

// --- write_document: before_publish -------------------------------------------------------

TEST_F(DocumentWriteTest, BeforePublishSeesTheFinalCasAndSeqnoAndMayFillTheValue) {
  VBucket vbucket;
  set("k", "v");
  uint64_t seen_cas = 0;
  uint64_t seen_seqno = 0;
  DocumentWrite write{.value = "cas=________",
                      .expected_cas = read("k")->cas,
                      .before_publish = [&](std::span<char> value, uint64_t cas,
                                            uint64_t seqno) {
                        seen_cas = cas;
                        seen_seqno = seqno;
                        value.back() = '!';
                      }};
  const MutationResult written = engine_.write_document("k", write, {.vbucket = &vbucket});
  ASSERT_EQ(written.status, Status::Success);
  EXPECT_EQ(seen_cas, written.cas);
  EXPECT_EQ(seen_seqno, written.seqno);
  EXPECT_EQ(seen_seqno, 1u);
  EXPECT_EQ(value_of("k"), "cas=_______!");
}

TEST_F(DocumentWriteTest, BeforePublishIsNotCalledForAWriteThatFails) {
  bool called = false;
  set("k", "v");
  engine_.write_document("k", {.value = "x",
                               .before_publish = [&](std::span<char>, uint64_t, uint64_t) {
                                 called = true;
                               }});
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace tern::engine
