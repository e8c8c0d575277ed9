// One test per HELLO feature ternd acknowledges, against a real ternd started from the
// development configuration: each compares, on the wire, a connection that negotiated the
// feature with one that did not. (Duplex and ClustermapChangeNotification are in
// cluster_push_test.cc.)

#include <gtest/gtest.h>
#include <snappy.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <set>
#include <thread>
#include <tuple>

#include "couchbase_session.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

using namespace std::chrono_literals;

constexpr uint8_t kAltResponseMagic = 0x18;
constexpr uint8_t kResponseMagic = 0x81;

bool acknowledged(const std::vector<uint16_t>& answer, uint16_t feature) {
  return std::find(answer.begin(), answer.end(), feature) != answer.end();
}

class HelloFeaturesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = std::make_unique<TerndProcess>(dev_config_args()); }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override { ASSERT_NE(server_->port(), 0); }

  // A connection logged in as the administrator on bucket "default" with `features`, each
  // of which must be acknowledged.
  std::unique_ptr<CouchbaseSession> open(const std::vector<uint16_t>& features) {
    auto session = std::make_unique<CouchbaseSession>(server_->port());
    EXPECT_TRUE(session->connected());
    const auto answer = session->open(features);
    for (uint16_t feature : features) {
      EXPECT_TRUE(acknowledged(answer, feature)) << "feature 0x" << std::hex << feature;
    }
    return session;
  }

  static std::unique_ptr<TerndProcess> server_;
};

std::unique_ptr<TerndProcess> HelloFeaturesTest::server_;

TEST_F(HelloFeaturesTest, HelloAcknowledgesOnlyWhatItImplementsEachOnceInOrder) {
  CouchbaseSession session(server_->port());
  // An unassigned code (0x7777) is refused by leaving it out.
  const auto answer = session.hello({kXerror, kXattr, 0x7777, kJson, kXerror, kCollections});
  EXPECT_EQ(answer, (std::vector<uint16_t>{kXerror, kXattr, kJson, kCollections}));
  // ClustermapChangeNotification needs Duplex.
  EXPECT_EQ(session.hello({kClustermapChangeNotification}), std::vector<uint16_t>{});
  EXPECT_EQ(session.hello({kDuplex, kClustermapChangeNotification}),
            (std::vector<uint16_t>{kDuplex, kClustermapChangeNotification}));
}

// Nagle's algorithm only delays small writes while an earlier segment is unacknowledged, so
// whether it was off shows only in timings that depend on the kernel's delayed ACKs and on
// the machine's load: nothing a test can observe reliably. ternd turns TCP_NODELAY on for
// every connection anyway. So: acknowledged, and the connection works with it.
TEST_F(HelloFeaturesTest, TcpNodelayIsAcknowledgedAndTheConnectionWorks) {
  auto with = open({kTcpNodelay});
  EXPECT_EQ(with->call(store(Opcode::Set, "nodelay", "v")).status, Status::Success);
  EXPECT_EQ(with->call(simple(Opcode::Get, "nodelay")).value, "v");
  EXPECT_EQ(with->call(simple(Opcode::Noop)).status, Status::Success);

  CouchbaseSession without(server_->port());
  EXPECT_FALSE(acknowledged(without.hello({kXerror}), kTcpNodelay));
}

TEST_F(HelloFeaturesTest, MutationSeqnoAddsVbucketUuidAndGrowingSeqnoToMutations) {
  auto with = open({kMutationSeqno});
  auto without = open({});

  Response first = with->call(store(Opcode::Set, "seqno", "1"));
  ASSERT_EQ(first.status, Status::Success);
  ASSERT_EQ(first.extras.size(), 16u);
  const uint64_t uuid = read_be64(first.extras);
  uint64_t seqno = read_be64(first.extras, 8);
  EXPECT_GT(seqno, 0u);

  Response second = with->call(store(Opcode::Set, "seqno", "2"));
  ASSERT_EQ(second.extras.size(), 16u);
  EXPECT_EQ(read_be64(second.extras), uuid) << "same vbucket, same uuid";
  EXPECT_GT(read_be64(second.extras, 8), seqno);
  seqno = read_be64(second.extras, 8);

  // One key throughout: dev.toml's bucket is persistent, and a persistent bucket numbers a
  // key's mutations on the vbucket the key hashes to (this client sends all on vbucket 0).
  Response counted = with->call(arithmetic(Opcode::Increment, "seqno", 1, 5));
  ASSERT_EQ(counted.status, Status::Success);
  ASSERT_EQ(counted.extras.size(), 16u);
  EXPECT_EQ(read_be64(counted.value), 3u) << "the value is still the counter";
  EXPECT_EQ(read_be64(counted.extras), uuid);
  EXPECT_GT(read_be64(counted.extras, 8), seqno);
  seqno = read_be64(counted.extras, 8);

  Response deleted = with->call(simple(Opcode::Delete, "seqno"));
  ASSERT_EQ(deleted.status, Status::Success);
  ASSERT_EQ(deleted.extras.size(), 16u);
  EXPECT_EQ(read_be64(deleted.extras), uuid);
  EXPECT_GT(read_be64(deleted.extras, 8), seqno);

  // Without the feature: the classic answers, no extras on mutations.
  Response plain_set = without->call(store(Opcode::Set, "seqno", "3"));
  ASSERT_EQ(plain_set.status, Status::Success);
  EXPECT_TRUE(plain_set.extras.empty());
  Response plain_incr = without->call(arithmetic(Opcode::Increment, "seqno", 1, 0));
  ASSERT_EQ(plain_incr.status, Status::Success);
  EXPECT_TRUE(plain_incr.extras.empty());
  EXPECT_EQ(read_be64(plain_incr.value), 4u);
  Response plain_delete = without->call(simple(Opcode::Delete, "seqno"));
  ASSERT_EQ(plain_delete.status, Status::Success);
  EXPECT_TRUE(plain_delete.extras.empty());

  // The other connection's mutations counted too: the seqno kept growing.
  Response later = with->call(store(Opcode::Set, "seqno", "4"));
  ASSERT_EQ(later.extras.size(), 16u);
  EXPECT_GT(read_be64(later.extras, 8), read_be64(deleted.extras, 8) + 2);
}

// A multi-lookup as the official SDKs send a get with expiry: $document.exptime and
// $document.flags (XATTR paths), then the whole body.
Request get_with_expiry(const std::string& key) {
  std::string specs;
  for (const auto& [op, flags, path] : std::vector<std::tuple<uint8_t, uint8_t, std::string>>{
           {0xc5, 0x04, "$document.exptime"}, {0xc5, 0x04, "$document.flags"}, {0x00, 0, ""}}) {
    specs += static_cast<char>(op);
    specs += static_cast<char>(flags);
    specs += static_cast<char>(path.size() >> 8);
    specs += static_cast<char>(path.size() & 0xff);
    specs += path;
  }
  return simple(Opcode::SubdocMultiLookup, key, specs);
}

TEST_F(HelloFeaturesTest, XattrLetsSubDocumentPathsAddressExtendedAttributes) {
  auto with = open({kXerror, kXattr, kJson});
  auto without = open({kXerror, kJson});
  ASSERT_EQ(with->call(store(Opcode::Set, "xattr-doc", R"({"a":1})", 0x2a)).status,
            Status::Success);

  const Response answer = with->call(get_with_expiry("xattr-doc"));
  ASSERT_EQ(answer.status, Status::Success);
  // Per spec: status u16, length u32, value.
  std::string expected;
  for (const std::string value : {"0", "42", R"({"a":1})"}) {
    expected += std::string(2, '\0') + be32(static_cast<uint32_t>(value.size())) + value;
  }
  EXPECT_EQ(answer.value, expected);

  // Without the feature a client may not name an XATTR path.
  EXPECT_EQ(without->call(get_with_expiry("xattr-doc")).status, Status::NotSupported);
}

TEST_F(HelloFeaturesTest, XerrorSendsLockedWhereClassicClientsGetKeyExists) {
  auto with = open({kXerror});
  auto without = open({});
  ASSERT_EQ(with->call(store(Opcode::Set, "xerror-locked", "v")).status, Status::Success);
  // Locked for far longer than the test takes, even on a busy machine; unlocked at the end.
  Response locked = with->call(with_time(Opcode::GetLocked, "xerror-locked", 30));
  ASSERT_EQ(locked.status, Status::Success);

  EXPECT_EQ(with->call(store(Opcode::Set, "xerror-locked", "w")).status, Status::Locked);
  EXPECT_EQ(without->call(store(Opcode::Set, "xerror-locked", "w")).status, Status::KeyEexists);

  Request unlock = simple(Opcode::UnlockKey, "xerror-locked");
  unlock.cas = locked.cas;
  EXPECT_EQ(with->call(unlock).status, Status::Success);
  EXPECT_EQ(without->call(store(Opcode::Set, "xerror-locked", "w")).status, Status::Success);
}

TEST_F(HelloFeaturesTest, SelectBucketIsAcknowledgedAndSelectingWorks) {
  CouchbaseSession session(server_->port());
  EXPECT_TRUE(acknowledged(session.hello({kSelectBucket, kXerror}), kSelectBucket));
  ASSERT_EQ(session.login(), Status::Success);
  EXPECT_EQ(session.call(simple(Opcode::Get, "select-bucket")).status, Status::NoBucket);
  EXPECT_EQ(session.select_bucket("no-such-bucket"), Status::Eaccess);
  ASSERT_EQ(session.select_bucket(kDefaultBucket), Status::Success);
  EXPECT_EQ(session.call(store(Opcode::Set, "select-bucket", "v")).status, Status::Success);
  EXPECT_EQ(session.call(simple(Opcode::Get, "select-bucket")).value, "v");
}

TEST_F(HelloFeaturesTest, JsonKeepsTheJsonDatatypeOnlyWhenNegotiated) {
  auto with = open({kJson});
  auto without = open({});
  Request json = store(Opcode::Set, "json-doc", R"({"name":"tern"})");
  json.datatype = kDatatypeJson;
  ASSERT_EQ(with->call(json).status, Status::Success);

  Response typed = with->call(simple(Opcode::Get, "json-doc"));
  ASSERT_EQ(typed.status, Status::Success);
  EXPECT_EQ(typed.datatype & kDatatypeJson, kDatatypeJson);
  EXPECT_EQ(typed.value, R"({"name":"tern"})");

  Response raw = without->call(simple(Opcode::Get, "json-doc"));
  ASSERT_EQ(raw.status, Status::Success);
  EXPECT_EQ(raw.datatype, 0);
  EXPECT_EQ(raw.value, R"({"name":"tern"})");
}

// Note: ternd also accepts alt requests, durability and preserve-TTL frames on a connection
// that did not negotiate AltRequestSupport, SyncReplication or PreserveTtl (it is lenient, as
// its dispatcher tests expect), so the "without" side compared here is XERROR's mapping.
// Here: the frames are parsed. What each durability level waits for is in
// durability_levels_test.cc, against a ternd whose disk the test holds.
TEST_F(HelloFeaturesTest, AltRequestsCarryDurabilityRequirements) {
  auto with = open({kXerror, kAltRequestSupport, kSyncReplication});
  // Majority with and without a timeout (1000 ms), answered without framing extras.
  Response majority = with->call(alt(store(Opcode::Set, "durable", "v"), "\x11\x01"));
  EXPECT_EQ(majority.status, Status::Success);
  EXPECT_EQ(majority.magic, kResponseMagic);
  EXPECT_EQ(with->call(simple(Opcode::Get, "durable")).value, "v");
  EXPECT_EQ(with->call(alt(store(Opcode::Set, "durable", "w"), durability_frame(kLevelMajority, 1000)))
                .status,
            Status::Success);
  EXPECT_EQ(with->call(simple(Opcode::Get, "durable")).value, "w");

  // A durability frame of a bad length, and an unknown frame id: errors, not crashes.
  EXPECT_EQ(with->call(alt(store(Opcode::Set, "not-durable", "v"), std::string("\x12\x01\x00", 3)))
                .status,
            Status::Einval);
  EXPECT_EQ(with->call(alt(store(Opcode::Set, "not-durable", "v"), std::string("\x61\x00", 2)))
                .status,
            Status::UnknownFrameInfo);
  EXPECT_EQ(with->call(simple(Opcode::Noop)).status, Status::Success);

  // Without XERROR a refusal (an invalid level) is mapped down to a classic status.
  auto classic = open({kAltRequestSupport, kSyncReplication});
  EXPECT_EQ(classic->call(alt(store(Opcode::Set, "not-durable", "v"), "\x11\x09")).status,
            Status::Einval);
}

TEST_F(HelloFeaturesTest, CollectionsPrefixKeysWithTheCollectionId) {
  auto with = open({kXerror, kCollections});
  auto without = open({kXerror});
  ASSERT_EQ(with->call(store(Opcode::Set, in_collection(kUsersCollection, "doc"), "users"))
                .status,
            Status::Success);
  ASSERT_EQ(with->call(store(Opcode::Set, in_collection(0, "doc"), "default")).status,
            Status::Success);

  EXPECT_EQ(with->call(simple(Opcode::Get, in_collection(kUsersCollection, "doc"))).value,
            "users");
  EXPECT_EQ(with->call(simple(Opcode::Get, in_collection(0, "doc"))).value, "default");
  // app.orders (9) exists but holds no "doc".
  EXPECT_EQ(with->call(simple(Opcode::Get, in_collection(9, "doc"))).status, Status::KeyEnoent);

  // Without Collections a key has no prefix: "doc" is the default collection's document, and
  // the bytes of the prefixed key name another document altogether.
  EXPECT_EQ(without->call(simple(Opcode::Get, "doc")).value, "default");
  EXPECT_EQ(without->call(simple(Opcode::Get, in_collection(kUsersCollection, "doc"))).status,
            Status::KeyEnoent);

  Response unknown = with->call(simple(Opcode::Get, in_collection(0x55, "doc")));
  EXPECT_EQ(unknown.status, Status::UnknownCollection);
  EXPECT_NE(unknown.value.find("manifest_uid"), std::string::npos) << unknown.value;

  Response id = with->call(simple(Opcode::GetCollectionId, "", "app.users"));
  ASSERT_EQ(id.status, Status::Success);
  ASSERT_EQ(id.extras.size(), 12u);
  EXPECT_EQ(read_be32(id.extras, 8), kUsersCollection);

  // A prefix that is not canonical LEB128 (0 written in two bytes) is refused.
  EXPECT_EQ(with->call(simple(Opcode::Get, std::string("\x80\x00", 2) + "doc")).status,
            Status::Einval);
}

TEST_F(HelloFeaturesTest, TracingAddsTheServerDurationFrameToEveryAnswer) {
  auto with = open({kTracing});
  auto without = open({});
  for (const Request& request : {simple(Opcode::Noop), simple(Opcode::Get, "traced-missing"),
                                 store(Opcode::Set, "traced", "v")}) {
    Response traced = with->call(request);
    EXPECT_EQ(traced.magic, kAltResponseMagic);
    ASSERT_EQ(traced.framing_extras.size(), 3u);
    EXPECT_EQ(static_cast<uint8_t>(traced.framing_extras[0]), 0x02) << "id 0, two bytes";
    const auto encoded = static_cast<uint16_t>(
        (static_cast<uint8_t>(traced.framing_extras[1]) << 8) |
        static_cast<uint8_t>(traced.framing_extras[2]));
    const double micros = std::pow(encoded, 1.74) / 2;
    EXPECT_LT(micros, 30e6) << "a generous bound: the request took under 30 s";

    Response plain = without->call(request);
    EXPECT_EQ(plain.magic, kResponseMagic);
    EXPECT_TRUE(plain.framing_extras.empty());
    EXPECT_EQ(plain.status, traced.status);
  }
}

TEST_F(HelloFeaturesTest, UnorderedExecutionStillAnswersEveryPipelinedRequest) {
  auto with = open({kUnorderedExecution});
  constexpr uint32_t kRequests = 200;
  std::vector<uint8_t> batch;
  for (uint32_t i = 0; i < kRequests; ++i) {
    Request request = i % 2 == 0 ? store(Opcode::Set, "unordered-" + std::to_string(i), "v")
                                 : simple(Opcode::Noop);
    request.opaque = i;
    auto bytes = request.encode();
    batch.insert(batch.end(), bytes.begin(), bytes.end());
  }
  ASSERT_TRUE(with->client().send_bytes(batch));
  std::set<uint32_t> answered;
  for (uint32_t i = 0; i < kRequests; ++i) {
    auto response = with->receive();
    ASSERT_TRUE(response) << "answer " << i << " missing";
    EXPECT_EQ(response->status, Status::Success);
    EXPECT_TRUE(answered.insert(response->opaque).second) << "opaque answered twice";
  }
  EXPECT_EQ(answered.size(), kRequests);
  EXPECT_EQ(*answered.rbegin(), kRequests - 1);
  EXPECT_EQ(with->call(simple(Opcode::Get, "unordered-198")).value, "v");
}

// The preserve-TTL frame (id 5, no data) keeps a live document's expiry through a SET.
// Observed by expiry itself, with no timing window: a sentinel stored after both documents
// with the same expiry expires last, so once it has gone the kept document must have gone
// too, and the one overwritten without the frame (expiry 0) must still be there.
// The documents must still be live when the SETs and reads below reach them: a round in
// which the machine stalled for the whole expiry proves nothing, so it is measured (the
// server's interval lies within the client's) and, if that long, run again on new keys.
TEST_F(HelloFeaturesTest, PreserveTtlKeepsTheExpiryThroughAnAltSet) {
  auto with = open({kXerror, kAltRequestSupport, kPreserveTtl});
  constexpr uint32_t kExpiry = 2;  // seconds
  std::string kept, dropped, sentinel;
  Response kept_read, meta, dropped_meta;
  for (int round = 0;; ++round) {
    ASSERT_LT(round, 10) << "every round took longer than the " << kExpiry << " s expiry";
    const std::string suffix = "-" + std::to_string(round);
    kept = "ttl-kept" + suffix;
    dropped = "ttl-dropped" + suffix;
    sentinel = "ttl-sentinel" + suffix;
    const auto started = std::chrono::steady_clock::now();
    ASSERT_EQ(with->call(store(Opcode::Set, kept, "first", 0, kExpiry)).status, Status::Success);
    ASSERT_EQ(with->call(store(Opcode::Set, dropped, "first", 0, kExpiry)).status,
              Status::Success);
    ASSERT_EQ(with->call(alt(store(Opcode::Set, kept, "second"), "\x50")).status,
              Status::Success);
    ASSERT_EQ(with->call(store(Opcode::Set, dropped, "second")).status, Status::Success);
    ASSERT_EQ(with->call(store(Opcode::Set, sentinel, "v", 0, kExpiry)).status,
              Status::Success);
    kept_read = with->call(simple(Opcode::Get, kept));
    // GET_META reports the expiry directly (extras: deleted u32, flags u32, expiry u32,
    // seqno u64).
    meta = with->call(simple(Opcode::GetMeta, kept));
    dropped_meta = with->call(simple(Opcode::GetMeta, dropped));
    if (std::chrono::steady_clock::now() - started < std::chrono::seconds(kExpiry)) break;
  }
  EXPECT_EQ(kept_read.value, "second");
  ASSERT_EQ(meta.status, Status::Success) << "GET_META of the kept document";
  ASSERT_GE(meta.extras.size(), 12u);
  EXPECT_NE(read_be32(meta.extras, 8), 0u) << "the kept document still expires";
  ASSERT_EQ(dropped_meta.status, Status::Success) << "GET_META of the overwritten document";
  ASSERT_GE(dropped_meta.extras.size(), 12u);
  EXPECT_EQ(read_be32(dropped_meta.extras, 8), 0u) << "a SET without the frame cleared it";

  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (with->call(simple(Opcode::Get, sentinel)).status == Status::Success) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the sentinel never expired";
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(with->call(simple(Opcode::Get, kept)).status, Status::KeyEnoent);
  EXPECT_EQ(with->call(simple(Opcode::Get, dropped)).value, "second");
}

TEST_F(HelloFeaturesTest, SnappyValuesAreAcceptedOnlyWhenNegotiated) {
  auto with = open({kXerror, kSnappy});
  auto without = open({kXerror});
  std::string original;
  for (int i = 0; i < 100; ++i) original += "a value that compresses well; ";
  std::string compressed;
  snappy::Compress(original.data(), original.size(), &compressed);
  ASSERT_LT(compressed.size(), original.size());

  Request set = store(Opcode::Set, "snappy", compressed);
  set.datatype = kDatatypeSnappy;
  EXPECT_EQ(without->call(set).status, Status::Einval);
  EXPECT_EQ(without->call(simple(Opcode::Get, "snappy")).status, Status::KeyEnoent);
  ASSERT_EQ(with->call(set).status, Status::Success);

  // A client without Snappy reads it uncompressed.
  Response plain = without->call(simple(Opcode::Get, "snappy"));
  ASSERT_EQ(plain.status, Status::Success);
  EXPECT_EQ(plain.datatype & kDatatypeSnappy, 0);
  EXPECT_EQ(plain.value, original);

  // The server may answer a Snappy client compressed; either way it reads the same.
  Response got = with->call(simple(Opcode::Get, "snappy"));
  ASSERT_EQ(got.status, Status::Success);
  std::string value = got.value;
  if (got.datatype & kDatatypeSnappy) {
    ASSERT_TRUE(snappy::Uncompress(got.value.data(), got.value.size(), &value));
  }
  EXPECT_EQ(value, original);

  // A value that claims to be Snappy but is not answers Einval, and the connection goes on.
  Request bogus = store(Opcode::Set, "snappy-bogus", "\xff\xff\xff\xff\xff not snappy");
  bogus.datatype = kDatatypeSnappy;
  EXPECT_EQ(with->call(bogus).status, Status::Einval);
  EXPECT_EQ(with->call(simple(Opcode::Noop)).status, Status::Success);
}

}  // namespace
}  // namespace tern::e2e
