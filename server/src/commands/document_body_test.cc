// What the whole-document commands make of a document's XATTRs and datatype, as Couchbase
// does: plain reads answer only the body; APPEND, PREPEND and INCREMENT change only the
// body; a stored body that is JSON gets the JSON bit. And each mutation's token carries the
// seqno the engine numbered it with.
#include <gtest/gtest.h>

#include <snappy.h>

#include <string>
#include <vector>

#include "commands/dispatcher_harness.h"
#include "engine/engine.h"
#include "xattr/blob.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using namespace testing;

constexpr uint8_t kXattrDatatype = 0x04;

std::string section_of(std::vector<xattr::Attribute> attributes) {
  std::string out;
  xattr::append_section(attributes, out);
  return out;
}

const std::string kXattrs = section_of({{"meta", R"({"by":"me"})"}, {"_sync", "1"}});

class DocumentBodyTest : public CommandsTest {
 protected:
  DocumentBodyTest() : json_(open_connection()), raw_(connect()) {
    EXPECT_EQ(json_.hello({Feature::Xerror, Feature::Json, Feature::MutationSeqno,
                           Feature::Snappy}).status,
              Status::Success);
    EXPECT_EQ(raw_.hello({Feature::Xerror}).status, Status::Success);
  }

  Connection& open_connection() {
    use_open_node();
    return connect();
  }

  engine::Engine& documents() { return bucket("default").documents(); }

  // Stores `body` behind kXattrs straight into the engine (the datatype the wire would
  // need the Xattr feature for).
  void store_with_xattrs(const std::string& key, const std::string& body, uint8_t datatype) {
    ASSERT_EQ(documents()
                  .store(engine::StoreMode::Set, key, kXattrs + body, 7, 0, datatype, 0)
                  .status,
              engine::Status::Success);
  }

  // The key's stored value and datatype, XATTRs included.
  engine::ItemPtr stored(const std::string& key) {
    return documents().get_document(key, true).item;
  }

  Connection& json_;  // negotiated JSON, as every Couchbase SDK does
  Connection& raw_;   // did not
};

// --- Plain reads answer the body ------------------------------------------------------

TEST_F(DocumentBodyTest, EveryPlainReadAnswersTheBodyWithoutTheXattrBit) {
  store_with_xattrs("k", R"({"a":1})", kXattrDatatype | kJsonDatatype);
  const Response get = json_.get("k");
  EXPECT_EQ(get.value, R"({"a":1})");
  EXPECT_EQ(get.datatype, kJsonDatatype);
  EXPECT_EQ(get.extras, be32(7));
  const Response getk = json_.one({.opcode = Opcode::GetK, .key = "k"});
  EXPECT_EQ(getk.value, R"({"a":1})");
  EXPECT_EQ(getk.key, "k");
  const Response gat = json_.one({.opcode = Opcode::Gat, .key = "k", .extras = be32(100)});
  EXPECT_EQ(gat.value, R"({"a":1})");
  EXPECT_EQ(gat.datatype, kJsonDatatype);
  const Response locked = json_.one({.opcode = Opcode::GetLocked, .key = "k"});
  EXPECT_EQ(locked.value, R"({"a":1})");
  EXPECT_EQ(locked.datatype, kJsonDatatype);
  EXPECT_EQ(raw_.get("k").datatype, 0) << "a client without JSON never sees the bit";
  EXPECT_EQ(stored("k")->value(), kXattrs + R"({"a":1})") << "reads changed nothing";
}

TEST_F(DocumentBodyTest, GetReplicaAnswersTheBodyToo) {
  const uint16_t vb = 9;
  store_with_xattrs("k", "raw body", kXattrDatatype);
  ASSERT_TRUE(bucket("default").set_vbucket_state(vb, cluster::VBucketState::Replica));
  const Response replica = json_.one({.opcode = Opcode::GetReplica, .key = "k", .vbucket = vb});
  ASSERT_EQ(replica.status, Status::Success);
  EXPECT_EQ(replica.value, "raw body");
  EXPECT_EQ(replica.datatype, 0);
}

TEST_F(DocumentBodyTest, ADocumentWhoseXattrsAreAllItHasReadsAsAnEmptyBody) {
  store_with_xattrs("k", "", kXattrDatatype);
  const Response get = json_.get("k");
  EXPECT_EQ(get.status, Status::Success);
  EXPECT_EQ(get.value, "");
  EXPECT_EQ(get.datatype, 0);
}

// --- Mutations of the body keep the XATTRs ----------------------------------------------

TEST_F(DocumentBodyTest, AppendAndPrependChangeOnlyTheBody) {
  store_with_xattrs("k", "[2", kXattrDatatype);
  EXPECT_EQ(json_.one({.opcode = Opcode::Append, .key = "k", .value = "]"}).status,
            Status::Success);
  EXPECT_EQ(json_.one({.opcode = Opcode::Prepend, .key = "k", .value = "[1,"}).status,
            Status::Success);
  EXPECT_EQ(stored("k")->value(), kXattrs + "[1,[2]");
  const Response get = json_.get("k");
  EXPECT_EQ(get.value, "[1,[2]");
  EXPECT_EQ(get.datatype, 0) << "[1,[2] is not JSON";
  EXPECT_EQ(stored("k")->datatype, kXattrDatatype);
}

TEST_F(DocumentBodyTest, IncrementCountsTheBodyAndKeepsTheXattrs) {
  store_with_xattrs("n", "41", kXattrDatatype | kJsonDatatype);
  const Response incr = json_.one({.opcode = Opcode::Increment, .key = "n",
                                   .extras = arithmetic_extras(1, 0, 0)});
  ASSERT_EQ(incr.status, Status::Success);
  EXPECT_EQ(incr.value, text_of(be64(42)));
  EXPECT_EQ(stored("n")->value(), kXattrs + "42");
  EXPECT_EQ(json_.get("n").value, "42");
}

TEST_F(DocumentBodyTest, DeleteLeavesOnlyTheSystemXattrs) {
  store_with_xattrs("k", "{}", kXattrDatatype | kJsonDatatype);
  ASSERT_EQ(json_.one({.opcode = Opcode::Delete, .key = "k"}).status, Status::Success);
  const engine::ItemPtr tombstone = stored("k");
  ASSERT_TRUE(tombstone->deleted);
  EXPECT_EQ(tombstone->value(), section_of({{"_sync", "1"}}));
  EXPECT_EQ(json_.get("k").status, Status::KeyEnoent);
}

TEST_F(DocumentBodyTest, AppendOfAnXattrSectionIsRefused) {
  json_.set("k", "v");
  expect_error(json_.one({.opcode = Opcode::Append, .key = "k", .value = kXattrs,
                          .datatype = kXattrDatatype}),
               Status::Einval);
}

// --- The JSON bit ------------------------------------------------------------------------

TEST_F(DocumentBodyTest, AStoredJsonBodyGetsTheJsonBit) {
  for (Opcode op : {Opcode::Set, Opcode::Add, Opcode::Replace}) {
    const std::string key = "k" + std::to_string(static_cast<int>(op));
    if (op == Opcode::Replace) json_.set(key, "old");
    ASSERT_EQ(json_.one({.opcode = op, .key = key, .value = R"({"a":[1,2]})",
                         .extras = storage_extras(0, 0)}).status,
              Status::Success);
    EXPECT_EQ(json_.get(key).datatype, kJsonDatatype) << protocol::opcode_name(op);
    EXPECT_EQ(stored(key)->datatype, kJsonDatatype);
  }
}

TEST_F(DocumentBodyTest, AnythingElseIsStoredRaw) {
  for (const char* value : {"hello", "{\"a\":", "", "1 2", "\xff"}) {
    json_.set("k", value);
    EXPECT_EQ(stored("k")->datatype, 0) << value;
    EXPECT_EQ(json_.get("k").datatype, 0) << value;
  }
}

TEST_F(DocumentBodyTest, AClientThatDeclaresJsonIsTrusted) {
  json_.set("k", "not json", 0, 0, kJsonDatatype);
  EXPECT_EQ(stored("k")->datatype, kJsonDatatype);
}

TEST_F(DocumentBodyTest, JsonFromAClientWithoutJsonIsMarkedButItNeverSeesTheBit) {
  ASSERT_EQ(raw_.set("k", "42").status, Status::Success);
  EXPECT_EQ(stored("k")->datatype, kJsonDatatype);
  const Response get = raw_.get("k");
  EXPECT_EQ(get.datatype, 0);
  EXPECT_EQ(get.value, "42");
  EXPECT_EQ(json_.get("k").datatype, kJsonDatatype);
}

TEST_F(DocumentBodyTest, ACompressedValueIsJudgedInflated) {
  const std::string json = R"({"list":[1,1,1,1,1,1,1,1,1,1]})";
  std::string compressed;
  snappy::Compress(json.data(), json.size(), &compressed);
  ASSERT_EQ(json_.set("k", compressed, 0, 0, kSnappyDatatype).status, Status::Success);
  EXPECT_EQ(stored("k")->datatype, kJsonDatatype);
  EXPECT_EQ(stored("k")->value(), json);
}

TEST_F(DocumentBodyTest, AppendAndPrependJudgeTheNewBody) {
  json_.set("k", "[1");
  EXPECT_EQ(stored("k")->datatype, 0);
  json_.one({.opcode = Opcode::Append, .key = "k", .value = ",2]"});
  EXPECT_EQ(stored("k")->datatype, kJsonDatatype);
  EXPECT_EQ(json_.get("k").datatype, kJsonDatatype);
  json_.one({.opcode = Opcode::Prepend, .key = "k", .value = "x"});
  EXPECT_EQ(stored("k")->datatype, 0) << "x[1,2] is not JSON: the bit goes";
  // A client's declared JSON covers what it sent, not the document it lands in.
  json_.set("j", "{}", 0, 0, kJsonDatatype);
  json_.one({.opcode = Opcode::Append, .key = "j", .value = "1", .datatype = kJsonDatatype});
  EXPECT_EQ(stored("j")->datatype, 0);
}

// --- Seqno tokens --------------------------------------------------------------------------

TEST_F(DocumentBodyTest, TheTokenCarriesTheSeqnoTheEngineGaveTheDocument) {
  const uint16_t vb = 17;
  const uint64_t uuid = bucket("default").vbucket(vb)->uuid();
  auto seqno_of = [](const Response& r) { return protocol::load_be64(r.extras.data() + 8); };
  const Response set = json_.one({.opcode = Opcode::Set, .key = "k", .value = "1",
                                  .extras = storage_extras(0, 0), .vbucket = vb});
  ASSERT_EQ(set.extras.size(), 16u);
  EXPECT_EQ(protocol::load_be64(set.extras.data()), uuid);
  EXPECT_EQ(seqno_of(set), stored("k")->seqno);
  // Quiet mutations answer nothing but are numbered all the same.
  EXPECT_TRUE(json_.run({.opcode = Opcode::AppendQ, .key = "k", .value = "2", .vbucket = vb})
                  .empty());
  EXPECT_EQ(stored("k")->seqno, 2u);
  EXPECT_TRUE(json_.run({.opcode = Opcode::IncrementQ, .key = "k",
                         .extras = arithmetic_extras(1, 0, 0), .vbucket = vb}).empty());
  EXPECT_EQ(stored("k")->seqno, 3u);
  const Response removed = json_.one({.opcode = Opcode::Delete, .key = "k", .vbucket = vb});
  EXPECT_EQ(seqno_of(removed), 4u);
  EXPECT_EQ(stored("k")->seqno, 4u) << "the tombstone's";
  EXPECT_EQ(bucket("default").vbucket(vb)->high_seqno(), 4u);
  // Reads and touches take none.
  json_.set("t", "v");
  json_.one({.opcode = Opcode::Touch, .key = "t", .extras = be32(10)});
  EXPECT_EQ(bucket("default").vbucket(0)->high_seqno(), 1u);
}

}  // namespace
}  // namespace tern::commands
