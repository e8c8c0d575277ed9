// A vbucket's failover log on a real ternd, across restarts: a mutation token (vbucket uuid,
// seqno) taken before a clean restart (SIGTERM) is still current after it; after an unclean one
// (SIGKILL) the vbucket has a new uuid, and OBSERVE_SEQNO with the old one answers that the old
// history ended at the disk's high seqno, past every durable write acknowledged in it.

#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <string>
#include <vector>

#include "couchbase_session.h"
#include "seqnos.h"
#include "storage/temp_dir.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

struct Token {
  uint64_t uuid = 0;
  uint64_t seqno = 0;
};

struct Observed {
  uint8_t format = 0xff;
  uint64_t uuid = 0;
  uint64_t persisted = 0;
  uint64_t old_uuid = 0;   // format 1 only
  uint64_t ended_at = 0;   // format 1 only: where the history of old_uuid ended
};

class FailoverLogRestartTest : public ::testing::Test {
 protected:
  FailoverLogRestartTest() {
    std::ofstream(dir_.sub("t.toml")) << "[server]\nanonymous_bucket = \"b\"\n"
                                         "[[bucket]]\nname = \"b\"\ntype = \"couchbase\"\n"
                                         "memory_quota_mb = 64\n";
  }

  std::vector<std::string> args() const {
    return {"--config", dir_.sub("t.toml"), "--data-dir", dir_.sub("data")};
  }

  // A ternd on the test's data directory, and a session on it that may ask for durability.
  struct Node {
    explicit Node(const std::vector<std::string>& args) : server(args), session(server.port()) {
      session.hello({kXerror, kAltRequestSupport, kSyncReplication, kMutationSeqno});
    }
    TerndProcess server;
    CouchbaseSession session;
  };

  // A SET persisted before it is acknowledged (PersistToMajority), on the vbucket the key is
  // filed under, so that its token and OBSERVE_SEQNO name the same vbucket.
  static Token durable_set(CouchbaseSession& session, const std::string& key) {
    Request set = alt(store(Opcode::Set, key, "v"), durability_frame(kLevelPersistToMajority, 30000));
    set.vbucket = filed_vbucket(key);
    const Response answer = call_when_warm(session, set);
    EXPECT_EQ(answer.status, Status::Success) << key;
    EXPECT_EQ(answer.extras.size(), 16u) << key << ": no mutation token";
    if (answer.extras.size() != 16) return {};
    return {read_be64(answer.extras, 0), read_be64(answer.extras, 8)};
  }

  static Observed observe(CouchbaseSession& session, uint16_t vbucket, uint64_t uuid) {
    Request request = simple(Opcode::ObserveSeqno, "", be64(uuid));
    request.vbucket = vbucket;
    const Response answer = call_when_warm(session, request);
    EXPECT_EQ(answer.status, Status::Success);
    Observed observed;
    if (answer.value.size() < 27) {
      ADD_FAILURE() << "OBSERVE_SEQNO answered " << answer.value.size() << " bytes";
      return observed;
    }
    observed.format = static_cast<uint8_t>(answer.value[0]);
    observed.uuid = read_be64(answer.value, 3);
    observed.persisted = read_be64(answer.value, 11);
    if (observed.format == 1 && answer.value.size() == 43) {
      observed.old_uuid = read_be64(answer.value, 27);
      observed.ended_at = read_be64(answer.value, 35);
    }
    return observed;
  }

  storage::TempDir dir_;
};

TEST_F(FailoverLogRestartTest, ACleanRestartKeepsTheHistoryAndAnUncleanOneStartsANewOne) {
  const std::string key = "token-key";
  const uint16_t vbucket = filed_vbucket(key);
  Token first;
  {
    Node node(args());
    CouchbaseSession& session = node.session;
    first = durable_set(session, key);
    ASSERT_NE(first.uuid, 0u);
    EXPECT_EQ(node.server.stop(SIGTERM), 0);
  }

  Token second;
  {
    Node node(args());
    CouchbaseSession& session = node.session;
    const Observed after_clean = observe(session, vbucket, first.uuid);
    EXPECT_EQ(after_clean.format, 0) << "a clean restart keeps the uuid";
    EXPECT_EQ(after_clean.uuid, first.uuid);
    EXPECT_GE(after_clean.persisted, first.seqno);
    second = durable_set(session, key);
    EXPECT_EQ(second.uuid, first.uuid);
    EXPECT_GT(second.seqno, first.seqno);
    node.server.stop(SIGKILL);
  }

  uint64_t new_uuid = 0;
  {
    Node node(args());
    CouchbaseSession& session = node.session;
    const Observed after_crash = observe(session, vbucket, first.uuid);
    EXPECT_EQ(after_crash.format, 1) << "an unclean restart starts a new history";
    EXPECT_NE(after_crash.uuid, first.uuid);
    EXPECT_EQ(after_crash.old_uuid, first.uuid);
    EXPECT_GE(after_crash.ended_at, second.seqno) << "the durable write is in the old history";
    EXPECT_GE(after_crash.persisted, second.seqno);
    new_uuid = after_crash.uuid;
    EXPECT_EQ(observe(session, vbucket, new_uuid).format, 0);
    // A uuid the vbucket never had: nobody can say where its history ended.
    const Observed unknown = observe(session, vbucket, 12345);
    EXPECT_EQ(unknown.format, 1);
    EXPECT_EQ(unknown.ended_at, 0u);
    // A new write carries the new history's uuid.
    EXPECT_EQ(durable_set(session, key).uuid, new_uuid);
    EXPECT_EQ(node.server.stop(SIGTERM), 0);
  }

  // Clean again: the new history stays current, and the log still knows the old one.
  Node node(args());
  CouchbaseSession& session = node.session;
  EXPECT_EQ(observe(session, vbucket, new_uuid).format, 0);
  const Observed old = observe(session, vbucket, first.uuid);
  EXPECT_EQ(old.format, 1);
  EXPECT_GE(old.ended_at, second.seqno);
}

}  // namespace
}  // namespace tern::e2e
