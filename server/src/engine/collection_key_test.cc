#include "engine/collection_key.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

namespace tern::engine {
namespace {

// Whether `key` lies in one of the ranges.
bool in_ranges(const std::vector<storage::KeyRange>& ranges, std::string_view key) {
  for (const storage::KeyRange& range : ranges) {
    if (key >= range.begin && (range.end.empty() || key < range.end)) return true;
  }
  return false;
}

TEST(CollectionKey, CollectionOfStoredKeys) {
  using namespace std::string_literals;
  EXPECT_EQ(collection_of_key("plain"), 0u);
  EXPECT_EQ(collection_of_key("\0\0starts-with-zero"s), 0u);
  EXPECT_EQ(collection_of_key("\0\x08key"s), 8u);
  EXPECT_EQ(collection_of_key("\0\x7fkey"s), 0x7fu);
  EXPECT_EQ(collection_of_key("\0\x80\x01key"s), 0x80u);  // two bytes of LEB128
  EXPECT_EQ(collection_of_key("\0\x80"s), std::nullopt);  // truncated
  EXPECT_EQ(collection_of_key("\0"s), std::nullopt);
}

TEST(CollectionKey, StoredAndLogicalKeysAreInverses) {
  using namespace std::string_literals;
  for (const auto& [collection, logical, stored] :
       std::initializer_list<std::tuple<uint32_t, std::string, std::string>>{
           {0, "plain", "plain"},
           {0, "\0starts-with-zero"s, "\0\0starts-with-zero"s},
           {8, "key", "\0\x08key"s},
           {0x80, "key", "\0\x80\x01key"s},
           {8, "", "\0\x08"s},
       }) {
    EXPECT_EQ(stored_key_of(collection, logical), stored);
    EXPECT_EQ(logical_key_of(stored), logical);
    EXPECT_EQ(collection_of_key(stored), collection);
  }
  EXPECT_EQ(logical_key_of("\0\x80"s), std::nullopt);
}

TEST(CollectionKey, RangesHoldExactlyTheCollectionsKeys) {
  using namespace std::string_literals;
  const std::vector<std::string> keys = {
      "plain",          "\xff\xffhigh"s,
      "\x01low"s,       "\0\0zero"s,
      "\0\x08key"s,     "\0\x09key"s,
      "\0\x7fkey"s,     "\0\x80\x01key"s,
      "\0\x81\x01key"s, "\0\xff\xff\xff\xff\x0fkey"s,
  };
  for (uint32_t id : {0u, 8u, 9u, 0x7fu, 0x80u, 0x81u, 0xffffffffu}) {
    const auto ranges = collection_key_ranges(id);
    for (const std::string& key : keys) {
      EXPECT_EQ(in_ranges(ranges, key), collection_of_key(key) == id)
          << "collection " << id << ", key of collection " << collection_of_key(key).value();
    }
  }
}

}  // namespace
}  // namespace tern::engine
