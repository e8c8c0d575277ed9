#include "engine/failover_log.h"

#include <gtest/gtest.h>

namespace tern::engine {
namespace {

TEST(FailoverLogTest, TheNewestHistoryIsCurrentAndEachOlderOneEndsWhereTheNextBegan) {
  FailoverLog log;
  EXPECT_EQ(log.uuid(), 0u);
  log.add(111, 0);
  log.add(222, 40);
  log.add(333, 75);
  EXPECT_EQ(log.uuid(), 333u);
  EXPECT_EQ(log.entries()[0], (FailoverEntry{333, 75}));
  EXPECT_EQ(log.entries()[2], (FailoverEntry{111, 0}));
  EXPECT_EQ(log.end_of(111), 40u);
  EXPECT_EQ(log.end_of(222), 75u);
  EXPECT_EQ(log.end_of(333), std::nullopt) << "the current history has not ended";
  EXPECT_EQ(log.end_of(444), std::nullopt);
  EXPECT_TRUE(log.knows(111));
  EXPECT_FALSE(log.knows(444));
}

TEST(FailoverLogTest, OnlyTheNewestTwentyFiveHistoriesAreKept) {
  FailoverLog log;
  for (uint64_t i = 1; i <= 30; ++i) log.add(i, i * 10);
  ASSERT_EQ(log.entries().size(), 25u);
  EXPECT_EQ(log.uuid(), 30u);
  EXPECT_FALSE(log.knows(5));
  EXPECT_TRUE(log.knows(6));
  EXPECT_EQ(log.end_of(6), 70u);
}

TEST(FailoverLogTest, EncodesAndDecodesEveryEntryInOrder) {
  FailoverLog log;
  log.add(0x0123456789abcdef, 0);
  log.add(7, 0xfedcba9876543210);
  const std::string bytes = log.encode();
  EXPECT_EQ(bytes.size(), 1u + 2 * 16);
  const std::optional<FailoverLog> back = FailoverLog::decode(bytes);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->entries().size(), 2u);
  EXPECT_EQ(back->entries()[0], (FailoverEntry{7, 0xfedcba9876543210}));
  EXPECT_EQ(back->entries()[1], (FailoverEntry{0x0123456789abcdef, 0}));
  ASSERT_TRUE(FailoverLog::decode(FailoverLog().encode()));
  EXPECT_TRUE(FailoverLog::decode(FailoverLog().encode())->entries().empty());
}

TEST(FailoverLogTest, DecodingRefusesWhatIsNotALog) {
  FailoverLog log;
  log.add(9, 1);
  const std::string good = log.encode();
  EXPECT_FALSE(FailoverLog::decode(""));
  EXPECT_FALSE(FailoverLog::decode(std::string(1, '\x02') + good.substr(1))) << "a later version";
  EXPECT_FALSE(FailoverLog::decode(good.substr(0, good.size() - 1))) << "a truncated entry";
  FailoverLog zero;
  zero.add(0, 1);
  EXPECT_FALSE(FailoverLog::decode(zero.encode())) << "a uuid of 0 names no history";
  std::string too_long(1, '\x01');
  for (int i = 0; i < 26; ++i) too_long += std::string(8, '\x01') + std::string(8, '\0');
  EXPECT_FALSE(FailoverLog::decode(too_long));
}

TEST(FailoverLogTest, NewUuidsAreNeverZero) {
  for (int i = 0; i < 1000; ++i) ASSERT_NE(new_failover_uuid(), 0u);
}

}  // namespace
}  // namespace tern::engine
