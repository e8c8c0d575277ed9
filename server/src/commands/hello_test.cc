// HELLO: which features a connection gets, as the dispatcher answers it. What each
// acknowledged feature then changes is in reply_features_test.cc.
#include <gtest/gtest.h>

#include "commands/dispatcher_harness.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using namespace testing;

class HelloTest : public CommandsTest {};

// What the official C++ core (under the Node.js SDK) asks for, in its order.
constexpr std::initializer_list<uint16_t> kCxxCoreHello = {
    0x03, 0x04, 0x06, 0x07, 0x08, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
    0x0f, 0x10, 0x11, 0x12, 0x14, 0x15, 0x17, 0x1c, 0x1e, 0x21};

TEST_F(HelloTest, AnswersTheSupportedSubsetOfWhatTheSdkAsksInItsOrder) {
  Connection& c = connect();
  const Response answer = c.hello_codes(kCxxCoreHello);
  EXPECT_EQ(answer.magic, 0x81);
  EXPECT_EQ(answer.opcode, static_cast<uint8_t>(Opcode::Hello));
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.opaque, kOpaque);
  EXPECT_EQ(answer.datatype, 0);
  EXPECT_TRUE(answer.extras.empty() && answer.key.empty());
  // VAttr (0x15) and the codes ternd has no name for are left out; everything else, in the
  // order asked.
  EXPECT_EQ(answer.value, u16_list({0x03, 0x04, 0x06, 0x07, 0x08, 0x0a, 0x0b, 0x0c, 0x0d,
                                    0x0e, 0x0f, 0x10, 0x11, 0x12, 0x14, 0x17, 0x21}));
  for (uint16_t code : u16s_of(answer.value)) {
    EXPECT_TRUE(c.session().features.has(static_cast<Feature>(code))) << code;
  }
  EXPECT_TRUE(c.session().features.has(Feature::Xattr));
}

TEST_F(HelloTest, KeepsTheRequestOrderNotTheNumericOne) {
  EXPECT_EQ(connect().hello_codes({0x12, 0x0b, 0x07, 0x04}).value,
            u16_list({0x12, 0x0b, 0x07, 0x04}));
}

TEST_F(HelloTest, AcknowledgesEachFeatureOnceWhereItWasFirstAsked) {
  EXPECT_EQ(connect().hello_codes({0x07, 0x12, 0x07, 0x0b, 0x12, 0x07}).value,
            u16_list({0x07, 0x12, 0x0b}));
}

TEST_F(HelloTest, DropsClustermapChangeNotificationWithoutDuplex) {
  Connection& c = connect();
  EXPECT_EQ(c.hello_codes({0x0d, 0x07}).value, u16_list({0x07}));
  EXPECT_FALSE(c.session().features.has(Feature::ClustermapChangeNotification));
  // Duplex asked after it still counts: the prerequisite is about the set, not the order.
  EXPECT_EQ(c.hello_codes({0x0d, 0x0c}).value, u16_list({0x0d, 0x0c}));
  EXPECT_TRUE(c.session().features.has(Feature::ClustermapChangeNotification));
}

TEST_F(HelloTest, LeavesOutUnknownCodes) {
  Connection& c = connect();
  // 0x43 and 0x4b alias TCPNODELAY and JSON in a 64-bit set indexed modulo 64, 0x46 XATTR:
  // they must not turn those on.
  const Response answer =
      c.hello_codes({0x01, 0x02, 0x13, 0x15, 0x1e, 0x43, 0x46, 0x4b, 0xffff});
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.value, "");
  for (uint16_t code : {0x03, 0x06, 0x0b}) {
    EXPECT_FALSE(c.session().features.has(static_cast<Feature>(code))) << code;
  }
}

TEST_F(HelloTest, EmptyHelloIsASuccessWithNothingAcknowledged) {
  const Response answer = connect().hello_codes({});
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.value, "");
}

TEST_F(HelloTest, OddLengthValueIsEinvalAndChangesNothing) {
  Connection& c = connect();
  c.hello({Feature::Json});
  const Response answer =
      c.one({.opcode = Opcode::Hello, .key = "agent", .value = std::string("\x00\x07\x00", 3)});
  expect_error(answer, Status::Einval);
  EXPECT_TRUE(c.session().features.has(Feature::Json));
  EXPECT_FALSE(c.session().features.has(Feature::Xerror));
}

TEST_F(HelloTest, ASecondHelloResetsTheFeatures) {
  Connection& c = connect();
  c.hello({Feature::Xerror, Feature::Json, Feature::Collections});
  EXPECT_EQ(c.hello({Feature::Tracing}).value, u16_list({0x0f}));
  EXPECT_TRUE(c.session().features.has(Feature::Tracing));
  for (Feature gone : {Feature::Xerror, Feature::Json, Feature::Collections}) {
    EXPECT_FALSE(c.session().features.has(gone)) << feature_name(gone);
  }
  // And it shows: without XERROR again, the refusal of an unauthenticated GET is classic.
  EXPECT_EQ(c.get("k").status, Status::AuthError);
}

TEST_F(HelloTest, WorksBeforeAuthenticationAndRecordsTheAgent) {
  Connection& c = connect();
  const Response answer = c.one({.opcode = Opcode::Hello,
                                 .key = R"({"a":"cxx/1.0","i":"abc/def"})",
                                 .value = u16_list({0x07})});
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(c.session().agent, R"({"a":"cxx/1.0","i":"abc/def"})");
  EXPECT_FALSE(c.session().authenticated());
}

// memcached clients never say HELLO; on an open node they see every status until a HELLO
// says otherwise, and raw datatypes as memcached answers them: the JSON bit ternd gives JSON
// values is for clients that ask for it.
TEST_F(HelloTest, OpenNodeConnectionsStartWithXerrorButNotJsonUntilAHello) {
  use_open_node();
  Connection& c = connect();
  EXPECT_TRUE(c.session().features.has(Feature::Xerror));
  EXPECT_FALSE(c.session().features.has(Feature::Json));
  c.hello({});
  EXPECT_FALSE(c.session().features.has(Feature::Xerror));
  c.hello({Feature::Json});
  EXPECT_TRUE(c.session().features.has(Feature::Json));
}

}  // namespace
}  // namespace tern::commands
