#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "storage/record_codec.h"
#include "storage/store.h"
#include "storage/temp_dir.h"

namespace tern::storage {
namespace {

using ::testing::HasSubstr;
using namespace std::string_view_literals;

Record doc(uint16_t vbucket, std::string_view key, std::string_view value, uint64_t seqno) {
  return Record{{.cas = 1000 + seqno, .seqno = seqno, .rev_seqno = 1, .vbucket = vbucket}, key, value};
}

Record tombstone(uint16_t vbucket, std::string_view key, uint64_t seqno, uint32_t deleted_at) {
  return Record{
      {.cas = 1000 + seqno, .seqno = seqno, .rev_seqno = 2, .vbucket = vbucket, .deleted = true},
      key,
      "",
      deleted_at};
}

void expect_equal(const OwnedRecord& got, const Record& want) {
  Record g = got.view();
  EXPECT_EQ(g.vbucket, want.vbucket);
  EXPECT_EQ(g.key, want.key);
  EXPECT_EQ(g.value, want.value);
  EXPECT_EQ(g.cas, want.cas);
  EXPECT_EQ(g.seqno, want.seqno);
  EXPECT_EQ(g.rev_seqno, want.rev_seqno);
  EXPECT_EQ(g.flags, want.flags);
  EXPECT_EQ(g.expiry, want.expiry);
  EXPECT_EQ(g.datatype, want.datatype);
  EXPECT_EQ(g.deleted, want.deleted);
}

std::vector<OwnedRecord> scan_all(Store& store) {
  std::vector<OwnedRecord> out;
  store.scan([&](const Record& r) {
    out.push_back(OwnedRecord::copy(r));
    return true;
  });
  return out;
}

class StoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<Store> open(StoreOptions options = {}) {
    return open_rocksdb_store(dir_.sub("bucket"), std::move(options));
  }
  TempDir dir_;
};

TEST_F(StoreTest, WriteThenGet) {
  auto store = open();
  Record records[] = {
      Record{{.cas = 77, .seqno = 5, .rev_seqno = 4, .flags = 0xabcd, .vbucket = 3, .datatype = 1},
             "\x00\x08key"sv,
             "{\"a\":1}",
             1'800'000'000},
      tombstone(3, "gone", 6, 1'700'000'000),
  };
  store->write(records, {});
  for (const Record& r : records) {
    auto got = store->get(r.vbucket, r.key);
    ASSERT_TRUE(got);
    expect_equal(*got, r);
  }
  EXPECT_FALSE(store->get(3, "missing"));
  EXPECT_FALSE(store->get(4, "gone"));  // the same key in another vbucket
  EXPECT_FALSE(store->get(0xffff, "gone"));
}

TEST_F(StoreTest, LaterRecordForTheSameKeyWins) {
  auto store = open();
  Record records[] = {doc(1, "k", "first", 1), doc(1, "other", "x", 2), doc(1, "k", "second", 3),
                      tombstone(1, "other", 4, 5)};
  store->write(records, {});
  expect_equal(*store->get(1, "k"), records[2]);
  expect_equal(*store->get(1, "other"), records[3]);
  EXPECT_EQ(scan_all(*store).size(), 2u);
}

TEST_F(StoreTest, ScanVisitsEveryRecordInVBucketThenKeyOrder) {
  auto store = open();
  Record records[] = {doc(300, "a", "5", 1), doc(2, "b", "3", 1), tombstone(2, "a", 2, 9),
                      doc(0, "z", "1", 1), doc(1023, "", "6", 1), doc(256, "a", "4", 1)};
  store->write(records, std::vector<VBucketSeqno>{{2, 2}});
  auto got = scan_all(*store);
  ASSERT_EQ(got.size(), 6u);
  const Record* order[] = {&records[3], &records[2], &records[1],
                           &records[5], &records[0], &records[4]};
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(i);
    expect_equal(got[i], *order[i]);
  }
}

// A range scan's keys on disk: one vbucket's, from the range's first key up to its end (none:
// the vbucket's last key), in key order; the default implementation (a filtered scan) agrees.
TEST_F(StoreTest, ScanVBucketReadsOneVBucketsRangeInKeyOrder) {
  auto store = open();
  Record records[] = {doc(5, "b", "1", 1),  doc(5, "a", "1", 2), tombstone(5, "c", 3, 9),
                      doc(5, "d", "1", 4),  doc(4, "b", "1", 1), doc(6, "b", "1", 1),
                      doc(0x3ff, "b", "1", 1)};
  store->write(records, {});
  struct Filtered final : Store {
    explicit Filtered(Store& inner) : inner_(inner) {}
    void write(std::span<const Record>, std::span<const VBucketSeqno>) override {}
    void clear_and_write(std::span<const Record>, std::span<const VBucketSeqno>) override {}
    std::optional<OwnedRecord> get(uint16_t, std::string_view) override { return {}; }
    void scan(const std::function<bool(const Record&)>& visit) override { inner_.scan(visit); }
    std::vector<VBucketSeqno> high_seqnos() override { return {}; }
    void write_meta(std::span<const MetaEntry>) override {}
    std::optional<std::string> read_meta(std::string_view) override { return {}; }
    void compact() override {}
    Store& inner_;
  } filtered(*store);
  for (Store* under_test : {store.get(), static_cast<Store*>(&filtered)}) {
    const auto keys = [&](uint16_t vbucket, KeyRange range, size_t stop_after = 100) {
      std::string out;
      under_test->scan_vbucket(vbucket, range, [&](const Record& record) {
        EXPECT_EQ(record.vbucket, vbucket);
        out += std::string(record.key) + (record.deleted ? "-" : "") + ",";
        return --stop_after > 0;
      });
      return out;
    };
    EXPECT_EQ(keys(5, {"", ""}), "a,b,c-,d,");
    EXPECT_EQ(keys(5, {"b", "d"}), "b,c-,");
    EXPECT_EQ(keys(5, {"b", ""}), "b,c-,d,");
    EXPECT_EQ(keys(5, {"a", ""}, 2), "a,b,");
    EXPECT_EQ(keys(0x3ff, {"", ""}), "b,");
    EXPECT_EQ(keys(7, {"", ""}), "");
  }
}

TEST_F(StoreTest, ScanStopsWhenVisitReturnsFalse) {
  auto store = open();
  Record records[] = {doc(0, "a", "", 1), doc(0, "b", "", 2), doc(0, "c", "", 3)};
  store->write(records, {});
  int visited = 0;
  store->scan([&](const Record&) { return ++visited < 2; });
  EXPECT_EQ(visited, 2);
}

TEST_F(StoreTest, HighSeqnosRoundTripAndTheLatestWins) {
  auto store = open();
  EXPECT_TRUE(store->high_seqnos().empty());
  store->write({}, std::vector<VBucketSeqno>{{0, 5}, {1023, 7}, {512, 1}});
  store->write({}, std::vector<VBucketSeqno>{{512, 9}});
  auto seqnos = store->high_seqnos();
  ASSERT_EQ(seqnos.size(), 3u);
  EXPECT_EQ(seqnos[0].vbucket, 0);
  EXPECT_EQ(seqnos[0].seqno, 5u);
  EXPECT_EQ(seqnos[1].vbucket, 512);
  EXPECT_EQ(seqnos[1].seqno, 9u);
  EXPECT_EQ(seqnos[2].vbucket, 1023);
  EXPECT_EQ(seqnos[2].seqno, 7u);
  // The seqnos are not documents.
  EXPECT_TRUE(scan_all(*store).empty());
}

TEST_F(StoreTest, ReopenKeepsEverything) {
  std::string big(100'000, 'x');
  Record records[] = {doc(1, "small", "v", 1), doc(1, "big", big, 2), tombstone(2, "t", 1, 3)};
  {
    auto store = open();
    store->write(records, std::vector<VBucketSeqno>{{1, 2}, {2, 1}});
  }
  auto store = open();
  auto got = scan_all(*store);
  ASSERT_EQ(got.size(), 3u);
  expect_equal(got[0], records[1]);
  expect_equal(got[1], records[0]);
  expect_equal(got[2], records[2]);
  auto seqnos = store->high_seqnos();
  ASSERT_EQ(seqnos.size(), 2u);
  EXPECT_EQ(seqnos[0].seqno, 2u);
  EXPECT_EQ(seqnos[1].seqno, 1u);
}

TEST_F(StoreTest, SecondOpenOfAnOpenDirectoryFailsNamingIt) {
  auto store = open();
  try {
    open();
    FAIL() << "a second open succeeded";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr(dir_.sub("bucket")));
    EXPECT_THAT(e.what(), HasSubstr("lock"));
  }
  // The first is unharmed.
  Record r = doc(0, "k", "v", 1);
  store->write({&r, 1}, {});
  EXPECT_TRUE(store->get(0, "k"));
}

TEST_F(StoreTest, OpenCreatesParentDirectories) {
  auto store = open_rocksdb_store(dir_.sub("a/b/c"), {});
  EXPECT_TRUE(std::filesystem::is_directory(dir_.sub("a/b/c")));
}

TEST_F(StoreTest, OpenWhereADirectoryCannotBeFails) {
  { std::ofstream(dir_.sub("file")) << "x"; }
  EXPECT_THROW(open_rocksdb_store(dir_.sub("file/db"), {}), StoreError);
}

// A flush: every record goes, in every vbucket, tombstones and keys starting with 0x00 too;
// the records of the same batch stay, one of them a key that was there before; the high
// seqnos stay. So it is after a reopen.
TEST_F(StoreTest, ClearAndWriteLeavesOnlyItsOwnRecordsAndKeepsTheSeqnos) {
  Record before[] = {doc(0, "a", "old", 1), doc(0, "\0\x08k"sv, "old", 2),
                     tombstone(3, "t", 1, 5), doc(kMaxVBucket, "z", "old", 1)};
  Record after[] = {doc(0, "a", "new", 3), doc(7, "b", "new", 1)};
  {
    auto store = open();
    store->write(before, std::vector<VBucketSeqno>{{0, 2}, {3, 1}, {kMaxVBucket, 1}});
    store->clear_and_write(after, std::vector<VBucketSeqno>{{0, 3}, {7, 1}});
  }
  auto store = open();
  auto got = scan_all(*store);
  ASSERT_EQ(got.size(), 2u);
  expect_equal(got[0], after[0]);
  expect_equal(got[1], after[1]);
  EXPECT_FALSE(store->get(3, "t"));
  EXPECT_FALSE(store->get(kMaxVBucket, "z"));
  auto seqnos = store->high_seqnos();
  ASSERT_EQ(seqnos.size(), 4u);
  EXPECT_EQ(seqnos[0].seqno, 3u);
  EXPECT_EQ(seqnos[1].vbucket, 3);
  EXPECT_EQ(seqnos[1].seqno, 1u);
  // An empty one empties the store.
  store->clear_and_write({}, {});
  EXPECT_TRUE(scan_all(*store).empty());
}

// A refused batch deletes nothing either.
TEST_F(StoreTest, ARefusedClearDeletesNothing) {
  auto store = open();
  Record before[] = {doc(1, "k", "v", 1)};
  store->write(before, {});
  Record bad[] = {doc(0xff00, "k", "v", 1)};
  EXPECT_THROW(store->clear_and_write(bad, {}), StoreError);
  EXPECT_TRUE(store->get(1, "k"));
}

TEST_F(StoreTest, VBucketInTheMetadataRangeIsRefusedAndNothingIsWritten) {
  auto store = open();
  Record records[] = {doc(1, "k", "v", 1), doc(0xff00, "k", "v", 1)};
  EXPECT_THROW(store->write(records, std::vector<VBucketSeqno>{{1, 1}}), StoreError);
  EXPECT_FALSE(store->get(1, "k"));
  EXPECT_TRUE(store->high_seqnos().empty());
}

// The flusher writes while warmup or a background fetch reads: a reader sees each record
// whole, old or new, never a mix. (Not a test for TSan: Debian's librocksdb is not
// instrumented, so its memtable's atomics are invisible and TSan reports false races.)
TEST_F(StoreTest, ReadsWhileWritingSeeWholeRecords) {
  auto store = open();
  constexpr int kBatches = 200;
  std::thread writer([&] {
    for (int i = 1; i <= kBatches; ++i) {
      std::string value = std::to_string(i);
      Record records[] = {doc(0, "a", value, i), doc(1, "b", value, i)};
      store->write(records, std::vector<VBucketSeqno>{{0, uint64_t(i)}, {1, uint64_t(i)}});
    }
  });
  uint64_t last_seen = 0;
  while (last_seen < kBatches) {
    if (auto got = store->get(0, "a")) {
      EXPECT_EQ(got->value, std::to_string(got->seqno));
      EXPECT_GE(got->seqno, last_seen);
      last_seen = got->seqno;
    }
    store->scan([&](const Record& r) {
      EXPECT_EQ(r.value, std::to_string(r.seqno));
      return true;
    });
  }
  writer.join();
}

// A value that does not decode (a torn or foreign write): forged with RocksDB directly, since
// the store's own write cannot produce one.
TEST_F(StoreTest, CorruptValueThrowsNamingTheVBucket) {
  {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_.sub("bucket"), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), encode_document_key(7, "k"), "short").ok());
  }
  auto store = open();
  try {
    store->get(7, "k");
    FAIL() << "get decoded a corrupt value";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr("vbucket 7"));
  }
  EXPECT_THROW(scan_all(*store), StoreError);
}

}  // namespace
}  // namespace tern::storage
