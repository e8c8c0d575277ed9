// Store::remove_ranges on RocksDB: a dropped collection's records go from every vbucket, and
// nothing outside the ranges does.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "storage/record_codec.h"
#include "storage/store.h"
#include "storage/temp_dir.h"

namespace tern::storage {
namespace {

using namespace std::string_literals;

std::vector<std::pair<uint16_t, std::string>> keys_of(Store& store) {
  std::vector<std::pair<uint16_t, std::string>> out;
  store.scan([&](const Record& r) {
    out.emplace_back(r.vbucket, std::string(r.key));
    return true;
  });
  return out;
}

class RemoveRangesTest : public ::testing::Test {
 protected:
  RemoveRangesTest() : store_(open_rocksdb_store(dir_.sub("db"), {})) {
    std::vector<Record> records;
    for (const std::string* key : {&a1_, &a2_, &b1_, &plain_, &zero_}) {
      for (uint16_t vbucket : {uint16_t{0}, uint16_t{5}, uint16_t{1023}, kMaxVBucket}) {
        records.push_back(
            Record{{.cas = 1, .seqno = 1, .vbucket = vbucket}, *key, "v"});
      }
    }
    records.back().deleted = true;  // tombstones go too
    const VBucketSeqno seqnos[] = {{0, 1}, {5, 1}, {1023, 1}, {kMaxVBucket, 1}};
    store_->write(records, seqnos);
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  // Keys of collection 8 (0x00 0x08 ...), of 9, of _default (one starting with 0x00).
  const std::string a1_ = "\0\x08one"s, a2_ = "\0\x08two"s, b1_ = "\0\x09one"s;
  const std::string plain_ = "plain", zero_ = "\0\0zero"s;
};

TEST_F(RemoveRangesTest, RemovesTheRangesInEveryVBucketAndNothingElse) {
  std::vector<std::string> visited;
  const KeyRange collection_8[] = {{"\0\x08"s, "\0\x09"s}};
  store_->remove_ranges(collection_8,
                        [&](const Record& r) { visited.push_back(std::string(r.key)); });
  EXPECT_EQ(visited.size(), 8u);  // two keys in each of four vbuckets
  for (const auto& [vbucket, key] : keys_of(*store_)) {
    EXPECT_TRUE(key == b1_ || key == plain_ || key == zero_) << vbucket << " " << key;
  }
  EXPECT_EQ(keys_of(*store_).size(), 12u);
  EXPECT_EQ(store_->high_seqnos().size(), 4u);  // the metadata range is untouched
}

TEST_F(RemoveRangesTest, AnOpenEndedRangeStopsAtEachVBucketsEnd) {
  // The _default collection: 0x00 0x00..., and everything from 0x01 on.
  const KeyRange default_collection[] = {{"\0\0"s, "\0\x01"s}, {"\x01"s, ""}};
  store_->remove_ranges(default_collection, {});
  for (const auto& [vbucket, key] : keys_of(*store_)) {
    EXPECT_TRUE(key == a1_ || key == a2_ || key == b1_) << vbucket << " " << key;
  }
  EXPECT_EQ(keys_of(*store_).size(), 12u);
  EXPECT_EQ(store_->high_seqnos().size(), 4u);
}

TEST_F(RemoveRangesTest, ARangeWithNoKeysChangesNothing) {
  const KeyRange none[] = {{"\0\x20"s, "\0\x21"s}};
  store_->remove_ranges(none, {});
  EXPECT_EQ(keys_of(*store_).size(), 20u);
}

}  // namespace
}  // namespace tern::storage
