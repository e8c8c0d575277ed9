// Bad input to the Couchbase commands: each case answers the right status and leaves the
// connection usable; and a randomized mix over the new opcodes never crashes and always
// gets well-formed answers.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "commands/dispatcher_harness.h"
#include "protocol/error_map.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using namespace testing;

class BadInputTest : public CommandsTest {};

TEST_F(BadInputTest, SaslStepWithoutSaslAuthIsEinval) {
  Connection& c = connect();
  c.hello({Feature::Xerror});
  expect_error(c.one({.opcode = Opcode::SaslStep, .key = "SCRAM-SHA512", .value = "c=biws"}),
               Status::Einval);
  EXPECT_EQ(c.authenticate("reader", "password").status, Status::Success);
}

TEST_F(BadInputTest, MalformedScramMessagesAreEinval) {
  Connection& c = connect();
  c.hello({Feature::Xerror});
  for (const std::string& first :
       {std::string("n,,"), std::string("p=tls-unique,,n=reader,r=abc"), std::string("n,,r=abc"),
        std::string("n,,n=reader"), std::string("n,,n=,r=abc"), std::string("y"),
        std::string("n,,n=reader,r=abc\0def", 20), std::string(200, ',')}) {
    expect_error(c.one({.opcode = Opcode::SaslAuth, .key = "SCRAM-SHA256", .value = first}),
                 Status::Einval);
  }
  for (const std::string& final :
       {std::string("c=biws"), std::string("c=biws,r=wrongnonce,p=AAAA"),
        std::string("c=biws,r=2bEDcRKfKoLVbDPtdZqXxQ,p=!!!notbase64")}) {
    auth::TestScramClient scram(auth::ScramAlgorithm::Sha256, "reader", "password");
    ASSERT_EQ(c.one({.opcode = Opcode::SaslAuth, .key = "SCRAM-SHA256", .value = scram.first()})
                  .status,
              Status::AuthContinue);
    const Response answer =
        c.one({.opcode = Opcode::SaslStep, .key = "SCRAM-SHA256", .value = final});
    EXPECT_TRUE(answer.status == Status::Einval || answer.status == Status::AuthError)
        << final << ": " << static_cast<int>(answer.status);
  }
  EXPECT_FALSE(c.session().authenticated());
  clock_.advance_seconds(60);  // past any throttle the AuthErrors above may have opened
  EXPECT_EQ(c.authenticate("reader", "password").status, Status::Success);
}

TEST_F(BadInputTest, SelectBucketWithA300ByteNameIsEinval) {
  Connection& c = connect_as("Administrator", "default");
  expect_error(c.select_bucket(std::string(300, 'x')), Status::Einval);
  EXPECT_EQ(c.set("k", "v").status, Status::Success);  // still on "default"
}

TEST_F(BadInputTest, NonCanonicalCollectionPrefixIsEinval) {
  Connection& c = connect_as("reader", "default", {Feature::Xerror, Feature::Collections});
  expect_error(c.set(std::string("\x80\x00k", 3), "v"), Status::Einval);
  expect_error(c.get(std::string("\x88\x80\x80\x80\x00k", 6)), Status::Einval);
  EXPECT_EQ(bucket("default").documents().stats().curr_items, 0u);
}

TEST_F(BadInputTest, DurabilityFrameWithABadLengthIsEinval) {
  Connection& c = connect_as("reader", "default",
                             {Feature::Xerror, Feature::AltRequestSupport,
                              Feature::SyncReplication});
  auto durable_set = [](Bytes framing) {
    return Request{.opcode = Opcode::Set, .key = "k", .value = "v",
                   .extras = storage_extras(0, 0), .framing_extras = std::move(framing)};
  };
  expect_error(c.one(durable_set({0x10})), Status::Einval);                    // no level
  expect_error(c.one(durable_set({0x12, 0x01, 0x00})), Status::Einval);        // 2 bytes
  expect_error(c.one(durable_set({0x14, 0x01, 0x00, 0x10, 0x00})), Status::Einval);  // 4
  expect_error(c.one(durable_set({0x13, 0x01, 0x00})), Status::Einval);        // truncated
  expect_error(c.one(durable_set({0x1f})), Status::Einval);                    // escape, no length
  // Well-formed: level majority, with and without a timeout.
  EXPECT_EQ(c.one(durable_set({0x11, 0x01})).status, Status::Success);
  EXPECT_EQ(c.one(durable_set({0x13, 0x01, 0x00, 0x64})).status, Status::Success);
  expect_error(c.one(durable_set({0x11, 0x00})), Status::DurabilityInvalidLevel);
  expect_error(c.one(durable_set({0x11, 0x03})), Status::DurabilityImpossible);
}

TEST_F(BadInputTest, SetClusterConfigFromANonAdminIsEaccess) {
  Connection& c = connect_as("reader", "default");
  expect_error(c.one({.opcode = Opcode::SetClusterConfig, .value = "{}"}), Status::Eaccess);
  Connection& anonymous = connect();
  anonymous.hello({Feature::Xerror});
  expect_error(anonymous.one({.opcode = Opcode::SetClusterConfig, .value = "{}"}),
               Status::Eaccess);
}

TEST_F(BadInputTest, SetClusterConfigWithInvalidJsonIsEinval) {
  Connection& admin = connect_as("Administrator", "default");
  const std::string before = bucket("default").cluster_map()->json();
  for (const std::string& bad : {std::string("{\"rev\":"), std::string("\xff\xfe"),
                                 std::string(R"({"rev":2,"vBucketServerMap":[]})")}) {
    expect_error(admin.one({.opcode = Opcode::SetClusterConfig, .value = bad}), Status::Einval);
  }
  EXPECT_EQ(bucket("default").cluster_map()->json(), before);
}

// Couchbase's opcodes (and the classic ones they interact with), with random keys, values,
// extras, vbuckets, datatypes and frame infos, from connections in every state: anonymous,
// a reader with collections on "default", an administrator. Fixed seed: reproducible.
TEST_F(BadInputTest, RandomCouchbaseRequestsAlwaysGetWellFormedAnswers) {
  std::mt19937 rng(20240817);
  // Picks are sequenced one per statement: the order in which a compiler evaluates a call's
  // arguments differs (gcc right to left, clang left to right), and so would the requests.
  auto pick = [&rng](uint32_t bound) { return static_cast<uint32_t>(rng() % bound); };
  const Opcode opcodes[] = {
      Opcode::Hello, Opcode::SaslListMechs, Opcode::SaslAuth, Opcode::SaslStep,
      Opcode::SelectBucket, Opcode::GetClusterConfig, Opcode::SetClusterConfig,
      Opcode::SetVbucket, Opcode::GetVbucket, Opcode::GetCollectionsManifest,
      Opcode::GetCollectionId, Opcode::GetScopeId, Opcode::ObserveSeqno, Opcode::GetReplica,
      Opcode::GetMeta, Opcode::GetErrorMap, Opcode::Get, Opcode::Set, Opcode::Delete,
      Opcode::Increment, Opcode::Append, Opcode::GetLocked, Opcode::Noop};
  const uint8_t extras_lengths[] = {0, 1, 4, 8, 16, 20};
  const std::vector<std::string> texts = {
      "", "default", "other", "app.users", "app", "_default._default", "SCRAM-SHA512",
      "SCRAM-SHA1", "PLAIN", "n,,n=reader,r=abc", "c=biws,r=abc,p=AAAA", "{", "{}",
      R"({"rev":9,"vBucketServerMap":{"vBucketMap":[[0]]}})", std::string("\0reader\0password", 16)};
  // A status is one ternd can send if its error map has it.
  const auto known_status = [](Status status) {
    char entry[16];
    std::snprintf(entry, sizeof entry, "\"%x\":{", static_cast<unsigned>(status));
    return protocol::error_map_json().find(entry) != std::string_view::npos;
  };

  Connection* connections[] = {&connect(), &connect_as("reader", "default"),
                               &connect_as("Administrator", "default")};
  connections[1]->hello({Feature::Xerror, Feature::Collections, Feature::Json});
  std::map<Status, int> seen;
  for (int i = 0; i < 20000; ++i) {
    Connection& c = *connections[pick(3)];
    Request r;
    r.opcode = opcodes[pick(std::size(opcodes))];
    switch (pick(4)) {
      case 0: r.key = texts[pick(texts.size())]; break;
      case 1: {
        const uint32_t collection = pick(12);
        r.key = collection_key(collection, std::string(1 + pick(8), 'k'));
        break;
      }
      case 2: {
        const uint32_t length = pick(300);
        r.key = std::string(length, static_cast<char>(pick(256)));
        break;
      }
      default: break;
    }
    switch (pick(4)) {
      case 0: r.value = texts[pick(texts.size())]; break;
      case 1: {
        const uint32_t length = pick(12);
        r.value = std::string(length, static_cast<char>(pick(256)));
        break;
      }
      default: break;
    }
    const uint8_t extras_length = extras_lengths[pick(std::size(extras_lengths))];
    r.extras = Bytes(extras_length, static_cast<uint8_t>(pick(3) == 0 ? pick(256) : pick(5)));
    r.cas = pick(4) == 0 ? pick(5) : 0;
    r.datatype = static_cast<uint8_t>(pick(8) == 0 ? pick(8) : 0);
    r.vbucket = static_cast<uint16_t>(pick(8) == 0 ? pick(0x10000) : pick(16));
    if (pick(8) == 0) {
      const uint32_t length = 1 + pick(4);
      r.framing_extras = Bytes(length, static_cast<uint8_t>(pick(256)));
    }
    r.opaque = static_cast<uint32_t>(i);
    const bool traced = c.session().features.has(Feature::Tracing);
    for (const Response& answer : c.run(r)) {
      EXPECT_EQ(answer.magic, traced ? 0x18 : 0x81);
      EXPECT_EQ(answer.opcode, static_cast<uint8_t>(r.opcode));
      EXPECT_EQ(answer.opaque, r.opaque);
      EXPECT_TRUE(known_status(answer.status)) << static_cast<int>(answer.status);
      ++seen[answer.status];
    }
    if (::testing::Test::HasFailure()) break;
  }
  // The mix reached the handlers, not only the checks in front of them. (Refusals of access are
  // rare in it: most requests come from the two connections that may send them.)
  for (Status status : {Status::Success, Status::Einval, Status::NotMyVbucket, Status::KeyEnoent}) {
    EXPECT_GT(seen[status], 5) << static_cast<int>(status);
  }
  EXPECT_GT(seen[Status::Eaccess], 0);
}

}  // namespace
}  // namespace tern::commands
