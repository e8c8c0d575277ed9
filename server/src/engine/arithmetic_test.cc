#include "engine/counter_value.h"
#include "engine/engine_fixture.h"

#include <string>

namespace tern::engine {
namespace {

constexpr uint32_t kNoCreate = 0xffffffff;

// The cases below were answered by a real memcached 1.6.18 (INCREMENT by 1 on the stored
// value): a counter there is a counter here, and DeltaBadval there is nullopt here.
TEST(CounterValueTest, AcceptsWhatMemcachedAccepts) {
  EXPECT_EQ(parse_counter("0"), 0u);
  EXPECT_EQ(parse_counter("12"), 12u);
  EXPECT_EQ(parse_counter("18446744073709551615"), ~uint64_t{0});
  EXPECT_EQ(parse_counter("000000000000000000000000012"), 12u);
  // Whitespace around the digits, of every kind C's isspace knows.
  EXPECT_EQ(parse_counter(" 12"), 12u);
  EXPECT_EQ(parse_counter("12 "), 12u);
  EXPECT_EQ(parse_counter(" 12 "), 12u);
  EXPECT_EQ(parse_counter("\t\n\v\f\r12\r\n"), 12u);
  EXPECT_EQ(parse_counter(std::string(1000, ' ') + "12"), 12u);
  // After the digits and one whitespace or NUL, anything goes.
  EXPECT_EQ(parse_counter("12 x"), 12u);
  EXPECT_EQ(parse_counter("1 2"), 1u);
  EXPECT_EQ(parse_counter(std::string_view("12\0x", 4)), 12u);
  // Signs, as strtoull reads them: '-' negates modulo 2^64 unless that is negative.
  EXPECT_EQ(parse_counter("+12"), 12u);
  EXPECT_EQ(parse_counter(" +12"), 12u);
  EXPECT_EQ(parse_counter("-0"), 0u);
  EXPECT_EQ(parse_counter("-18446744073709551615"), 1u);
  EXPECT_EQ(parse_counter("-9223372036854775809"), 9223372036854775807u);
}

TEST(CounterValueTest, RefusesWhatMemcachedRefuses) {
  for (std::string_view text :
       {"", " ", "  ", "+", "-", "--1", "+-1", "- 1", "+ 1", "12x", "0x10", "1e3", "\xa0" "12",
        "18446744073709551616", "-1", "-12", "-9223372036854775808"}) {
    EXPECT_EQ(parse_counter(text), std::nullopt) << "'" << text << "'";
  }
  EXPECT_EQ(parse_counter(std::string_view("\0" "12", 3)), std::nullopt);
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
  ASSERT_EQ(engine_.arithmetic("c", true, 1, 7, 10, 0).status, Status::Success);
  clock_.advance_seconds(9);
  EXPECT_EQ(value_of("c"), "7");
  clock_.advance_seconds(1);
  EXPECT_EQ(value_of("c"), kMissing);
}

TEST_F(EngineTest, ArithmeticKeepsAnExistingItemsMetadata) {
  engine_.store(StoreMode::Set, "c", "1", 42, 10, 0, 0);
  ASSERT_EQ(engine_.arithmetic("c", true, 1, 0, 1000, 0).value, 2u);
  GetResult got = engine_.get("c");
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.item->flags, 42u);
  clock_.advance_seconds(9);
  EXPECT_EQ(value_of("c"), "2");
  clock_.advance_seconds(1);  // the stored expiry of 10 s, not the 1000 s of the request
  EXPECT_EQ(value_of("c"), kMissing);
}

TEST_F(EngineTest, NoCreateExpiryFailsOnMissingKey) {
  EXPECT_EQ(engine_.arithmetic("c", true, 1, 0, kNoCreate, 0).status, Status::NotFound);
  EXPECT_EQ(engine_.arithmetic("c", false, 1, 0, kNoCreate, 0).status, Status::NotFound);
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

TEST_F(EngineTest, CounterWithSurroundingSpacesCounts) {
  set("c", " 12 ");
  ArithmeticResult result = engine_.arithmetic("c", true, 1, 0, 0, 0);
  ASSERT_EQ(result.status, Status::Success);
  EXPECT_EQ(result.value, 13u);
  EXPECT_EQ(value_of("c"), "13");
}

TEST_F(EngineTest, NonNumericValueIsNotANumber) {
  set("c", "abc");
  EXPECT_EQ(engine_.arithmetic("c", true, 1, 0, 0, 0).status, Status::NotANumber);
  set("c", "99999999999999999999");  // over 2^64
  EXPECT_EQ(engine_.arithmetic("c", true, 1, 0, 0, 0).status, Status::NotANumber);
  EXPECT_EQ(value_of("c"), "99999999999999999999");
}

TEST_F(EngineTest, ArithmeticHonoursCas) {
  const uint64_t cas = set("c", "1").cas;
  EXPECT_EQ(engine_.arithmetic("c", true, 1, 0, 0, cas + 1).status, Status::CasMismatch);
  ArithmeticResult result = engine_.arithmetic("c", true, 1, 0, 0, cas);
  EXPECT_EQ(result.status, Status::Success);
  EXPECT_EQ(result.value, 2u);
}

TEST_F(EngineTest, AppendAndPrependKeepFlagsAndExpiry) {
  engine_.store(StoreMode::Set, "k", "mid", 7, 100, 0, 0);
  const int64_t expiry = engine_.get("k").item->expiry_ms;
  ASSERT_EQ(engine_.concat(ConcatMode::Append, "k", ">>", 0).status, Status::Success);
  ASSERT_EQ(engine_.concat(ConcatMode::Prepend, "k", "<<", 0).status, Status::Success);
  GetResult got = engine_.get("k");
  EXPECT_EQ(got.item->value(), "<<mid>>");
  EXPECT_EQ(got.item->flags, 7u);
  EXPECT_EQ(got.item->expiry_ms, expiry);
}

// Stands in for subdoc::is_json, which the engine does not link: only what it needs here.
bool is_json_for_test(std::string_view text) {
  return text == "[1,2]" || text == "12" || text == "\"ab\"";
}

TEST_F(EngineTest, ConcatGivesTheJsonBitByTheNewBodyAsCouchbaseDoes) {
  auto datatype = [&] { return engine_.get("k").item->datatype; };
  engine_.store(StoreMode::Set, "k", "[1", 0, 0, 0, 0);
  engine_.concat(ConcatMode::Append, "k", ",2]", 0, {}, is_json_for_test);
  EXPECT_EQ(datatype(), 0x01);
  engine_.concat(ConcatMode::Append, "k", "x", 0, {}, is_json_for_test);
  EXPECT_EQ(datatype(), 0x00) << "JSON no more";
  engine_.store(StoreMode::Set, "k", "2", 0, 0, 0x01, 0);
  engine_.concat(ConcatMode::Prepend, "k", "1", 0, {}, is_json_for_test);
  EXPECT_EQ(datatype(), 0x01);
  // Without a check the engine cannot tell, and never claims JSON.
  engine_.store(StoreMode::Set, "k", R"("a)", 0, 0, 0, 0);
  engine_.concat(ConcatMode::Append, "k", R"(b")", 0);
  EXPECT_EQ(datatype(), 0x00);
}

TEST_F(EngineTest, ConcatOnMissingKeyIsNotStored) {
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", "x", 0).status, Status::NotStored);
  EXPECT_EQ(engine_.concat(ConcatMode::Prepend, "k", "x", 0).status, Status::NotStored);
  EXPECT_EQ(value_of("k"), kMissing);
}

TEST_F(EngineTest, ConcatOverMaxItemSizeIsTooBig) {
  const std::string half(engine_.config().max_item_size / 2, 'a');
  set("k", half);
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", half, 0).status, Status::Success);
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", "x", 0).status, Status::TooBig);
  EXPECT_EQ(value_of("k"), half + half);
}

TEST_F(EngineTest, ConcatHonoursCas) {
  const uint64_t cas = set("k", "a").cas;
  EXPECT_EQ(engine_.concat(ConcatMode::Append, "k", "b", cas + 1).status, Status::CasMismatch);
  MutationResult result = engine_.concat(ConcatMode::Append, "k", "b", cas);
  EXPECT_EQ(result.status, Status::Success);
  EXPECT_EQ(engine_.get("k").item->cas, result.cas);
  EXPECT_EQ(value_of("k"), "ab");
}

}  // namespace
}  // namespace tern::engine
