#include "net/read_buffer.h"

#include <gtest/gtest.h>

#include <cstring>

namespace tern::net {
namespace {

void receive(ReadBuffer& buffer, const std::string& bytes) {
  auto space = buffer.prepare(bytes.size());
  ASSERT_GE(space.size(), bytes.size());
  std::memcpy(space.data(), bytes.data(), bytes.size());
  buffer.commit(bytes.size());
}

std::string contents(const ReadBuffer& buffer) {
  auto data = buffer.data();
  return {reinterpret_cast<const char*>(data.data()), data.size()};
}

TEST(ReadBufferTest, KeepsUnconsumedBytesContiguousAcrossReads) {
  ReadBuffer buffer;
  receive(buffer, "hello ");
  buffer.consume(2);
  receive(buffer, "world");
  EXPECT_EQ(contents(buffer), "llo world");
  EXPECT_EQ(buffer.size(), 9u);
}

TEST(ReadBufferTest, GrowsToHoldALargeFrame) {
  ReadBuffer buffer;
  receive(buffer, "ab");
  buffer.consume(1);
  std::string large(3 << 20, 'x');
  receive(buffer, large);
  EXPECT_EQ(contents(buffer), "b" + large);
  buffer.consume(buffer.size());
  EXPECT_EQ(buffer.size(), 0u);
  receive(buffer, "next");
  EXPECT_EQ(contents(buffer), "next");
}

}  // namespace
}  // namespace tern::net
