// Value eviction in a persistent bucket: only the values of documents already on disk go,
// their non-resident copies answer NotResident to whatever needs the value and serve what
// needs only metadata, and restore_value() puts a fetched value back.

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/clock.h"
#include "engine/item_pager.h"
#include "engine/paging_hooks.h"
#include "engine/persistence_hooks.h"
#include "engine/persistent_engine_fixture.h"
#include "engine/stored_item.h"
#include "executor/manual_executor.h"
#include "xattr/blob.h"

namespace tern::engine {
namespace {

constexpr uint8_t kXattr = 0x04;

std::map<std::string, uint64_t> stats_of(const Engine& engine) {
  std::map<std::string, uint64_t> out;
  engine.stats().for_each([&out](const metrics::StatDef& stat, uint64_t value) {
    out.emplace(std::string(stat.key), value);
  });
  return out;
}

class ValueEvictionTest : public ::testing::Test {
 protected:
  ValueEvictionTest() : data_(clock_) {}

  // Takes everything queued and reports it on disk, as the flusher does once it has written
  // it: every vbucket's persisted seqno advances to the high seqno read before the take, and
  // the items go back to the engine (PersistenceHooks::flushed).
  void persist() {
    std::vector<uint64_t> high;
    for (const VBucket& vbucket : data_.vbuckets()) high.push_back(vbucket.high_seqno());
    std::vector<ItemPtr> taken;
    engine().persistence().take_dirty(taken);
    for (VBucket& vbucket : data_.vbuckets()) vbucket.set_persisted_seqno(high[vbucket.id()]);
    engine().persistence().flushed(taken);
  }

  // Evicts every value that may go; returns the bytes freed.
  size_t evict_all() { return engine().paging().evict(engine().mem_used()); }

  Engine& engine() { return data_.engine; }

  ManualClock clock_;
  PersistentEngine data_;
};

TEST_F(ValueEvictionTest, OnlyPersistedResidentUnlockedDocumentsLoseTheirValues) {
  const std::string value(500, 'v');
  const MutationResult evictable = data_.set("evictable", value, 3);
  data_.set("tombstone", value);
  data_.remove("tombstone");
  data_.set("locked", value);
  data_.set("durable", value);
  persist();
  ASSERT_EQ(engine().get_locked("locked", 10).status, Status::Success);
  ASSERT_EQ(data_.set("durable", "pending", 0, 0, /*prepare=*/true).status, Status::Success);
  data_.set("unpersisted", value);
  const uint64_t before = engine().mem_used();
  const uint64_t items_before = engine().stats().curr_items;

  EXPECT_EQ(evict_all(), value.size());
  EXPECT_EQ(engine().mem_used(), before - value.size());
  const std::optional<PersistenceHooks::Evicted> evicted =
      engine().persistence().evicted("evictable");
  ASSERT_TRUE(evicted.has_value());
  EXPECT_EQ(evicted->vbucket, 3u);
  EXPECT_EQ(evicted->cas, evictable.cas);
  for (const char* kept : {"tombstone", "locked", "durable", "unpersisted"}) {
    EXPECT_FALSE(engine().persistence().evicted(kept).has_value()) << kept;
  }
  EXPECT_EQ(data_.value_of("evictable"), "<NotResident>");
  EXPECT_EQ(data_.value_of("unpersisted"), value);
  EXPECT_EQ(data_.value_of("durable"), value) << "the committed document of a pending write";
  const Stats stats = engine().stats();
  EXPECT_EQ(stats.curr_items, items_before) << "the key stays: only its value went";
  EXPECT_EQ(stats.num_value_ejects, 1u);
  EXPECT_EQ(stats.num_non_resident, 1u);
  EXPECT_EQ(stats.evictions, 0u);
  EXPECT_EQ(stats.reclaimed_bytes, value.size());
  const MetaResult meta = engine().get_meta("evictable");
  EXPECT_EQ(meta.cas, evictable.cas);
  EXPECT_EQ(meta.flags, 7u);

  EXPECT_EQ(evict_all(), 0u) << "a non-resident copy has nothing more to give";
}

// The lock's copy of a document is made before the flush that writes the document, and is
// what the key holds after the unlock: it is on disk as soon as the document is.
TEST_F(ValueEvictionTest, ADocumentLockedBeforeItsFlushIsEvictableOnceFlushedAndUnlocked) {
  const std::string value(500, 'v');
  data_.set("doc", value, 2);
  const GetResult locked = engine().get_locked("doc", 10);
  ASSERT_EQ(locked.status, Status::Success);
  EXPECT_EQ(evict_all(), 0u) << "not on disk yet";
  persist();
  EXPECT_EQ(evict_all(), 0u) << "locked";
  ASSERT_EQ(engine().unlock("doc", locked.item->cas), Status::Success);
  EXPECT_EQ(evict_all(), value.size());
  EXPECT_TRUE(engine().persistence().evicted("doc").has_value());
}

// While nothing can be allocated, eviction stops cleanly: nothing thrown, nothing changed.
TEST_F(ValueEvictionTest, EvictionThatCannotAllocateStopsWithoutThrowing) {
  const std::string value(500, 'v');
  data_.set("doc", value);
  persist();
  const uint64_t before = engine().mem_used();
  fail_non_resident_for_testing = true;
  size_t freed = 1;
  EXPECT_NO_THROW(freed = evict_all());
  fail_non_resident_for_testing = false;
  EXPECT_EQ(freed, 0u);
  EXPECT_EQ(engine().mem_used(), before);
  EXPECT_EQ(data_.value_of("doc"), value);
  EXPECT_EQ(evict_all(), value.size()) << "and works again once memory is back";
}

// The item pager survives such a failure, and evicts when woken once memory is back.
TEST_F(ValueEvictionTest, TheItemPagerKeepsRunningWhenEvictionCannotAllocate) {
  executor::ManualExecutor executor(clock_);
  const executor::TaskId pager = attach_item_pager(engine(), executor, executor::kServerOwner);
  const std::string value(1000, 'v');
  for (int i = 0; engine().mem_used() <= engine().high_watermark_bytes(); ++i) {
    ASSERT_EQ(data_.set("k" + std::to_string(i), value, i % kTestVBucketCount).status,
              Status::Success);
    persist();
  }
  const uint64_t before = engine().mem_used();
  fail_non_resident_for_testing = true;
  EXPECT_EQ(executor.run_ready(), 1u) << "memory pressure woke the pager";
  fail_non_resident_for_testing = false;
  EXPECT_EQ(engine().mem_used(), before);
  executor.wake(pager);
  EXPECT_EQ(executor.run_ready(), 1u) << "the pager is still scheduled";
  for (int pass = 0; pass < 100 && executor.ready_count() > 0; ++pass) executor.run_ready();
  EXPECT_LE(engine().mem_used(), engine().low_watermark_bytes());
}

TEST_F(ValueEvictionTest, AWritePastTheQuotaEvictsPersistedValuesInline) {
  const std::string value(1000, 'v');
  const auto key = [](int i) { return "k" + std::to_string(i); };
  const int kWrites = 2 * static_cast<int>(engine().config().memory_quota_bytes / value.size());
  for (int i = 0; i < kWrites; ++i) {
    ASSERT_EQ(data_.set(key(i), value, i % kTestVBucketCount).status, Status::Success) << i;
    persist();
  }
  EXPECT_LE(engine().mem_used(), engine().config().memory_quota_bytes);
  const Stats stats = engine().stats();
  EXPECT_EQ(stats.curr_items, static_cast<uint64_t>(kWrites));
  EXPECT_GT(stats.num_non_resident, 0u);
  EXPECT_EQ(stats.num_value_ejects, stats.num_non_resident);
  for (int i = 0; i < kWrites; ++i) {
    const std::string read = data_.value_of(key(i));
    EXPECT_TRUE(read == value || read == "<NotResident>") << i << ": " << read;
  }
}

TEST_F(ValueEvictionTest, WritesNotYetOnDiskAreNeverEvictedSoTheQuotaRefuses) {
  const std::string value(1000, 'v');
  Status status = Status::Success;
  int written = 0;
  while ((status = data_.set("k" + std::to_string(written), value).status) == Status::Success) {
    ++written;
  }
  EXPECT_EQ(status, Status::OutOfMemory);
  EXPECT_EQ(evict_all(), 0u);
  EXPECT_EQ(engine().stats().num_value_ejects, 0u);
  for (int i = 0; i < written; ++i) EXPECT_EQ(data_.value_of("k" + std::to_string(i)), value);
}

// --- What a non-resident document answers. ---

std::string section_of(std::vector<xattr::Attribute> attributes) {
  std::string out;
  xattr::append_section(attributes, out);
  return out;
}

// A document "doc" without extended attributes and "xdoc" with some, both evicted.
class NonResidentTest : public ValueEvictionTest {
 protected:
  NonResidentTest() {
    doc_ = data_.set("doc", "12", 1);
    xdoc_ = engine().store(StoreMode::Set, "xdoc",
                           section_of({{"_sync", "1"}, {"meta", "2"}}) + "body", 0, 0, kXattr,
                           0, {.vbucket = &data_.vbucket_array[2]});
    persist();
    evict_all();
  }

  MutationResult doc_, xdoc_;
};

struct ValueOp {
  const char* name;
  const char* key;
  std::function<Status(Engine&)> run;
};

class NeedsTheValueTest : public NonResidentTest, public ::testing::WithParamInterface<ValueOp> {};

TEST_P(NeedsTheValueTest, AnswersNotResidentAndChangesNothing) {
  const std::string key = GetParam().key;
  ASSERT_TRUE(engine().persistence().evicted(key).has_value());
  const MetaResult meta = engine().get_meta(key);
  const auto stats = stats_of(engine());
  EXPECT_EQ(GetParam().run(engine()), Status::NotResident);
  EXPECT_EQ(stats_of(engine()), stats) << "the attempt counts nowhere: its retry will";
  EXPECT_TRUE(engine().persistence().evicted(key).has_value());
  const MetaResult after = engine().get_meta(key);
  EXPECT_EQ(after.cas, meta.cas);
  EXPECT_EQ(after.expiry, meta.expiry);
  EXPECT_EQ(after.rev_seqno, meta.rev_seqno);
  EXPECT_EQ(engine().persistence().dirty_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Ops, NeedsTheValueTest,
    ::testing::Values(
        ValueOp{"Get", "doc", [](Engine& e) { return e.get("doc").status; }},
        ValueOp{"GetDocument", "doc",
                [](Engine& e) { return e.get_document("doc", false).status; }},
        ValueOp{"GetDocumentWithDeleted", "doc",
                [](Engine& e) { return e.get_document("doc", true).status; }},
        ValueOp{"GetAndTouch", "doc", [](Engine& e) { return e.get_and_touch("doc", 60).status; }},
        ValueOp{"Touch", "doc", [](Engine& e) { return e.touch("doc", 60).status; }},
        ValueOp{"GetLocked", "doc", [](Engine& e) { return e.get_locked("doc", 5).status; }},
        ValueOp{"Append", "doc",
                [](Engine& e) { return e.concat(ConcatMode::Append, "doc", "3", 0).status; }},
        ValueOp{"Prepend", "doc",
                [](Engine& e) { return e.concat(ConcatMode::Prepend, "doc", "3", 0).status; }},
        ValueOp{"Increment", "doc",
                [](Engine& e) { return e.arithmetic("doc", true, 1, 0, 0, 0).status; }},
        ValueOp{"SetKeepingAttributes", "xdoc",
                [](Engine& e) {
                  return e.store(StoreMode::Set, "xdoc", "new", 0, 0, 0, 0).status;
                }},
        ValueOp{"RemoveKeepingAttributes", "xdoc",
                [](Engine& e) { return e.remove("xdoc", 0).status; }}),
    [](const ::testing::TestParamInfo<ValueOp>& info) { return info.param.name; });

struct MetadataOp {
  const char* name;
  const char* key;
  std::function<Status(Engine&, uint64_t cas)> run;  // given the document's CAS
  Status expected;
  bool replaces;  // publishes a new item: the key is then resident (or gone)
};

class NeedsOnlyMetadataTest : public NonResidentTest,
                              public ::testing::WithParamInterface<MetadataOp> {};

TEST_P(NeedsOnlyMetadataTest, WorksAsUsual) {
  const MetadataOp& op = GetParam();
  const uint64_t cas = engine().get_meta(op.key).cas;
  EXPECT_EQ(op.run(engine(), cas), op.expected);
  EXPECT_EQ(engine().persistence().evicted(op.key).has_value(), !op.replaces);
  EXPECT_EQ(engine().stats().num_non_resident, op.replaces ? 1u : 2u);
}

INSTANTIATE_TEST_SUITE_P(
    Ops, NeedsOnlyMetadataTest,
    ::testing::Values(
        MetadataOp{"GetMeta", "doc",
                   [](Engine& e, uint64_t) { return e.get_meta("doc").status; },
                   Status::Success, false},
        MetadataOp{"Unlock", "doc", [](Engine& e, uint64_t cas) { return e.unlock("doc", cas); },
                   Status::NotLocked, false},
        MetadataOp{"Add", "doc",
                   [](Engine& e, uint64_t) {
                     return e.store(StoreMode::Add, "doc", "x", 0, 0, 0, 0).status;
                   },
                   Status::Exists, false},
        MetadataOp{"CasMismatch", "doc",
                   [](Engine& e, uint64_t cas) {
                     return e.store(StoreMode::Set, "doc", "x", 0, 0, 0, cas + 1).status;
                   },
                   Status::CasMismatch, false},
        MetadataOp{"Set", "doc",
                   [](Engine& e, uint64_t) {
                     return e.store(StoreMode::Set, "doc", "x", 0, 0, 0, 0).status;
                   },
                   Status::Success, true},
        MetadataOp{"ReplaceWithCas", "doc",
                   [](Engine& e, uint64_t cas) {
                     return e.store(StoreMode::Replace, "doc", "x", 0, 0, 0, cas).status;
                   },
                   Status::Success, true},
        MetadataOp{"Remove", "doc", [](Engine& e, uint64_t) { return e.remove("doc", 0).status; },
                   Status::Success, true},
        MetadataOp{"SetBringingItsOwnAttributes", "xdoc",
                   [](Engine& e, uint64_t) {
                     return e.store(StoreMode::Set, "xdoc", section_of({{"a", "1"}}) + "b", 0,
                                    0, kXattr, 0)
                         .status;
                   },
                   Status::Success, true},
        MetadataOp{"WriteDocument", "doc",
                   [](Engine& e, uint64_t cas) {
                     return e.write_document("doc", {.value = "{}", .expected_cas = cas}).status;
                   },
                   Status::Success, true}),
    [](const ::testing::TestParamInfo<MetadataOp>& info) { return info.param.name; });

TEST_F(NonResidentTest, ANonResidentDocumentStillExpires) {
  ASSERT_EQ(data_.set("ttl", "v", 0, /*expiry=*/10).status, Status::Success);
  persist();
  evict_all();
  ASSERT_TRUE(engine().persistence().evicted("ttl").has_value());
  clock_.advance_seconds(11);
  EXPECT_EQ(engine().get("ttl").status, Status::NotFound);
  EXPECT_TRUE(engine().get_meta("ttl").deleted) << "its expiry's tombstone";
  EXPECT_EQ(engine().stats().num_non_resident, 2u);
}

TEST_F(NonResidentTest, AFlushForgetsNonResidentDocumentsToo) {
  engine().flush(0);
  EXPECT_EQ(engine().stats().num_non_resident, 0u);
  EXPECT_EQ(engine().mem_used(), 0u);
}

// --- restore_value(): a fetched value goes back. ---

TEST_F(NonResidentTest, RestoreValuePutsTheValueBackUnderTheSameCas) {
  const uint64_t evicted_bytes = engine().mem_used();
  EXPECT_TRUE(engine().persistence().restore_value("doc", doc_.cas, "12"));
  const GetResult got = engine().get("doc");
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.item->value(), "12");
  EXPECT_EQ(got.item->cas, doc_.cas);
  EXPECT_EQ(got.item->flags, 7u);
  EXPECT_EQ(engine().mem_used(), evicted_bytes + 2);
  EXPECT_EQ(engine().stats().num_non_resident, 1u);
  EXPECT_EQ(engine().persistence().dirty_count(), 0u) << "it came from disk: nothing to write";
  EXPECT_FALSE(engine().persistence().restore_value("doc", doc_.cas, "12")) << "already resident";
  EXPECT_EQ(engine().arithmetic("doc", true, 1, 0, 0, 0).value, 13u);
}

TEST_F(NonResidentTest, AFetchedValueIsEvictableAgain) {
  ASSERT_TRUE(engine().persistence().restore_value("doc", doc_.cas, "12"));
  EXPECT_EQ(evict_all(), 2u);
  EXPECT_TRUE(engine().persistence().evicted("doc").has_value());
}

TEST_F(NonResidentTest, RestoreValueLeavesAnotherCasAlone) {
  EXPECT_FALSE(engine().persistence().restore_value("doc", doc_.cas + 1, "stale"));
  EXPECT_TRUE(engine().persistence().evicted("doc").has_value());
  EXPECT_FALSE(engine().persistence().restore_value("missing", 1, "x"));
}

TEST_F(NonResidentTest, RestoreValueLeavesAChangedOrRemovedKeyAlone) {
  data_.set("doc", "new");
  EXPECT_FALSE(engine().persistence().restore_value("doc", doc_.cas, "12"));
  EXPECT_EQ(data_.value_of("doc"), "new");
  data_.remove("doc");
  EXPECT_FALSE(engine().persistence().restore_value("doc", doc_.cas, "12"));
  EXPECT_EQ(engine().get("doc").status, Status::NotFound);
}

}  // namespace
}  // namespace tern::engine
