#include "engine/key_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

namespace tern::engine {
namespace {

// Keys of one family ("in:" or "out:") drawn from a seeded generator: the same run every time.
std::string random_key(std::mt19937_64& random, std::string_view family) {
  return std::string(family) + std::to_string(random());
}

TEST(KeyFilterTest, AnEmptyFilterRulesOutEveryKeyAndHoldsNoBits) {
  KeyFilter filter;
  EXPECT_TRUE(filter.empty());
  EXPECT_FALSE(filter.may_contain("key"));
  EXPECT_FALSE(filter.may_contain(""));
  EXPECT_EQ(filter.bytes(), 0u);
}

TEST(KeyFilterTest, EveryKeyAddedStaysPresentAcrossGrowth) {
  KeyFilter filter;
  std::mt19937_64 random(7);
  std::vector<std::string> added;
  // Far past the first filter's capacity: the chain grows four times.
  for (int i = 0; i < 20'000; ++i) {
    added.push_back(random_key(random, "in:"));
    filter.add(added.back());
  }
  for (const std::string& key : added) ASSERT_TRUE(filter.may_contain(key)) << key;
  EXPECT_GE(filter.keys(), 19'800u);  // at most 1% the filter already called present
  EXPECT_LE(filter.keys(), 20'000u);
}

TEST(KeyFilterTest, ARateOfOneKeepsNoBitsAndCallsEveryKeyPresentOnceOneIsAdded) {
  KeyFilter filter(1.0);
  EXPECT_FALSE(filter.may_contain("any"));
  filter.add("one");
  EXPECT_TRUE(filter.may_contain("one"));
  EXPECT_TRUE(filter.may_contain("any other"));
  EXPECT_EQ(filter.bytes(), 0u);
}

TEST(KeyFilterTest, AddingAKeyAgainCountsItOnce) {
  KeyFilter filter;
  filter.add("again");
  filter.add("again");
  EXPECT_EQ(filter.keys(), 1u);
}

// The bound holds for the whole chain, measured on keys never added, for the default rate
// and a tighter one, filled to several times the first filter's capacity.
TEST(KeyFilterTest, FalsePositivesStayWithinTheConfiguredRate) {
  for (const double rate : {0.01, 0.001}) {
    KeyFilter filter(rate);
    std::mt19937_64 random(42);
    for (int i = 0; i < 50'000; ++i) filter.add(random_key(random, "in:"));
    constexpr int kQueries = 200'000;
    int false_positives = 0;
    for (int i = 0; i < kQueries; ++i) false_positives += filter.may_contain(random_key(random, "out:"));
    const double measured = static_cast<double>(false_positives) / kQueries;
    EXPECT_LE(measured, rate) << "rate " << rate << ": " << false_positives << " of " << kQueries;
    // Not vacuous: the filter is small enough to err now and then.
    EXPECT_GT(false_positives, 0) << "rate " << rate;
  }
}

// Each filter of the chain is sized with the standard formula, bits = -n ln p / ln(2)^2, for
// its capacity n and rate p: the first takes 1,000 keys at half the bound.
TEST(KeyFilterTest, TheFirstFilterIsSizedWithTheStandardFormula) {
  KeyFilter filter(0.01);
  filter.add("one");
  const double bits = -1000 * std::log(0.005) / (std::log(2) * std::log(2));
  EXPECT_NEAR(static_cast<double>(filter.bytes()), bits / 8, 1.0);
  EXPECT_EQ(filter.bytes(), 1379u);  // 11,029 bits
}

}  // namespace
}  // namespace tern::engine
