// What the console's document browser reads through the engine: a collection's keys page by
// page (Engine::list_keys), and evicted values fetched while the caller waits
// (call_with_fetches).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/blocking_fetch.h"
#include "engine/document_listing.h"
#include "engine/engine_fixture.h"
#include "engine/flusher.h"
#include "engine/paging_hooks.h"
#include "engine/persistence_hooks.h"
#include "engine/persistent_engine_fixture.h"
#include "executor/executor_pool.h"
#include "storage/temp_dir.h"

namespace tern::engine {
namespace {

using namespace std::string_literals;
using Keys = std::vector<std::string>;

// Stored keys (collection_key.h): the default collection's as they are, collection 8's
// behind 0x00 0x08, and a default key that starts with 0x00 behind one more 0x00.
const std::string kOther = "\0\x08"s;

TEST_F(EngineTest, ListKeysPagesThroughOneCollectionInByteOrder) {
  Keys expected;
  for (int i = 49; i >= 0; --i) {
    const std::string key = "k" + std::string(i < 10 ? "0" : "") + std::to_string(i);
    set(key, "v");
    set(kOther + key, "other collection");
  }
  set("\0\0zero first"s, "a default key starting with 0x00");
  expected.push_back("\0\0zero first"s);
  for (int i = 0; i < 50; ++i)
    expected.push_back("k" + std::string(i < 10 ? "0" : "") + std::to_string(i));

  Keys seen;
  std::string after;
  int pages = 0;
  for (Keys page; ++pages < 10 && !(page = engine_.list_keys(0, after, 20)).empty();) {
    EXPECT_LE(page.size(), 20u);
    seen.insert(seen.end(), page.begin(), page.end());
    after = page.back();
  }
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(pages, 4) << "three pages of 20, 20 and 11, then an empty one";

  const Keys other = engine_.list_keys(8, "", 3);
  EXPECT_EQ(other, (Keys{kOther + "k00", kOther + "k01", kOther + "k02"}));
  EXPECT_EQ(engine_.list_keys(8, kOther + "k48", 10), (Keys{kOther + "k49"}));
  EXPECT_TRUE(engine_.list_keys(9, "", 10).empty());
  EXPECT_TRUE(engine_.list_keys(0, "", 0).empty());
}

TEST_F(EngineTest, ListKeysLeavesOutRemovedExpiredAndFlushedDocuments) {
  set("live", "v");
  set("removed", "v");
  ASSERT_EQ(engine_.remove("removed", 0).status, Status::Success);
  ASSERT_TRUE(engine_.get_meta("removed").deleted) << "its tombstone is kept";
  set("expiring", "v", /*expiry=*/10);
  clock_.advance_seconds(11);
  EXPECT_EQ(engine_.list_keys(0, "", 10), (Keys{"live"}));
  engine_.flush(5);
  set("before its time", "v");  // stored before the flush's time: it goes too
  clock_.advance_seconds(5);    // each shard applies the flush when listed
  EXPECT_TRUE(engine_.list_keys(0, "", 10).empty());
  set("new", "v");
  EXPECT_EQ(engine_.list_keys(0, "", 10), (Keys{"new"}));
}

TEST(PersistentListKeys, AnEvictedValueIsListedAndAPendingDurableWriteIsNot) {
  ManualClock clock;
  PersistentEngine data(clock);
  data.set("evicted", "v", 1);
  const MutationResult pending = data.set("pending", "v", 2, 0, /*prepare=*/true);
  std::vector<ItemPtr> taken;
  data.engine.persistence().take_dirty(taken);
  for (VBucket& vbucket : data.vbuckets()) vbucket.set_persisted_seqno(vbucket.high_seqno());
  data.engine.paging().evict(data.engine.mem_used());
  ASSERT_EQ(data.value_of("evicted"), "<NotResident>");
  EXPECT_EQ(data.engine.list_keys(0, "", 10), (Keys{"evicted"}));
  ASSERT_TRUE(data.engine.persistence().commit_prepared("pending", pending.cas));
  EXPECT_EQ(data.engine.list_keys(0, "", 10), (Keys{"evicted", "pending"}));
}

// Under full eviction the keys on disk only are listed from the store, beside those in
// memory; removed and expired documents on disk are not.
TEST(ListDocumentKeys, UnderFullEvictionTheKeysOnDiskOnlyAreListedToo) {
  storage::TempDir dir;
  const std::unique_ptr<storage::Store> store = storage::open_rocksdb_store(dir.sub("b"), {});
  ManualClock clock;
  Config config = persistent_config();
  config.full_eviction = true;
  PersistentEngine data(clock, config);
  for (const char* key : {"a", "b", "c", "d"}) data.set(key, "v", 1);
  data.set(kOther + "x", "other collection", 2);
  data.set("expiring", "v", 3, /*expiry=*/100);
  data.remove("c", 1);
  Flusher(data.engine, data.vbuckets(), *store, 7, clock).flush_all();
  data.engine.paging().evict(data.engine.mem_used());
  ASSERT_TRUE(data.engine.persistence().on_disk_only("a"));
  // A new key: the bloom filter of the keys on disk rules it out, so it is written at once.
  ASSERT_FALSE(data.engine.persistence().on_disk_only("in memory"));
  ASSERT_EQ(data.set("in memory", "v", 4).status, Status::Success);
  clock.advance_seconds(200);
  const int64_t now = clock.unix_seconds();

  EXPECT_EQ(data.engine.list_keys(0, "", 10), (Keys{"in memory"}));
  EXPECT_EQ(list_document_keys(data.engine, store.get(), 0, "", 10, now),
            (Keys{"a", "b", "d", "in memory"}));
  EXPECT_EQ(list_document_keys(data.engine, store.get(), 0, "a", 2, now), (Keys{"b", "d"}));
  EXPECT_EQ(list_document_keys(data.engine, store.get(), 8, "", 10, now), (Keys{kOther + "x"}));
  EXPECT_EQ(list_document_keys(data.engine, nullptr, 0, "", 10, now), (Keys{"in memory"}));
}

// A thread that may block reads an evicted value: the background fetcher (on the real
// executor's Reader thread) puts it back, and the call runs again.
TEST(CallWithFetches, AnEvictedValueIsFetchedWhileTheCallerWaits) {
  storage::TempDir dir;
  const std::unique_ptr<storage::Store> store = storage::open_rocksdb_store(dir.sub("b"), {});
  const Clock& clock = SystemClock::instance();
  PersistentEngine data(clock);
  executor::ExecutorPool executor;
  constexpr executor::OwnerId kOwner = 7;
  BgFetcher fetcher(data.engine, *store);
  fetcher.start(executor, kOwner);
  ASSERT_EQ(data.set("k", "on disk", 3).status, Status::Success);
  Flusher(data.engine, data.vbuckets(), *store, kOwner, clock).flush_all();
  data.engine.paging().evict(data.engine.mem_used());
  ASSERT_EQ(data.engine.get("k").status, Status::NotResident);

  int calls = 0;
  const auto get = [&] {
    ++calls;
    return data.engine.get("k");
  };
  EXPECT_EQ(call_with_fetches(nullptr, "k", 3, get).status, Status::NotResident)
      << "no fetcher: the first answer stands";
  const GetResult got = call_with_fetches(&fetcher, "k", 3, get);
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.item->value(), "on disk");
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(fetcher.fetched(), 1u);
  executor.unregister(kOwner);
}

}  // namespace
}  // namespace tern::engine
