#include "protocol/frame_info.h"

#include <gtest/gtest.h>

#include <vector>

namespace tern::protocol {
namespace {

TEST(FrameInfoReader, ReadsEntriesInOrder) {
  // Barrier (id 0, no data), then durability (id 1) level 1 with a 0x0102 ms timeout.
  const std::vector<uint8_t> extras = {0x00, 0x13, 0x01, 0x01, 0x02};
  FrameInfoReader reader(extras);
  FrameInfo info;
  ASSERT_TRUE(reader.next(info));
  EXPECT_EQ(info.id, 0);
  EXPECT_TRUE(info.data.empty());
  ASSERT_TRUE(reader.next(info));
  EXPECT_EQ(info.id, 1);
  ASSERT_EQ(info.data.size(), 3u);
  EXPECT_EQ(info.data[2], 0x02);
  EXPECT_FALSE(reader.next(info));
  EXPECT_FALSE(reader.malformed());
}

TEST(FrameInfoReader, EscapedIdAndLengthAddFifteen) {
  std::vector<uint8_t> extras = {0xff, 0x02, 0x01};  // id 15+2, length 15+1
  extras.insert(extras.end(), 16, 0xaa);
  FrameInfoReader reader(extras);
  FrameInfo info;
  ASSERT_TRUE(reader.next(info));
  EXPECT_EQ(info.id, 17);
  EXPECT_EQ(info.data.size(), 16u);
  EXPECT_FALSE(reader.next(info));
  EXPECT_FALSE(reader.malformed());
}

TEST(FrameInfoReader, EntryRunningPastTheEndIsMalformed) {
  for (const std::vector<uint8_t>& extras : std::vector<std::vector<uint8_t>>{
           {0x12, 0x01}, {0xf0}, {0x0f}, {0x00, 0x21}}) {
    FrameInfoReader reader(extras);
    FrameInfo info;
    while (reader.next(info)) {
    }
    EXPECT_TRUE(reader.malformed()) << extras.size();
  }
}

}  // namespace
}  // namespace tern::protocol
