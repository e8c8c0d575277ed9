// What each durability level waits for, against a real ternd whose disk the test holds: ternd
// runs under hold_fsync (server/test/tools/hold_fsync.cc), so while the test's hold file
// exists every fsync waits, and the flusher cannot persist anything. On dev.toml's persistent
// bucket, a write at MajorityAndPersistToActive or PersistToMajority then cannot be
// acknowledged: with a short timeout it answers SyncWriteAmbiguous, and with a long one it has
// not answered when a later request on its connection has, until the hold is released.
// Majority (no replicas) and a write without a durability frame answer Success with the write
// not on disk: its seqno is past what OBSERVE_SEQNO reports as persisted.
// Nothing here races the clock: the hold lasts until the test removes the file.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "couchbase_session.h"
#include "seqnos.h"
#include "storage/temp_dir.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

// Passes while the disk is held, so the write it bounds answers SyncWriteAmbiguous.
constexpr uint16_t kShortTimeoutMs = 200;
// Far longer than the test: the write it bounds answers only once persisted.
constexpr uint16_t kLongTimeoutMs = 60'000;
// Bounds a wait for what must happen once the disk is released: generous, a busy machine.
constexpr auto kReleasedBound = std::chrono::seconds(30);

class DurabilityLevelsTest : public ::testing::Test {
 protected:
  // Released before the members go: a ternd whose fsyncs are held cannot finish the clean stop
  // the server's destructor expects (it flushes first).
  ~DurabilityLevelsTest() override { release_disk(); }

  void SetUp() override {
    ASSERT_NE(server_.port(), 0);
    // UnorderedExecution: a parked write does not hold up the connection's later requests.
    session_.open({kXerror, kAltRequestSupport, kSyncReplication, kMutationSeqno,
                   kUnorderedExecution});
  }

  // From now on every fsync of the server waits.
  void hold_disk() { ASSERT_TRUE(std::ofstream(hold_file_)) << "cannot create " << hold_file_; }
  // Held fsyncs go on, and later ones do not wait.
  void release_disk() {
    std::error_code ignored;
    std::filesystem::remove(hold_file_, ignored);
  }

  // A SET of `key` carrying `frame` (a plain SET when empty), answered.
  Response write(const std::string& key, const std::string& frame) {
    Request request = store(Opcode::Set, key, "v");
    return session_.call(frame.empty() ? request : alt(std::move(request), frame));
  }

  // The write `answer` acknowledged is not on disk: its vbucket is persisted only below its
  // seqno.
  void expect_not_persisted(const std::string& key, const Response& answer) {
    const std::optional<uint64_t> seqno = token_seqno(answer);
    ASSERT_TRUE(seqno) << "no mutation token";
    const std::optional<uint64_t> persisted = persisted_seqno(session_, filed_vbucket(key));
    ASSERT_TRUE(persisted);
    EXPECT_LT(*persisted, *seqno) << "the flusher persisted " << key << " while the disk was held";
  }

  // A write at `level` with a short timeout while the disk is held answers SyncWriteAmbiguous;
  // once the disk is released it commits all the same.
  void expect_ambiguous_while_held(uint8_t level) {
    hold_disk();
    EXPECT_EQ(write("k", durability_frame(level, kShortTimeoutMs)).status,
              Status::SyncWriteAmbiguous);
    release_disk();
    const auto deadline = std::chrono::steady_clock::now() + kReleasedBound;
    Response read;
    while ((read = session_.call(simple(Opcode::Get, "k"))).status == Status::KeyEnoent &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(read.status, Status::Success) << "the write never committed";
    EXPECT_EQ(read.value, "v");
  }

  storage::TempDir dir_;
  const std::string hold_file_ = dir_.sub("hold");
  TerndProcess server_{dev_config_args(), {HOLD_FSYNC_PATH, hold_file_}};
  CouchbaseSession session_{server_.port()};
};

TEST_F(DurabilityLevelsTest, MajorityAndPersistToActiveTimesOutAmbiguousWhileTheDiskIsHeld) {
  expect_ambiguous_while_held(kLevelMajorityAndPersistToActive);
}

TEST_F(DurabilityLevelsTest, PersistToMajorityTimesOutAmbiguousWhileTheDiskIsHeld) {
  expect_ambiguous_while_held(kLevelPersistToMajority);
}

TEST_F(DurabilityLevelsTest, MajorityAnswersSuccessWhileTheDiskIsHeld) {
  hold_disk();
  const Response answer = write("k", durability_frame(kLevelMajority, kLongTimeoutMs));
  ASSERT_EQ(answer.status, Status::Success);
  expect_not_persisted("k", answer);
}

TEST_F(DurabilityLevelsTest, AWriteWithoutADurabilityFrameAnswersSuccessWhileTheDiskIsHeld) {
  hold_disk();
  const Response answer = write("k", "");
  ASSERT_EQ(answer.status, Status::Success);
  expect_not_persisted("k", answer);
}

// Order, not time: the durable write is sent first, and a NOOP after it is answered while the
// write is not; only once the disk is released does the write answer.
TEST_F(DurabilityLevelsTest, PersistToMajorityAnswersOnlyOnceTheDiskIsReleased) {
  hold_disk();
  Request durable = alt(store(Opcode::Set, "k", "v"),
                        durability_frame(kLevelPersistToMajority, kLongTimeoutMs));
  durable.opaque = 1;
  Request later = simple(Opcode::Noop);
  later.opaque = 2;
  ASSERT_TRUE(session_.send(durable));
  ASSERT_TRUE(session_.send(later));
  const std::optional<Response> first = session_.receive();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->opaque, 2u) << "the durable write answered while the disk was held, status 0x"
                               << std::hex << static_cast<int>(first->status);

  release_disk();
  const std::optional<Response> persisted = session_.receive();
  ASSERT_TRUE(persisted) << "no answer once the disk was released";
  EXPECT_EQ(persisted->opaque, 1u);
  EXPECT_EQ(persisted->status, Status::Success);
  // Answered once on disk: its vbucket is persisted up to its seqno.
  const std::optional<uint64_t> seqno = token_seqno(*persisted);
  ASSERT_TRUE(seqno) << "no mutation token";
  const std::optional<uint64_t> on_disk = persisted_seqno(session_, filed_vbucket("k"));
  ASSERT_TRUE(on_disk);
  EXPECT_GE(*on_disk, *seqno);
  EXPECT_EQ(session_.call(simple(Opcode::Get, "k")).value, "v");
}

}  // namespace
}  // namespace tern::e2e
