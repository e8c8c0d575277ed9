#include "engine/counter_value.h"
#include "engine/engine_fixture.h"

namespace tern::engine {
namespace {

constexpr uint32_t kNoCreate = 0xffffffff;

TEST(CounterValueTest, ParsesOnlyDecimalU64) {
  EXPECT_EQ(parse_counter("0"), 0u);
  EXPECT_EQ(parse_counter("18446744073709551615"), ~uint64_t{0});
  EXPECT_EQ(parse_counter("18446744073709551616"), std::nullopt);
  EXPECT_EQ(parse_counter(""), std::nullopt);
  EXPECT_EQ(parse_counter("-1"), std::nullopt);
  EXPECT_EQ(parse_counter("+1"), std::nullopt);
  EXPECT_EQ(parse_counter(" 1"), std::nullopt);
  EXPECT_EQ(parse_counter("12a"), std::nullopt);
  EXPECT_EQ(parse_counter("000000000000000000001"), std::nullopt);
}

TEST_F(EngineTest, IncrementCreatesWithInitialThenAdds) {
  ArithmeticResult created = engine_.arithmetic("c", true, 5, 100, 0, 0);
  ASSERT_EQ(created.status, Status::Success);
  EXPECT_EQ(created.value, 100u);
  EXPECT_NE(created.cas, 0u);
  EXPECT_EQ(value_of("c"), "100");
  ArithmeticResult added = engine_.arithmetic("c", true, 5, 100, 0, 0);
  EXPECT_EQ(added.value, 105u);
  EXPECT_NE(added.cas, created.cas);
  EXPECT_EQ(value_of("c"), "105");
  Stats stats = engine_.stats();
  EXPECT_EQ(stats.incr_misses, 1u);
  EXPECT_EQ(stats.incr_hits, 1u);
}

TEST_F(EngineTest, CreatedCounterGetsTheExpiry) {
  engine_.arithmetic("c", true, 1, 7, 10, 0);
  clock_.advance_seconds(10);
  EXPECT_EQ(value_of("c"), kMissing);
}

TEST_F(EngineTest, ArithmeticKeepsAnExistingItemsMetadata) {
  engine_.store(StoreMode::Set, "c", "1", 42, 10, 0, 0);
  engine_.arithmetic("c", true, 1, 0, 1000, 0);
  GetResult got = engine_.get("c");
  EXPECT_EQ(got.item->flags, 42u);
  clock_.advance_seconds(10);
  EXPECT_EQ(value_of("c"), kMissing);
}

TEST_F(EngineTest, NoCreateExpiryFailsOnMissingKey) {
  EXPECT_EQ(engine_.arithmetic("c", true, 1, 0, kNoCreate, 0).status, Status::KeyEnoent);
  EXPECT_EQ(engine_.arithmetic("c", false, 1, 0, kNoCreate, 0).status, Status::KeyEnoent);
  EXPECT_EQ(value_of("c"), kMissing);
  set("c", "9");
  EXPECT_EQ(engine_.arithmetic("c", true, 1, 0, kNoCreate, 0).value, 10u);
}

TEST_F(EngineTest, IncrementWrapsAtTwoToThe64) {
  set("c", "18446744073709551615");
  ArithmeticResult result = engine_.arithmetic("c", true, 2, 0, 0, 0);
  EXPECT_EQ(result.value, 1u);
  EXPECT_EQ(value_of("c"), "1");
}

TEST_F(EngineTest, DecrementStopsAtZero) {
  set("c", "10");
  EXPECT_EQ(engine_.arithmetic("c", false, 3, 0, 0, 0).value, 7u);
  EXPECT_EQ(engine_.arithmetic("c", false, 100, 0, 0, 0).value, 0u);
  EXPECT_EQ(value_of("c"), "0");
  EXPECT_EQ(engine_.stats().decr_hits, 2u);
}

TEST_F(EngineTest, NonNumericValueIsDeltaBadval) {
  set("c", "abc");
  EXPECT_EQ(engine_.arithmetic("c", true, 1, 0, 0, 0).status, Status::DeltaBadval);
  set("c", "99999999999999999999");  // over 2^64
  EXPECT_EQ(engine_.arithmetic("c", true, 1, 0, 0, 0).status, Status::DeltaBadval);
  EXPECT_EQ(value_of("c"), "99999999999999999999");
}

TEST_F(EngineTest, ArithmeticHonoursCas) {
  const uint64_t cas = set("c", "1").cas;
  EXPECT_EQ(engine_.arithmetic("c", true, 1, 0, 0, cas + 1).status, Status::KeyEexists);
  ArithmeticResult result = engine_.arithmetic("c", true, 1, 0, 0, cas);
  EXPECT_EQ(result.status, Status::Success);
  EXPECT_EQ(result.value, 2u);
}

TEST_F(EngineTest, AppendAndPrependKeepMetadata) {
  engine_.store(StoreMode::Set, "k", "mid", 7, 100, 0x01, 0);
  const int64_t expiry = engine_.get("k").item->expiry_ms;
  ASSERT_EQ(engine_.concat(ConcatMode::Append, "k", ">>", 0).status, Status::Success);
  ASSERT_EQ(engine_.concat(ConcatMode::Prepend, "k", "<<", 0).status, Status::Success);
  GetResult got = engine_.get("k");
  EXPECT_EQ(got.item->value(), "<<mid>>");
  EXPECT_EQ(got.item->flags, 7u);
  EXPECT_EQ(got.item->datatype, 0x01);
  EXPECT_EQ(got.item->expiry_ms, expiry);
}

TEST_F(EngineTest, ConcatOnMissingKeyIsNotStored) {
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", "x", 0).status, Status::NotStored);
  EXPECT_EQ(engine_.concat(ConcatMode::Prepend, "k", "x", 0).status, Status::NotStored);
  EXPECT_EQ(value_of("k"), kMissing);
}

TEST_F(EngineTest, ConcatOverMaxItemSizeIsE2big) {
  const std::string half(engine_.config().max_item_size / 2, 'a');
  set("k", half);
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", half, 0).status, Status::Success);
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", "x", 0).status, Status::E2big);
  EXPECT_EQ(value_of("k"), half + half);
}

TEST_F(EngineTest, ConcatHonoursCas) {
  const uint64_t cas = set("k", "a").cas;
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", "b", cas + 1).status, Status::KeyEexists);
  MutationResult result = engine_.concat(ConcatMode::Append, "k", "b", cas);
  EXPECT_EQ(result.status, Status::Success);
  EXPECT_EQ(engine_.get("k").item->cas, result.cas);
  EXPECT_EQ(value_of("k"), "ab");
}

}  // namespace
}  // namespace tern::engine
