// vbuckets at the dispatcher: which ones serve requests (NotMyVbucket with the map for the
// rest), the cluster manager's SET_VBUCKET / GET_VBUCKET, GET_REPLICA, and OBSERVE_SEQNO
// answering from the seqnos mutations count.
#include <gtest/gtest.h>

#include <string>

#include "cluster/vbucket_state.h"
#include "commands/dispatcher_harness.h"

namespace tern::commands {
namespace {

using cluster::VBucketState;
using protocol::Opcode;
using protocol::Status;
using namespace testing;

class VBucketCommandsTest : public CommandsTest {
 protected:
  VBucketCommandsTest()
      : admin_(connect_as("Administrator", "default")),
        client_(connect_as("reader", "default",
                           {Feature::Xerror, Feature::Json, Feature::MutationSeqno})) {}

  Response set_state(uint16_t vb, VBucketState state) {
    return admin_.one({.opcode = Opcode::SetVbucket,
                       .extras = {static_cast<uint8_t>(state)},
                       .vbucket = vb});
  }

  Response set_on(uint16_t vb, const std::string& key, const std::string& value = "v") {
    return client_.one({.opcode = Opcode::Set, .key = key, .value = value,
                        .extras = storage_extras(0, 0), .vbucket = vb});
  }

  Response get_on(uint16_t vb, const std::string& key) {
    return client_.one({.opcode = Opcode::Get, .key = key, .vbucket = vb});
  }

  void expect_not_my_vbucket(const Response& r, uint8_t datatype = kJsonDatatype) {
    EXPECT_EQ(r.status, Status::NotMyVbucket);
    EXPECT_EQ(r.value, bucket("default").cluster_map()->json());
    EXPECT_EQ(r.datatype, datatype);
    EXPECT_EQ(r.cas, 0u);
    EXPECT_TRUE(r.extras.empty() && r.key.empty());
  }

  Response observe(uint16_t vb, uint64_t uuid) {
    return client_.one({.opcode = Opcode::ObserveSeqno, .value = text_of(be64(uuid)),
                        .vbucket = vb});
  }

  Connection& admin_;
  Connection& client_;
};

TEST_F(VBucketCommandsTest, VbucketBeyondTheLastIsNotMyVbucketWithTheMap) {
  expect_not_my_vbucket(get_on(1024, "k"));
  expect_not_my_vbucket(set_on(0xffff, "k"));
  EXPECT_EQ(bucket("default").documents().stats().curr_items, 0u);
}

TEST_F(VBucketCommandsTest, NotMyVbucketMapIsJsonOnlyForJsonClients) {
  Connection& raw = connect_as("reader", "default", {Feature::Xerror});
  const Response answer = raw.one({.opcode = Opcode::Get, .key = "k", .vbucket = 1024});
  expect_not_my_vbucket(answer, 0);
}

TEST_F(VBucketCommandsTest, DeadReplicaAndPendingVbucketsRefuseDocumentRequests) {
  ASSERT_EQ(set_on(7, "k").status, Status::Success);
  for (VBucketState state : {VBucketState::Dead, VBucketState::Replica, VBucketState::Pending}) {
    const Response changed = set_state(7, state);
    EXPECT_EQ(changed.status, Status::Success);
    EXPECT_TRUE(changed.value.empty());
    expect_not_my_vbucket(get_on(7, "k"));
    expect_not_my_vbucket(set_on(7, "k"));
    expect_not_my_vbucket(client_.one({.opcode = Opcode::Delete, .key = "k", .vbucket = 7}));
    // Its neighbours are unaffected.
    EXPECT_EQ(get_on(8, "k").status, Status::Success);
  }
  ASSERT_EQ(set_state(7, VBucketState::Active).status, Status::Success);
  EXPECT_EQ(get_on(7, "k").value, "v");
}

TEST_F(VBucketCommandsTest, GetVbucketAnswersTheStateSetVbucketSet) {
  EXPECT_EQ(admin_.one({.opcode = Opcode::GetVbucket, .vbucket = 11}).value,
            text_of(be32(1)));
  for (VBucketState state : {VBucketState::Replica, VBucketState::Pending, VBucketState::Dead,
                             VBucketState::Active}) {
    ASSERT_EQ(set_state(11, state).status, Status::Success);
    const Response got = admin_.one({.opcode = Opcode::GetVbucket, .vbucket = 11});
    EXPECT_EQ(got.status, Status::Success);
    EXPECT_EQ(got.value, text_of(be32(static_cast<uint32_t>(state))));
  }
  expect_error(admin_.one({.opcode = Opcode::GetVbucket, .vbucket = 1024}),
               Status::NotMyVbucket);
}

// The state as 1 byte of extras (with an optional JSON value) or as 4; see
// cluster/vbucket_state.h.
TEST_F(VBucketCommandsTest, SetVbucketAcceptsTheStateInOneOrFourBytesOfExtras) {
  EXPECT_EQ(admin_.one({.opcode = Opcode::SetVbucket, .extras = be32(2), .vbucket = 12}).status,
            Status::Success);
  EXPECT_EQ(bucket("default").vbucket(12)->state(), VBucketState::Replica);
  EXPECT_EQ(admin_.one({.opcode = Opcode::SetVbucket, .value = R"({"topology":[["a"]]})",
                        .extras = {4}, .datatype = kJsonDatatype, .vbucket = 12})
                .status,
            Status::Success);
  EXPECT_EQ(bucket("default").vbucket(12)->state(), VBucketState::Dead);
}

TEST_F(VBucketCommandsTest, SetVbucketRefusesBadStatesAndVbuckets) {
  for (uint8_t bad : {0, 5, 0xff}) {
    expect_error(admin_.one({.opcode = Opcode::SetVbucket, .extras = {bad}, .vbucket = 3}),
                 Status::Einval);
  }
  expect_error(set_state(1024, VBucketState::Dead), Status::Einval);
  // A JSON value whose datatype does not say JSON.
  expect_error(admin_.one({.opcode = Opcode::SetVbucket, .value = "{}", .extras = {1},
                           .vbucket = 3}),
               Status::Einval);
  EXPECT_EQ(bucket("default").vbucket(3)->state(), VBucketState::Active);
}

TEST_F(VBucketCommandsTest, SetVbucketActsOnTheSelectedBucket) {
  // The key is always empty (cluster/vbucket_state.h): a bucket name there is refused.
  expect_error(admin_.one({.opcode = Opcode::SetVbucket, .key = "other", .extras = {4},
                           .vbucket = 5}),
               Status::Einval);
  Connection& admin_other = connect_as("Administrator", "other");
  EXPECT_EQ(admin_other.one({.opcode = Opcode::SetVbucket, .extras = {4}, .vbucket = 5}).status,
            Status::Success);
  EXPECT_EQ(bucket("other").vbucket(5)->state(), VBucketState::Dead);
  EXPECT_EQ(bucket("default").vbucket(5)->state(), VBucketState::Active);
  // An administrator with no bucket selected has none to set.
  Connection& admin_none = connect_as("Administrator", "");
  expect_error(admin_none.one({.opcode = Opcode::SetVbucket, .extras = {4}, .vbucket = 5}),
               Status::NoBucket);
}

// Becoming active again starts a new history: clients holding the old uuid learn of it.
TEST_F(VBucketCommandsTest, ReactivatedVbucketHasANewUuidAndKeepsCounting) {
  const Response first = set_on(9, "a");
  ASSERT_EQ(first.extras.size(), 16u);
  const uint64_t old_uuid = protocol::load_be64(first.extras.data());
  set_state(9, VBucketState::Dead);
  set_state(9, VBucketState::Active);
  const Response second = set_on(9, "b");
  ASSERT_EQ(second.extras.size(), 16u);
  EXPECT_NE(protocol::load_be64(second.extras.data()), old_uuid);
  EXPECT_EQ(protocol::load_be64(second.extras.data() + 8), 2u);
}

TEST_F(VBucketCommandsTest, GetReplicaOnAnActiveVbucketIsNotMyVbucket) {
  ASSERT_EQ(set_on(4, "k").status, Status::Success);
  expect_not_my_vbucket(client_.one({.opcode = Opcode::GetReplica, .key = "k", .vbucket = 4}));
}

TEST_F(VBucketCommandsTest, GetReplicaOnAReplicaVbucketReadsTheDocument) {
  ASSERT_EQ(set_on(4, "k", "copy").status, Status::Success);
  ASSERT_EQ(set_state(4, VBucketState::Replica).status, Status::Success);
  const Response replica = client_.one({.opcode = Opcode::GetReplica, .key = "k", .vbucket = 4});
  EXPECT_EQ(replica.status, Status::Success);
  EXPECT_EQ(replica.value, "copy");
  EXPECT_EQ(replica.extras, be32(0));
  EXPECT_EQ(client_.one({.opcode = Opcode::GetReplica, .key = "absent", .vbucket = 4}).status,
            Status::KeyEnoent);
  // A dead vbucket is neither.
  ASSERT_EQ(set_state(4, VBucketState::Dead).status, Status::Success);
  expect_not_my_vbucket(client_.one({.opcode = Opcode::GetReplica, .key = "k", .vbucket = 4}));
}

TEST_F(VBucketCommandsTest, ObserveSeqnoWithTheCurrentUuidAnswersFormatZero) {
  for (int i = 0; i < 3; ++i) ASSERT_EQ(set_on(20, "k" + std::to_string(i)).status, Status::Success);
  ASSERT_EQ(set_on(21, "elsewhere").status, Status::Success);
  const uint64_t uuid = bucket("default").vbucket(20)->uuid();
  const Response answer = observe(20, uuid);
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.value,
            text_of(concat({{0x00}, be16(20), be64(uuid), be64(3), be64(3)})));
  EXPECT_TRUE(answer.extras.empty());
}

TEST_F(VBucketCommandsTest, ObserveSeqnoWithAStaleUuidAnswersFormatOne) {
  ASSERT_EQ(set_on(20, "k").status, Status::Success);
  const uint64_t uuid = bucket("default").vbucket(20)->uuid();
  const uint64_t stale = uuid ^ 0x5555;
  const Response answer = observe(20, stale);
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.value, text_of(concat({{0x01}, be16(20), be64(uuid), be64(1), be64(1),
                                          be64(stale), be64(0)})));
}

TEST_F(VBucketCommandsTest, ObserveSeqnoRefusesBadValuesAndOtherVbuckets) {
  const uint64_t uuid = bucket("default").vbucket(20)->uuid();
  for (const std::string& bad : {std::string(), std::string(7, 'x'), std::string(9, 'x')}) {
    expect_error(client_.one({.opcode = Opcode::ObserveSeqno, .value = bad, .vbucket = 20}),
                 Status::Einval);
  }
  expect_not_my_vbucket(observe(1024, uuid));
  ASSERT_EQ(set_state(20, VBucketState::Dead).status, Status::Success);
  expect_not_my_vbucket(observe(20, uuid));
  // A replica answers: observing is what a replica read follows up with.
  ASSERT_EQ(set_state(20, VBucketState::Replica).status, Status::Success);
  EXPECT_EQ(observe(20, bucket("default").vbucket(20)->uuid()).status, Status::Success);
}

}  // namespace
}  // namespace tern::commands
