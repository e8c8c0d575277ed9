#include "storage/tombstone_purge_filter.h"

#include <atomic>
#include <vector>

#include <gtest/gtest.h>

#include "storage/record_codec.h"
#include "storage/temp_dir.h"

namespace tern::storage {
namespace {

constexpr int64_t kNow = 1'700'000'000;
constexpr uint32_t kInterval = 3600;

TEST(TombstonePurge, ShouldPurge) {
  struct Case {
    const char* name;
    bool deleted;
    uint32_t expiry;
    bool purge;
  };
  const Case cases[] = {
      {"live, never expires", false, 0, false},
      {"live, expires later", false, kNow + 10, false},
      {"live, expired within the interval", false, kNow - kInterval, false},
      {"live, expired longer ago", false, kNow - kInterval - 1, true},
      {"tombstone, deleted within the interval", true, kNow - kInterval, false},
      {"tombstone, deleted just now", true, kNow, false},
      {"tombstone, deleted longer ago", true, kNow - kInterval - 1, true},
      {"tombstone, deletion time unknown", true, 0, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Record r{{.cas = 1, .seqno = 1, .rev_seqno = 1, .deleted = c.deleted}, "k", "", c.expiry};
    EXPECT_EQ(should_purge(r, kNow, kInterval), c.purge);
  }
}

TEST(TombstonePurge, FilterKeepsSeqnosAndWhatItCannotDecode) {
  TombstonePurgeFilter filter(kNow, kInterval);
  std::string unused;
  bool changed = false;
  Record old_tombstone{{.cas = 1, .seqno = 1, .rev_seqno = 1, .deleted = true}, "k", "", 1};
  std::string value = encode_value(old_tombstone);
  EXPECT_TRUE(filter.Filter(0, encode_document_key(0, "k"), value, &unused, &changed));
  // The same bytes under a seqno key, and an undecodable value under a document key.
  EXPECT_FALSE(filter.Filter(0, encode_seqno_key(0), value, &unused, &changed));
  EXPECT_FALSE(filter.Filter(0, encode_document_key(0, "k"), "junk", &unused, &changed));
  EXPECT_FALSE(changed);
}

TEST(TombstonePurge, CompactionDropsOldTombstonesAndExpiredDocumentsOnly) {
  TempDir dir;
  std::atomic<int64_t> now{kNow};
  auto store = open_rocksdb_store(dir.sub("db"), StoreOptions{kInterval, [&] { return now.load(); }});
  std::vector<Record> records = {
      // {cas, seqno, rev_seqno, flags, vbucket, datatype, deleted}, key, value, expiry
      {{1, 1, 2, 0, 0, 0, true}, "old tombstone", "", kNow - kInterval - 100},
      {{2, 2, 2, 0, 0, 0, true}, "recent tombstone", "", kNow - 10},
      {{3, 3, 1, 0, 0, 0, false}, "live", "body", 0},
      {{4, 4, 1, 0, 0, 0, false}, "expires later", "body", kNow + 100},
      {{5, 5, 1, 0, 0, 0, false}, "long expired", "body", kNow - kInterval - 100},
  };
  store->write(records, std::vector<VBucketSeqno>{{0, 5}});

  store->compact();
  std::vector<std::string> left;
  store->scan([&](const Record& r) {
    left.emplace_back(r.key);
    return true;
  });
  EXPECT_EQ(left, (std::vector<std::string>{"expires later", "live", "recent tombstone"}));

  // Time passes: the recent tombstone ages past the interval, and the document expires.
  now = kNow + kInterval + 200;
  store->compact();
  left.clear();
  store->scan([&](const Record& r) {
    left.emplace_back(r.key);
    return true;
  });
  EXPECT_EQ(left, (std::vector<std::string>{"live"}));
  ASSERT_EQ(store->high_seqnos().size(), 1u);
  EXPECT_EQ(store->high_seqnos()[0].seqno, 5u);
}

}  // namespace
}  // namespace tern::storage
