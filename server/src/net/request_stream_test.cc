#include "net/request_stream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "commands/dispatcher.h"
#include "commands/test_node.h"
#include "engine/engine.h"
#include "protocol/codec.h"
#include "protocol/opcode.h"
#include "protocol/status.h"

namespace tern::net {
namespace {

using protocol::Opcode;
using protocol::Status;

constexpr size_t kNoLimit = SIZE_MAX;
constexpr size_t kMaxItemSize = 100;

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::vector<uint8_t> request(Opcode opcode, const std::string& key = {},
                             const std::string& value = {}, uint32_t opaque = 0) {
  std::string extras = opcode == Opcode::Set ? std::string(8, '\0') : std::string();
  protocol::FrameParts parts;
  parts.magic = 0x80;
  parts.opcode = static_cast<uint8_t>(opcode);
  parts.opaque = opaque;
  parts.extras = bytes_of(extras);
  parts.key = bytes_of(key);
  parts.value = bytes_of(value);
  std::vector<uint8_t> out;
  protocol::append_frame(parts, out);
  return out;
}

void append(std::vector<uint8_t>& to, const std::vector<uint8_t>& bytes) {
  to.insert(to.end(), bytes.begin(), bytes.end());
}

// The responses in `out`, in order.
std::vector<protocol::Frame> responses(const std::vector<uint8_t>& out) {
  std::vector<protocol::Frame> frames;
  std::span<const uint8_t> rest(out);
  protocol::Frame frame;
  while (!rest.empty() && protocol::decode_frame(rest, frame) == protocol::DecodeResult::Ok) {
    frames.push_back(frame);
    rest = rest.subspan(frame.size());
  }
  EXPECT_TRUE(rest.empty()) << "trailing bytes in the output";
  return frames;
}

Status status_of(const protocol::Frame& frame) { return Status(frame.vbucket_or_status); }

class RequestStreamTest : public ::testing::Test {
 protected:
  std::unique_ptr<commands::Node> node_ = commands::testing::make_open_node();
  commands::Session session_{*node_};
  commands::Dispatcher dispatcher_{*node_};
  RequestStream stream_{dispatcher_, session_, kMaxItemSize, "test-peer"};
  std::vector<uint8_t> out_;
};

TEST_F(RequestStreamTest, ExecutesEveryRequestOfAPipelinedBatchIntoOneOutput) {
  std::vector<uint8_t> input;
  append(input, request(Opcode::Set, "k", "v", 1));
  for (uint32_t i = 2; i <= 10; ++i) append(input, request(Opcode::Get, "k", {}, i));
  EXPECT_EQ(stream_.consume(input, out_, kNoLimit), input.size());

  auto answers = responses(out_);
  ASSERT_EQ(answers.size(), 10u);
  for (uint32_t i = 0; i < 10; ++i) {
    EXPECT_EQ(answers[i].opaque, i + 1);
    EXPECT_EQ(status_of(answers[i]), Status::Success);
  }
  EXPECT_FALSE(stream_.closing());
}

TEST_F(RequestStreamTest, LeavesAPartialFrameAndSaysHowMuchIsMissing) {
  auto set = request(Opcode::Set, "key", "value");
  std::span<const uint8_t> all(set);
  EXPECT_EQ(stream_.bytes_wanted(all.first(10)), protocol::kHeaderSize - 10);
  EXPECT_EQ(stream_.consume(all.first(30), out_, kNoLimit), 0u);
  EXPECT_EQ(stream_.bytes_wanted(all.first(30)), set.size() - 30);
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(stream_.consume(all, out_, kNoLimit), set.size());
  EXPECT_EQ(responses(out_).size(), 1u);
}

TEST_F(RequestStreamTest, RefusesAnOversizedValueAndDiscardsItsBodyAcrossReads) {
  auto big = request(Opcode::Set, "big", std::string(kMaxItemSize + 1, 'x'), 5);
  std::span<const uint8_t> all(big);
  EXPECT_EQ(stream_.consume(all.first(40), out_, kNoLimit), 40u);
  auto refused = responses(out_);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(status_of(refused[0]), Status::E2big);
  EXPECT_EQ(refused[0].opaque, 5u);

  // The rest of the body, then a NOOP in the same read: the body is dropped, the NOOP runs.
  std::vector<uint8_t> rest(big.begin() + 40, big.end());
  append(rest, request(Opcode::Noop, {}, {}, 6));
  out_.clear();
  EXPECT_EQ(stream_.consume(rest, out_, kNoLimit), rest.size());
  auto after = responses(out_);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].opcode, static_cast<uint8_t>(Opcode::Noop));
  EXPECT_EQ(after[0].opaque, 6u);
  EXPECT_FALSE(stream_.closing());
}

TEST_F(RequestStreamTest, AcceptsAValueOfExactlyTheLimit) {
  auto fits = request(Opcode::Set, "fits", std::string(kMaxItemSize, 'x'));
  EXPECT_EQ(stream_.consume(fits, out_, kNoLimit), fits.size());
  EXPECT_EQ(status_of(responses(out_).at(0)), Status::Success);
}

TEST_F(RequestStreamTest, BadMagicClosesWithoutAnAnswer) {
  auto noop = request(Opcode::Noop);
  noop[0] = 0x42;
  EXPECT_EQ(stream_.consume(noop, out_, kNoLimit), 0u);
  EXPECT_TRUE(stream_.closing());
  EXPECT_TRUE(out_.empty());
}

TEST_F(RequestStreamTest, AResponseMagicFromTheClientCloses) {
  auto noop = request(Opcode::Noop);
  noop[0] = 0x81;
  stream_.consume(noop, out_, kNoLimit);
  EXPECT_TRUE(stream_.closing());
  EXPECT_TRUE(out_.empty());
}

TEST_F(RequestStreamTest, LengthsBeyondTheBodyAnswerEinvalAndClose) {
  auto get = request(Opcode::Get, "abc");
  get[4] = 200;  // extras length beyond the 3-byte body
  stream_.consume(get, out_, kNoLimit);
  EXPECT_TRUE(stream_.closing());
  auto answers = responses(out_);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(status_of(answers[0]), Status::Einval);
}

TEST_F(RequestStreamTest, StopsExecutingOnceTheOutputLimitIsReached) {
  std::vector<uint8_t> input;
  for (int i = 0; i < 3; ++i) append(input, request(Opcode::Noop));
  size_t first = stream_.consume(input, out_, 1);
  EXPECT_EQ(first, input.size() / 3);
  EXPECT_EQ(responses(out_).size(), 1u);
  out_.clear();
  EXPECT_EQ(stream_.consume(std::span<const uint8_t>(input).subspan(first), out_, kNoLimit),
            input.size() - first);
  EXPECT_EQ(responses(out_).size(), 2u);
}

TEST_F(RequestStreamTest, QuitAnswersAndIgnoresWhatFollows) {
  std::vector<uint8_t> input;
  append(input, request(Opcode::Quit, {}, {}, 1));
  append(input, request(Opcode::Noop, {}, {}, 2));
  stream_.consume(input, out_, kNoLimit);
  EXPECT_TRUE(stream_.closing());
  auto answers = responses(out_);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].opaque, 1u);
}

}  // namespace
}  // namespace tern::net
