// Documents with extended attributes (xattr/blob.h): a remove keeps only the system ones in
// the tombstone; APPEND, PREPEND and INCREMENT change only the body.
#include <string>
#include <vector>

#include "engine/engine_fixture.h"
#include "engine/stored_item.h"
#include "xattr/blob.h"

namespace tern::engine {
namespace {

constexpr uint8_t kXattr = 0x04;
constexpr uint8_t kJson = 0x01;

std::string section_of(std::vector<xattr::Attribute> attributes) {
  std::string out;
  xattr::append_section(attributes, out);
  return out;
}

const std::string kUserAndSystem =
    section_of({{"meta", R"({"a":1})"}, {"_sync", R"({"rev":2})"}, {"_txn", "[]"}});
const std::string kSystemOnly = section_of({{"_sync", R"({"rev":2})"}, {"_txn", "[]"}});
const std::string kUserOnly = section_of({{"meta", "1"}});

class XattrDocumentTest : public EngineTest {
 protected:
  uint64_t store_with(std::string_view key, const std::string& section, std::string_view body,
                      uint8_t datatype = kXattr | kJson) {
    return engine_.store(StoreMode::Set, key, section + std::string(body), 3, 0, datatype, 0)
        .cas;
  }
  // The key's document or its tombstone.
  ItemPtr stored(std::string_view key) { return engine_.get_document(key, true).item; }
};

TEST_F(XattrDocumentTest, ARemoveKeepsOnlyTheSystemAttributes) {
  store_with("k", kUserAndSystem, R"({"body":true})");
  ASSERT_EQ(engine_.remove("k", 0).status, Status::Success);
  const ItemPtr kept = stored("k");
  ASSERT_TRUE(kept->deleted);
  EXPECT_EQ(kept->value(), kSystemOnly);
  EXPECT_EQ(kept->datatype, kXattr);
  EXPECT_EQ(kept->flags, 3u);
  EXPECT_EQ(engine_.get_meta("k").datatype, kXattr);
  EXPECT_EQ(engine_.mem_used(), item_charge(1, kSystemOnly.size()))
      << "a tombstone is charged for what it keeps";
}

TEST_F(XattrDocumentTest, ARemoveWithoutSystemAttributesKeepsNothing) {
  store_with("user", kUserOnly, "{}");
  engine_.store(StoreMode::Set, "plain", "{}", 0, 0, kJson, 0);
  engine_.remove("user", 0);
  engine_.remove("plain", 0);
  for (const char* key : {"user", "plain"}) {
    EXPECT_EQ(stored(key)->value(), "") << key;
    EXPECT_EQ(stored(key)->datatype, 0) << key;
  }
  EXPECT_EQ(engine_.mem_used(), item_charge(4, 0) + item_charge(5, 0));
}

TEST_F(XattrDocumentTest, SetAndReplaceOfABareBodyKeepTheAttributes) {
  store_with("k", kUserAndSystem, R"({"body":1})");
  ASSERT_EQ(engine_.store(StoreMode::Set, "k", R"({"body":2})", 7, 0, kJson, 0).status,
            Status::Success);
  EXPECT_EQ(stored("k")->value(), kUserAndSystem + R"({"body":2})");
  EXPECT_EQ(stored("k")->datatype, kXattr | kJson);
  EXPECT_EQ(stored("k")->flags, 7u);
  ASSERT_EQ(engine_.store(StoreMode::Replace, "k", "raw", 0, 0, 0, 0).status, Status::Success);
  EXPECT_EQ(stored("k")->value(), kUserAndSystem + "raw");
  EXPECT_EQ(stored("k")->datatype, kXattr);
}

TEST_F(XattrDocumentTest, AValueWithItsOwnAttributesReplacesThem) {
  store_with("k", kUserAndSystem, "1");
  store_with("k", kUserOnly, "2");
  EXPECT_EQ(stored("k")->value(), kUserOnly + "2");
}

TEST_F(XattrDocumentTest, KeptAttributesCountTowardsTheItemSize) {
  store_with("k", kUserAndSystem, "1");
  const std::string body(engine_.config().max_item_size - kUserAndSystem.size() + 1, 'x');
  EXPECT_EQ(engine_.store(StoreMode::Set, "k", body, 0, 0, 0, 0).status, Status::TooBig);
  EXPECT_EQ(stored("k")->value(), kUserAndSystem + "1");
}

TEST_F(XattrDocumentTest, AppendChangesOnlyTheBody) {
  store_with("k", kUserAndSystem, "[1,2", kXattr);
  ASSERT_EQ(engine_.concat(ConcatMode::Append, "k", ",3]", 0).status, Status::Success);
  const ItemPtr item = stored("k");
  EXPECT_EQ(item->value(), kUserAndSystem + "[1,2,3]");
  EXPECT_EQ(item->datatype & kXattr, kXattr);
}

TEST_F(XattrDocumentTest, PrependPutsTheValueAfterTheAttributes) {
  store_with("k", kUserAndSystem, "world");
  ASSERT_EQ(engine_.concat(ConcatMode::Prepend, "k", "hello ", 0).status, Status::Success);
  const ItemPtr item = stored("k");
  EXPECT_EQ(item->value(), kUserAndSystem + "hello world");
  EXPECT_EQ(item->datatype, kXattr) << "the body is not JSON: only the XATTR bit stays";
}

TEST_F(XattrDocumentTest, ArithmeticCountsTheBodyAndKeepsTheAttributes) {
  store_with("k", kUserOnly, "41", kXattr | kJson);
  const ArithmeticResult result = engine_.arithmetic("k", true, 1, 0, 0, 0);
  ASSERT_EQ(result.status, Status::Success);
  EXPECT_EQ(result.value, 42u);
  const ItemPtr item = stored("k");
  EXPECT_EQ(item->value(), kUserOnly + "42");
  EXPECT_EQ(item->datatype, kXattr | kJson);
}

}  // namespace
}  // namespace tern::engine
