// The background fetcher on the deterministic executor, against the real RocksDB store:
// write, flush, evict, fetch, read.

#include "engine/bg_fetcher.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "engine/flusher.h"
#include "engine/paging_hooks.h"
#include "engine/persistent_engine_fixture.h"
#include "executor/manual_executor.h"
#include "storage/temp_dir.h"

namespace tern::engine {
namespace {

// The real store, with its reads counted and, on demand, refused.
class CountingStore final : public storage::Store {
 public:
  explicit CountingStore(std::unique_ptr<storage::Store> inner) : inner_(std::move(inner)) {}

  void write(std::span<const storage::Record> records,
             std::span<const storage::VBucketSeqno> seqnos) override {
    inner_->write(records, seqnos);
  }
  void clear_and_write(std::span<const storage::Record> records,
                       std::span<const storage::VBucketSeqno> seqnos) override {
    inner_->clear_and_write(records, seqnos);
  }
  std::optional<storage::OwnedRecord> get(uint16_t vbucket, std::string_view key) override {
    reads.push_back(std::to_string(vbucket) + ":" + std::string(key));
    if (refuse_reads) throw storage::StoreError("I/O error (test)");
    return inner_->get(vbucket, key);
  }
  void scan(const std::function<bool(const storage::Record&)>& visit) override {
    inner_->scan(visit);
  }
  std::vector<storage::VBucketSeqno> high_seqnos() override { return inner_->high_seqnos(); }
  void compact() override { inner_->compact(); }
  void write_meta(std::span<const storage::MetaEntry> entries) override {
    inner_->write_meta(entries);
  }
  std::optional<std::string> read_meta(std::string_view name) override {
    return inner_->read_meta(name);
  }

  std::vector<std::string> reads;  // "vbucket:key", in order
  bool refuse_reads = false;

 private:
  std::unique_ptr<storage::Store> inner_;
};

class BgFetcherTest : public ::testing::Test {
 protected:
  BgFetcherTest()
      : store_(storage::open_rocksdb_store(dir_.sub("bucket"), {})),
        data_(clock_),
        executor_(clock_),
        fetcher_(data_.engine, store_) {
    fetcher_.start(executor_, kOwner);
  }

  // Writes everything queued to the store, then evicts every value.
  void flush_and_evict() {
    Flusher(data_.engine, data_.vbuckets(), store_, kOwner, clock_).flush_all();
    data_.engine.paging().evict(data_.engine.mem_used());
  }

  // A waiter that counts its calls and records whether the value was back by then.
  std::function<void()> waiter(std::string key, int& calls, std::string* seen = nullptr) {
    return [this, key, &calls, seen] {
      ++calls;
      if (seen) *seen = data_.value_of(key);
    };
  }

  static constexpr executor::OwnerId kOwner = 11;
  storage::TempDir dir_;
  CountingStore store_;
  ManualClock clock_;
  PersistentEngine data_;
  executor::ManualExecutor executor_;
  BgFetcher fetcher_;
};

TEST_F(BgFetcherTest, FetchesAnEvictedValueFromItsVBucketAndThenTellsTheWaiter) {
  const MutationResult written = data_.set("k", "on disk", /*vbucket=*/5);
  flush_and_evict();
  ASSERT_EQ(data_.value_of("k"), "<NotResident>");
  EXPECT_EQ(executor_.ready_count(), 0u) << "the task sleeps until a fetch wakes it";

  int calls = 0;
  std::string seen;
  fetcher_.fetch("k", 0, waiter("k", calls, &seen));
  EXPECT_EQ(calls, 0) << "asynchronous: nothing happens on the requester's thread";
  EXPECT_EQ(executor_.ready_count(), 1u);
  executor_.run_ready();

  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, "on disk") << "the value is back before the waiter is told";
  EXPECT_EQ(store_.reads, std::vector<std::string>{"5:k"});
  EXPECT_EQ(fetcher_.fetched(), 1u);
  EXPECT_EQ(data_.engine.get("k").item->cas, written.cas);
  EXPECT_EQ(executor_.ready_count(), 0u) << "and sleeps again";
}

TEST_F(BgFetcherTest, OneRunServesEveryQueuedFetchAndReadsAKeyOnce) {
  data_.set("a", "alpha", 1);
  data_.set("b", "beta", 2);
  flush_and_evict();
  int a_calls = 0, a_again = 0, b_calls = 0;
  fetcher_.fetch("a", 0, waiter("a", a_calls));
  fetcher_.fetch("a", 0, waiter("a", a_again));
  fetcher_.fetch("b", 0, waiter("b", b_calls));
  EXPECT_EQ(executor_.run_ready(), 1u) << "one run for the batch";
  EXPECT_EQ(a_calls, 1);
  EXPECT_EQ(a_again, 1);
  EXPECT_EQ(b_calls, 1);
  EXPECT_EQ(store_.reads, (std::vector<std::string>{"1:a", "2:b"}));
  EXPECT_EQ(fetcher_.fetched(), 2u);
  EXPECT_EQ(data_.value_of("a"), "alpha");
  EXPECT_EQ(data_.value_of("b"), "beta");
  EXPECT_EQ(data_.engine.stats().num_non_resident, 0u);
}

TEST_F(BgFetcherTest, AKeyNoLongerEvictedIsNotReadButItsWaitersAreTold) {
  data_.set("resident", "v");
  data_.set("changed", "old");
  data_.set("removed", "x");
  flush_and_evict();
  data_.set("resident", "v");  // resident again
  data_.set("changed", "new");
  data_.remove("removed");
  int calls = 0;
  for (const char* key : {"resident", "changed", "removed", "never stored"}) {
    fetcher_.fetch(key, 0, waiter(key, calls));
  }
  executor_.run_ready();
  EXPECT_EQ(calls, 4);
  EXPECT_TRUE(store_.reads.empty());
  EXPECT_EQ(fetcher_.fetched(), 0u);
  EXPECT_EQ(data_.value_of("changed"), "new");
}

TEST_F(BgFetcherTest, AStoreErrorStillTellsTheWaitersAndTheNextFetchSucceeds) {
  data_.set("k", "v");
  flush_and_evict();
  store_.refuse_reads = true;
  int calls = 0;
  fetcher_.fetch("k", 0, waiter("k", calls));
  executor_.run_ready();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(fetcher_.fetched(), 0u);
  EXPECT_EQ(data_.value_of("k"), "<NotResident>") << "the retry may fetch again";

  store_.refuse_reads = false;
  fetcher_.fetch("k", 0, waiter("k", calls));
  executor_.run_ready();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(data_.value_of("k"), "v");
}

TEST_F(BgFetcherTest, AFetchQueuedWhileTheTaskRunsGetsARunOfItsOwn) {
  data_.set("a", "alpha");
  data_.set("b", "beta");
  flush_and_evict();
  int b_calls = 0;
  int a_calls = 0;
  // The first waiter queues another fetch, as a request that meets a second evicted key
  // would.
  fetcher_.fetch("a", 0, [&] {
    ++a_calls;
    fetcher_.fetch("b", 0, waiter("b", b_calls));
  });
  executor_.run_ready();
  EXPECT_EQ(a_calls, 1);
  EXPECT_EQ(b_calls, 0);
  EXPECT_EQ(executor_.ready_count(), 1u) << "the fetch during the run woke the task";
  executor_.run_ready();
  EXPECT_EQ(b_calls, 1);
  EXPECT_EQ(data_.value_of("b"), "beta");
}

}  // namespace
}  // namespace tern::engine
