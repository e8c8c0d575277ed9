// A transaction's staged insert as the official SDKs write it, through a real ternd and a
// restart: a multi-mutation with the doc flags Add, AccessDeleted and CreateAsDeleted that sets
// XATTRs only, which leaves a tombstone holding them. Plain reads never see it; a lookup with
// AccessDeleted does. In a couchbase bucket under full eviction it survives a clean restart,
// still a tombstone with its XATTRs and its CAS, which an insert then replaces.

#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <string>
#include <vector>

#include "couchbase_session.h"
#include "storage/temp_dir.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

// Doc flags (the request's last extras byte) and path flags, as the protocol numbers them.
constexpr uint8_t kAdd = 0x02;
constexpr uint8_t kAccessDeleted = 0x04;
constexpr uint8_t kCreateAsDeleted = 0x08;
constexpr uint8_t kPathXattr = 0x04;
constexpr uint8_t kPathCreateParents = 0x01;
// Sub-document operations inside a multi-path request.
constexpr uint8_t kSubdocGet = 0xc5;
constexpr uint8_t kDictUpsert = 0xc8;

struct Spec {
  uint8_t op;
  uint8_t flags;
  std::string path;
  std::string value;
};

Request multi_mutation(const std::string& key, const std::vector<Spec>& specs, uint8_t doc_flags) {
  Request r = simple(Opcode::SubdocMultiMutation, key);
  for (const Spec& s : specs) {
    r.value += std::string(1, static_cast<char>(s.op)) + static_cast<char>(s.flags) +
               be16(static_cast<uint16_t>(s.path.size())) +
               be32(static_cast<uint32_t>(s.value.size())) + s.path + s.value;
  }
  r.extras = std::string(1, static_cast<char>(doc_flags));
  return r;
}

Request multi_lookup(const std::string& key, const std::vector<Spec>& specs, uint8_t doc_flags) {
  Request r = simple(Opcode::SubdocMultiLookup, key);
  for (const Spec& s : specs) {
    r.value += std::string(1, static_cast<char>(s.op)) + static_cast<char>(s.flags) +
               be16(static_cast<uint16_t>(s.path.size())) + s.path;
  }
  r.extras = std::string(1, static_cast<char>(doc_flags));
  return r;
}

// The first entry's value of a multi-lookup answer (status u16, length u32, value).
std::string first_value(const Response& answer) {
  if (answer.value.size() < 6) return "<no entry>";
  return answer.value.substr(6);
}

TEST(StagedInsertTest, ATombstoneWithXattrsSurvivesARestartUnderFullEviction) {
  storage::TempDir scratch;
  const std::string config = scratch.sub("t.toml");
  std::ofstream(config)
      << "[server]\nanonymous_bucket = \"b\"\n[[bucket]]\nname = \"b\"\n"
         "type = \"couchbase\"\neviction_policy = \"full\"\nmemory_quota_mb = 64\n";
  const std::vector<std::string> args = {"--config", config, "--data-dir", scratch.sub("data")};
  const std::string key = "staged";
  const std::string staged = R"({"id":"attempt-1","op":{"type":"insert","stgd":{"v":1}}})";
  uint64_t staged_cas = 0;
  {
    TerndProcess server(args);
    CouchbaseSession session(server.port());
    session.hello({kXerror, kXattr, kJson});
    ASSERT_EQ(call_when_warm(session, simple(Opcode::Noop)).status, Status::Success);
    const Response insert = session.call(
        multi_mutation(key, {{kDictUpsert, kPathXattr | kPathCreateParents, "txn", staged}},
                       kAdd | kAccessDeleted | kCreateAsDeleted));
    ASSERT_EQ(insert.status, Status::SubdocSuccessDeleted);
    staged_cas = insert.cas;
    EXPECT_EQ(session.call(simple(Opcode::Get, key)).status, Status::KeyEnoent);
    // A second staged insert of the same key is refused: the tombstone is there.
    EXPECT_EQ(session
                  .call(multi_mutation(key, {{kDictUpsert, kPathXattr, "txn", "{}"}},
                                       kAdd | kAccessDeleted | kCreateAsDeleted))
                  .status,
              Status::KeyEexists);
    EXPECT_EQ(server.stop(SIGTERM), 0);
  }

  TerndProcess again(args);
  CouchbaseSession session(again.port());
  session.hello({kXerror, kXattr, kJson});
  const Response read = call_when_warm(
      session, multi_lookup(key, {{kSubdocGet, kPathXattr, "txn", ""}}, kAccessDeleted));
  EXPECT_EQ(read.status, Status::SubdocSuccessDeleted);
  EXPECT_EQ(read.cas, staged_cas);
  EXPECT_EQ(first_value(read), staged);
  EXPECT_EQ(session.call(simple(Opcode::Get, key)).status, Status::KeyEnoent);

  // The tombstone does not block the insert that commits it (what the SDKs send when the
  // bucket does not list subdoc.ReviveDocument): the document is live from then on.
  ASSERT_EQ(session.call(store(Opcode::Add, key, R"({"v":1})")).status, Status::Success);
  const Response live = session.call(simple(Opcode::Get, key));
  EXPECT_EQ(live.status, Status::Success);
  EXPECT_EQ(live.value, R"({"v":1})");
}

}  // namespace
}  // namespace tern::e2e
