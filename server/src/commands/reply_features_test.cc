// Each feature HELLO acknowledges changes what the connection is sent or may send; these
// tests show the change for each, against a connection without the feature. (Duplex only
// matters for pushed maps, which the network layer sends: the e2e tests cover it.)
#include <gtest/gtest.h>

#include <snappy.h>

#include <string>

#include "commands/dispatcher_harness.h"
#include "commands/reply.h"
#include "protocol/server_duration.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using namespace testing;

class ReplyFeaturesTest : public CommandsTest {
 protected:
  ReplyFeaturesTest() { use_open_node(); }
};

// --- XERROR ---------------------------------------------------------------------------

TEST(ClassicStatusTest, MapsNewerStatusesDownAsCouchbaseDoes) {
  EXPECT_EQ(classic_status(Status::Locked), Status::KeyEexists);
  EXPECT_EQ(classic_status(Status::NotLocked), Status::Etmpfail);
  EXPECT_EQ(classic_status(Status::Eaccess), Status::AuthError);
  EXPECT_EQ(classic_status(Status::SyncWriteInProgress), Status::Etmpfail);
  EXPECT_EQ(classic_status(Status::SyncWriteReCommitInProgress), Status::Etmpfail);
  // Statuses with no classic counterpart are an invalid request to an old client.
  EXPECT_EQ(classic_status(Status::UnknownCollection), Status::Einval);
  EXPECT_EQ(classic_status(Status::UnknownScope), Status::Einval);
  EXPECT_EQ(classic_status(Status::DurabilityImpossible), Status::Einval);
  EXPECT_EQ(classic_status(Status::UnknownFrameInfo), Status::Einval);
}

// Couchbase sends them as they are, XERROR or not: they are older than XERROR.
TEST(ClassicStatusTest, LeavesSubdocStatusesAlone) {
  for (Status subdoc : {Status::SubdocPathEnoent, Status::SubdocMultiPathFailure,
                        Status::SubdocSuccessDeleted, Status::SubdocMultiPathFailureDeleted,
                        Status::SubdocInvalidXattrOrder}) {
    EXPECT_EQ(classic_status(subdoc), subdoc);
  }
  EXPECT_EQ(classic_status(Status::SubdocXattrUnknownVattrMacro), Status::Einval);
}

TEST(ClassicStatusTest, LeavesClassicStatusesAlone) {
  for (Status classic : {Status::Success, Status::KeyEnoent, Status::KeyEexists, Status::E2big,
                         Status::Einval, Status::NotStored, Status::DeltaBadval,
                         Status::NotMyVbucket, Status::NoBucket, Status::AuthError,
                         Status::AuthContinue, Status::Erange, Status::UnknownCommand,
                         Status::Enomem, Status::NotSupported, Status::Einternal, Status::Ebusy,
                         Status::Etmpfail}) {
    EXPECT_EQ(classic_status(classic), classic) << static_cast<int>(classic);
  }
}

TEST_F(ReplyFeaturesTest, WithoutXerrorALockedDocumentAnswersKeyEexists) {
  Connection& old_client = connect();
  old_client.hello({Feature::Json});
  Connection& new_client = connect();
  new_client.hello({Feature::Xerror});
  new_client.set("k", "v");
  ASSERT_EQ(new_client.one({.opcode = Opcode::GetLocked, .key = "k"}).status, Status::Success);
  EXPECT_EQ(new_client.set("k", "w").status, Status::Locked);
  EXPECT_EQ(old_client.set("k", "w").status, Status::KeyEexists);
  // UNLOCK of an unlocked document: NotLocked, or Etmpfail for the old client.
  new_client.set("free", "v");
  EXPECT_EQ(new_client.one({.opcode = Opcode::UnlockKey, .key = "free", .cas = 1}).status,
            Status::NotLocked);
  EXPECT_EQ(old_client.one({.opcode = Opcode::UnlockKey, .key = "free", .cas = 1}).status,
            Status::Etmpfail);
}

TEST_F(ReplyFeaturesTest, WithoutXerrorARefusedRequestAnswersAuthErrorNotEaccess) {
  use_secure_node();
  Connection& old_client = connect();
  Connection& new_client = connect();
  new_client.hello({Feature::Xerror});
  EXPECT_EQ(old_client.get("k").status, Status::AuthError);
  EXPECT_EQ(new_client.get("k").status, Status::Eaccess);
}

TEST_F(ReplyFeaturesTest, WithoutXerrorAnUnknownFrameInfoIsEinval) {
  Connection& old_client = connect();
  old_client.hello({Feature::AltRequestSupport});
  Connection& new_client = connect();
  new_client.hello({Feature::Xerror, Feature::AltRequestSupport});
  const Request unknown_frame{.opcode = Opcode::Set, .key = "k", .value = "v",
                              .extras = storage_extras(0, 0), .framing_extras = {0x61, 0x00}};
  EXPECT_EQ(new_client.one(unknown_frame).status, Status::UnknownFrameInfo);
  EXPECT_EQ(old_client.one(unknown_frame).status, Status::Einval);
}

// --- JSON -------------------------------------------------------------------------------

TEST_F(ReplyFeaturesTest, JsonKeepsTheDatatypeBitOtherwiseItIsCleared) {
  Connection& json = connect();
  json.hello({Feature::Xerror, Feature::Json});
  Connection& raw = connect();
  raw.hello({Feature::Xerror});
  ASSERT_EQ(json.set("doc", R"({"a":1})", 0, 0, kJsonDatatype).status, Status::Success);
  const Response with = json.get("doc");
  const Response without = raw.get("doc");
  EXPECT_EQ(with.datatype, kJsonDatatype);
  EXPECT_EQ(without.datatype, 0);
  EXPECT_EQ(with.value, R"({"a":1})");
  EXPECT_EQ(without.value, R"({"a":1})");
  EXPECT_EQ(with.cas, without.cas);
}

// --- DELETE's CAS ------------------------------------------------------------------------

TEST_F(ReplyFeaturesTest, DeleteAnswersTheTombstonesCasToCouchbaseClientsAndZeroToClassicOnes) {
  Connection& couchbase = connect();
  Connection& classic = connect();
  couchbase.hello({Feature::Xerror, Feature::MutationSeqno});
  const Response a = couchbase.set("a", "1");
  const Response b = classic.set("b", "1");
  const Response removed_a = couchbase.one({.opcode = Opcode::Delete, .key = "a"});
  const Response removed_b = classic.one({.opcode = Opcode::Delete, .key = "b"});
  EXPECT_EQ(removed_a.status, Status::Success);
  EXPECT_NE(removed_a.cas, 0u);
  EXPECT_NE(removed_a.cas, a.cas);
  EXPECT_EQ(removed_b.status, Status::Success);
  EXPECT_EQ(removed_b.cas, 0u);
  EXPECT_NE(b.cas, 0u);
}

// --- MutationSeqno ----------------------------------------------------------------------

TEST_F(ReplyFeaturesTest, MutationSeqnoAnswersCarryTheVbucketUuidAndASeqnoThatCountsUp) {
  Connection& c = connect();
  c.hello({Feature::Xerror, Feature::MutationSeqno});
  const uint16_t vb = 5;
  const uint64_t uuid = bucket("default").vbucket(vb)->uuid();
  auto token = [&](uint64_t seqno) { return concat({be64(uuid), be64(seqno)}); };

  const Response set = c.one({.opcode = Opcode::Set, .key = "a", .value = "1",
                              .extras = storage_extras(0, 0), .vbucket = vb});
  EXPECT_EQ(set.status, Status::Success);
  EXPECT_EQ(set.extras, token(1));
  EXPECT_NE(set.cas, 0u);
  // A quiet mutation says nothing, but its seqno is taken all the same.
  EXPECT_TRUE(c.run({.opcode = Opcode::SetQ, .key = "b", .value = "2",
                     .extras = storage_extras(0, 0), .vbucket = vb}).empty());
  EXPECT_EQ(c.one({.opcode = Opcode::Append, .key = "a", .value = "x", .vbucket = vb}).extras,
            token(3));
  const Response incr = c.one({.opcode = Opcode::Increment, .key = "n",
                               .extras = arithmetic_extras(1, 7, 0), .vbucket = vb});
  EXPECT_EQ(incr.extras, token(4));
  EXPECT_EQ(incr.value, text_of(be64(7)));
  // A failed mutation takes none.
  EXPECT_EQ(c.one({.opcode = Opcode::Add, .key = "a", .value = "1",
                   .extras = storage_extras(0, 0), .vbucket = vb}).status,
            Status::KeyEexists);
  const Response removed = c.one({.opcode = Opcode::Delete, .key = "b", .vbucket = vb});
  EXPECT_EQ(removed.extras, token(5));
  EXPECT_EQ(bucket("default").vbucket(vb)->high_seqno(), 5u);
  // Each vbucket counts its own; reads carry no token.
  EXPECT_EQ(c.one({.opcode = Opcode::Set, .key = "c", .value = "1",
                   .extras = storage_extras(0, 0), .vbucket = vb + 1}).extras,
            concat({be64(bucket("default").vbucket(vb + 1)->uuid()), be64(1)}));
  EXPECT_EQ(c.one({.opcode = Opcode::Get, .key = "a", .vbucket = vb}).extras, be32(0));
}

TEST_F(ReplyFeaturesTest, WithoutMutationSeqnoMutationsAnswerNoExtrasButStillCount) {
  Connection& c = connect();
  c.hello({Feature::Xerror});
  const Response set = c.one({.opcode = Opcode::Set, .key = "a", .value = "1",
                              .extras = storage_extras(0, 0), .vbucket = 3});
  EXPECT_EQ(set.status, Status::Success);
  EXPECT_TRUE(set.extras.empty());
  EXPECT_EQ(bucket("default").vbucket(3)->high_seqno(), 1u);
}

// --- Tracing ----------------------------------------------------------------------------

TEST_F(ReplyFeaturesTest, TracingAnswersCarryTheServerDurationFrame) {
  Connection& traced = connect();
  traced.hello({Feature::Xerror, Feature::Tracing});
  for (const Response& answer :
       {traced.one({.opcode = Opcode::Noop}), traced.set("k", "v"), traced.get("k"),
        traced.get("absent")}) {
    EXPECT_EQ(answer.magic, 0x18);
    ASSERT_EQ(answer.framing_extras.size(), 3u);
    EXPECT_EQ(answer.framing_extras[0], 0x02);  // id 0, two bytes
    // Decodes to a duration (the real clock's), not to garbage: well under a minute.
    EXPECT_LT(protocol::decode_server_duration(protocol::load_be16(&answer.framing_extras[1])),
              60'000'000u);
  }
  const Response got = traced.get("k");
  EXPECT_EQ(got.value, "v");
  EXPECT_EQ(got.extras, be32(0));

  Connection& plain = connect();
  plain.hello({Feature::Xerror});
  const Response untraced = plain.get("k");
  EXPECT_EQ(untraced.magic, 0x81);
  EXPECT_TRUE(untraced.framing_extras.empty());
}

TEST_F(ReplyFeaturesTest, TracingAppliesToRefusalsToo) {
  Connection& traced = connect();
  traced.hello({Feature::Xerror, Feature::Tracing});
  const Response unknown = traced.one({.opcode = static_cast<Opcode>(0xf0)});
  EXPECT_EQ(unknown.magic, 0x18);
  EXPECT_EQ(unknown.status, Status::UnknownCommand);
  EXPECT_EQ(unknown.value, "Unknown command");
}

// --- Snappy -----------------------------------------------------------------------------

std::string compress(const std::string& value) {
  std::string out;
  snappy::Compress(value.data(), value.size(), &out);
  return out;
}

TEST_F(ReplyFeaturesTest, WithSnappyACompressedValueIsStoredDecompressed) {
  Connection& c = connect();
  c.hello({Feature::Xerror, Feature::Json, Feature::Snappy});
  const std::string doc = R"({"text":")" + std::string(200, 'z') + R"("})";
  const std::string packed = compress(doc);
  ASSERT_LT(packed.size(), doc.size());
  EXPECT_EQ(c.set("doc", packed, 9, 0, kSnappyDatatype | kJsonDatatype).status, Status::Success);
  const Response got = c.get("doc");
  EXPECT_EQ(got.value, doc);
  EXPECT_EQ(got.datatype, kJsonDatatype);  // the Snappy bit went with the compression
  EXPECT_EQ(got.extras, be32(9));
  // A client without Snappy reads the same document.
  Connection& other = connect();
  other.hello({Feature::Xerror});
  EXPECT_EQ(other.get("doc").value, doc);
  // APPEND takes a compressed value too.
  EXPECT_EQ(c.one({.opcode = Opcode::Append, .key = "doc", .value = compress("tail"),
                   .datatype = kSnappyDatatype}).status,
            Status::Success);
  EXPECT_EQ(c.get("doc").value, doc + "tail");
}

TEST_F(ReplyFeaturesTest, WithoutSnappyTheSnappyDatatypeIsEinval) {
  Connection& c = connect();
  c.hello({Feature::Xerror});
  expect_error(c.set("doc", compress("hello hello"), 0, 0, kSnappyDatatype), Status::Einval);
  EXPECT_EQ(c.get("doc").status, Status::KeyEnoent);
}

TEST_F(ReplyFeaturesTest, SnappyThatDoesNotDecompressIsEinval) {
  Connection& c = connect();
  c.hello({Feature::Xerror, Feature::Snappy});
  std::string truncated = compress(std::string(100, 'q'));
  truncated.resize(truncated.size() - 2);
  expect_error(c.set("doc", truncated, 0, 0, kSnappyDatatype), Status::Einval);
  expect_error(c.set("doc", "\xff\xff\xff\xff\xff\xff", 0, 0, kSnappyDatatype), Status::Einval);
  // A request without a value has nothing to decompress.
  expect_error(c.one({.opcode = Opcode::Get, .key = "doc", .datatype = kSnappyDatatype}),
               Status::Einval);
  EXPECT_EQ(c.get("doc").status, Status::KeyEnoent);
}

TEST_F(ReplyFeaturesTest, SnappyValueOverTheItemSizeOnceDecompressedIsE2big) {
  connections_.clear();
  dispatcher_.reset();
  node_ = make_open_node(clock_, engine::Config{.max_item_size = 1000});
  dispatcher_ = std::make_unique<Dispatcher>(*node_);
  Connection& c = connect();
  c.hello({Feature::Xerror, Feature::Snappy});
  expect_error(c.set("doc", compress(std::string(1001, 'a')), 0, 0, kSnappyDatatype),
               Status::E2big);
  EXPECT_EQ(c.set("doc", compress(std::string(1000, 'a')), 0, 0, kSnappyDatatype).status,
            Status::Success);
}

// --- PreserveTtl ------------------------------------------------------------------------

TEST_F(ReplyFeaturesTest, PreserveTtlFrameKeepsTheDocumentsExpiry) {
  Connection& c = connect();
  c.hello({Feature::Xerror, Feature::AltRequestSupport, Feature::PreserveTtl});
  ASSERT_EQ(c.set("kept", "v1", 0, 100).status, Status::Success);
  ASSERT_EQ(c.set("reset", "v1", 0, 100).status, Status::Success);
  const Response preserved = c.one({.opcode = Opcode::Set, .key = "kept", .value = "v2",
                                    .extras = storage_extras(0, 0), .framing_extras = {0x50}});
  EXPECT_EQ(preserved.status, Status::Success);
  EXPECT_EQ(preserved.magic, 0x81);
  EXPECT_EQ(c.set("reset", "v2", 0, 0).status, Status::Success);  // expiry 0: never
  clock_.advance_seconds(101);
  EXPECT_EQ(c.get("kept").status, Status::KeyEnoent);
  EXPECT_EQ(c.get("reset").value, "v2");
}

}  // namespace
}  // namespace tern::commands
