// MutationOptions::preserve_ttl (Couchbase's PreserveTtl frame): a mutation of a live
// document may keep its expiry rather than set the request's.
#include "engine/engine_fixture.h"

namespace tern::engine {
namespace {

constexpr MutationOptions kPreserveTtl{.preserve_ttl = true};

class PreserveTtlTest : public EngineTest {
 protected:
  MutationResult store(StoreMode mode, std::string_view value, uint32_t expiry,
                       MutationOptions options = kPreserveTtl) {
    return engine_.store(mode, "k", value, 0, expiry, 0, 0, options);
  }
  uint32_t expiry() { return engine_.get_meta("k").expiry; }
  // The Unix time `seconds` from now.
  uint32_t in(int64_t seconds) { return static_cast<uint32_t>(clock_.unix_seconds() + seconds); }
};

TEST_F(PreserveTtlTest, SetAndReplaceKeepTheLiveDocumentsExpiry) {
  set("k", "v", 100);
  const uint32_t original = expiry();
  ASSERT_EQ(original, in(100));
  clock_.advance_seconds(10);
  ASSERT_EQ(store(StoreMode::Set, "set", 0).status, Status::Success);
  EXPECT_EQ(expiry(), original);
  ASSERT_EQ(store(StoreMode::Replace, "replaced", 500).status, Status::Success);
  EXPECT_EQ(expiry(), original);
  EXPECT_EQ(value_of("k"), "replaced");
  clock_.advance_seconds(90);
  EXPECT_EQ(value_of("k"), kMissing);
}

TEST_F(PreserveTtlTest, KeepsNoExpiryAsNoExpiry) {
  set("k", "v");
  store(StoreMode::Set, "set", 100);
  EXPECT_EQ(expiry(), 0u);
}

TEST_F(PreserveTtlTest, WithoutTheOptionTheRequestsExpiryApplies) {
  set("k", "v", 100);
  store(StoreMode::Set, "set", 0, MutationOptions{});
  EXPECT_EQ(expiry(), 0u);
}

TEST_F(PreserveTtlTest, CreatingADocumentTakesTheRequestsExpiry) {
  ASSERT_EQ(store(StoreMode::Set, "new", 50).status, Status::Success);
  EXPECT_EQ(expiry(), in(50));
  engine_.remove("k", 0);
  ASSERT_EQ(store(StoreMode::Add, "over a tombstone", 60).status, Status::Success);
  EXPECT_EQ(expiry(), in(60));
  clock_.advance_seconds(60);  // and an expired document is gone, not preserved
  ASSERT_EQ(store(StoreMode::Set, "after expiry", 70).status, Status::Success);
  EXPECT_EQ(expiry(), in(70));
}

TEST_F(PreserveTtlTest, AFailedMutationChangesNoExpiry) {
  set("k", "v", 100);
  EXPECT_EQ(store(StoreMode::Add, "add", 5).status, Status::Exists);
  EXPECT_EQ(expiry(), in(100));
}

TEST_F(PreserveTtlTest, ConcatAndArithmeticKeepTheExpiryWithOrWithoutIt) {
  set("k", "1", 100);
  for (MutationOptions options : {kPreserveTtl, MutationOptions{}}) {
    ASSERT_EQ(engine_.concat(ConcatMode::Append, "k", "0", 0, options).status, Status::Success);
    EXPECT_EQ(expiry(), in(100));
    ASSERT_EQ(engine_.arithmetic("k", true, 1, 0, 0, 0, options).status, Status::Success);
    EXPECT_EQ(expiry(), in(100));
  }
  EXPECT_EQ(value_of("k"), "111");  // "1" "10" "11" "110" "111"
}

}  // namespace
}  // namespace tern::engine
