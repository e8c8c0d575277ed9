// Every command family, end to end over TCP against a real ternd.

#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "test_client.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

class CommandsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = std::make_unique<TerndProcess>(); }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    ASSERT_NE(server_->port(), 0);
    client_ = std::make_unique<Client>(server_->port());
    ASSERT_TRUE(client_->connected());
  }

  std::map<std::string, std::string> stats(const std::string& group) {
    return client_->stats(group);
  }

  static std::unique_ptr<TerndProcess> server_;
  std::unique_ptr<Client> client_;
};

std::unique_ptr<TerndProcess> CommandsTest::server_;

TEST_F(CommandsTest, SetThenGetReturnsValueFlagsAndCas) {
  Response stored = client_->call(store(Opcode::Set, "get-me", "hello", 0xdeadbeef));
  ASSERT_EQ(stored.status, Status::Success);
  EXPECT_NE(stored.cas, 0u);

  Response got = client_->call(simple(Opcode::Get, "get-me"));
  ASSERT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.value, "hello");
  EXPECT_EQ(read_be32(got.extras), 0xdeadbeefu);
  EXPECT_EQ(got.cas, stored.cas);
  EXPECT_TRUE(got.key.empty());

  Response with_key = client_->call(simple(Opcode::GetK, "get-me"));
  EXPECT_EQ(with_key.key, "get-me");
  EXPECT_EQ(with_key.value, "hello");

  EXPECT_EQ(client_->call(simple(Opcode::Get, "never-set")).status, Status::KeyEnoent);
}

TEST_F(CommandsTest, AddAndReplaceRespectExistence) {
  EXPECT_EQ(client_->call(store(Opcode::Replace, "add-rep", "x")).status, Status::KeyEnoent);
  EXPECT_EQ(client_->call(store(Opcode::Add, "add-rep", "first")).status, Status::Success);
  EXPECT_EQ(client_->call(store(Opcode::Add, "add-rep", "second")).status, Status::KeyEexists);
  EXPECT_EQ(client_->call(store(Opcode::Replace, "add-rep", "third")).status, Status::Success);
  EXPECT_EQ(client_->call(simple(Opcode::Get, "add-rep")).value, "third");
}

TEST_F(CommandsTest, DeleteRemovesTheKey) {
  ASSERT_EQ(client_->call(store(Opcode::Set, "delete-me", "v")).status, Status::Success);
  EXPECT_EQ(client_->call(simple(Opcode::Delete, "delete-me")).status, Status::Success);
  EXPECT_EQ(client_->call(simple(Opcode::Get, "delete-me")).status, Status::KeyEnoent);
  EXPECT_EQ(client_->call(simple(Opcode::Delete, "delete-me")).status, Status::KeyEnoent);
}

TEST_F(CommandsTest, IncrementAndDecrementCountFromInitial) {
  Response created = client_->call(arithmetic(Opcode::Increment, "counter", 5, 10));
  ASSERT_EQ(created.status, Status::Success);
  EXPECT_EQ(read_be64(created.value), 10u);
  EXPECT_EQ(read_be64(client_->call(arithmetic(Opcode::Increment, "counter", 5, 0)).value), 15u);
  EXPECT_EQ(read_be64(client_->call(arithmetic(Opcode::Decrement, "counter", 20, 0)).value), 0u);
  EXPECT_EQ(client_->call(simple(Opcode::Get, "counter")).value, "0");

  EXPECT_EQ(client_->call(arithmetic(Opcode::Increment, "no-counter", 1, 0, 0xffffffff)).status,
            Status::KeyEnoent);
  ASSERT_EQ(client_->call(store(Opcode::Set, "not-a-number", "abc")).status, Status::Success);
  EXPECT_EQ(client_->call(arithmetic(Opcode::Increment, "not-a-number", 1, 0)).status,
            Status::DeltaBadval);
}

// As memcached 1.6 counts them: whitespace around the digits is allowed.
TEST_F(CommandsTest, CountersWithSurroundingSpacesCount) {
  ASSERT_EQ(client_->call(store(Opcode::Set, "spaced", " 12 ")).status, Status::Success);
  Response incremented = client_->call(arithmetic(Opcode::Increment, "spaced", 1, 0));
  ASSERT_EQ(incremented.status, Status::Success);
  EXPECT_EQ(read_be64(incremented.value), 13u);
  ASSERT_EQ(client_->call(store(Opcode::Set, "spaced", "12\r\n")).status, Status::Success);
  EXPECT_EQ(read_be64(client_->call(arithmetic(Opcode::Decrement, "spaced", 2, 0)).value), 10u);
  EXPECT_EQ(client_->call(simple(Opcode::Get, "spaced")).value, "10");
}

TEST_F(CommandsTest, AppendAndPrependConcatenate) {
  EXPECT_EQ(client_->call(simple(Opcode::Append, "concat", "x")).status, Status::NotStored);
  ASSERT_EQ(client_->call(store(Opcode::Set, "concat", "b")).status, Status::Success);
  EXPECT_EQ(client_->call(simple(Opcode::Append, "concat", "c")).status, Status::Success);
  EXPECT_EQ(client_->call(simple(Opcode::Prepend, "concat", "a")).status, Status::Success);
  EXPECT_EQ(client_->call(simple(Opcode::Get, "concat")).value, "abc");
}

TEST_F(CommandsTest, TouchAndGetAndTouch) {
  EXPECT_EQ(client_->call(with_time(Opcode::Touch, "touch-me", 100)).status, Status::KeyEnoent);
  ASSERT_EQ(client_->call(store(Opcode::Set, "touch-me", "v", 7)).status, Status::Success);
  EXPECT_EQ(client_->call(with_time(Opcode::Touch, "touch-me", 100)).status, Status::Success);
  Response touched = client_->call(with_time(Opcode::Gat, "touch-me", 200));
  ASSERT_EQ(touched.status, Status::Success);
  EXPECT_EQ(touched.value, "v");
  EXPECT_EQ(read_be32(touched.extras), 7u);
}

TEST_F(CommandsTest, GetLockedBlocksOtherWritersUntilUnlocked) {
  ASSERT_EQ(client_->call(store(Opcode::Set, "lock-me", "v")).status, Status::Success);
  Response locked = client_->call(with_time(Opcode::GetLocked, "lock-me", 10));
  ASSERT_EQ(locked.status, Status::Success);
  EXPECT_EQ(locked.value, "v");
  EXPECT_EQ(client_->call(store(Opcode::Set, "lock-me", "w")).status, Status::Locked);

  Request unlock = simple(Opcode::UnlockKey, "lock-me");
  unlock.cas = locked.cas;
  EXPECT_EQ(client_->call(unlock).status, Status::Success);
  EXPECT_EQ(client_->call(store(Opcode::Set, "lock-me", "w")).status, Status::Success);
}

TEST_F(CommandsTest, CasMismatchIsRefusedAndMatchIsApplied) {
  Response first = client_->call(store(Opcode::Set, "cas-key", "one"));
  ASSERT_EQ(first.status, Status::Success);
  EXPECT_EQ(client_->call(store(Opcode::Set, "cas-key", "two", 0, 0, first.cas + 1)).status,
            Status::KeyEexists);
  Response second = client_->call(store(Opcode::Set, "cas-key", "three", 0, 0, first.cas));
  ASSERT_EQ(second.status, Status::Success);
  EXPECT_NE(second.cas, first.cas);
  EXPECT_EQ(client_->call(simple(Opcode::Get, "cas-key")).value, "three");
  EXPECT_EQ(client_->call(store(Opcode::Set, "cas-absent", "x", 0, 0, 42)).status,
            Status::KeyEnoent);
}

TEST_F(CommandsTest, NoopAndVersionAnswer) {
  Request noop = simple(Opcode::Noop);
  noop.opaque = 0x01020304;
  Response answered = client_->call(noop);
  EXPECT_EQ(answered.status, Status::Success);
  EXPECT_EQ(answered.opaque, 0x01020304u);

  Response version = client_->call(simple(Opcode::Version));
  EXPECT_EQ(version.status, Status::Success);
  EXPECT_FALSE(version.value.empty());
}

TEST_F(CommandsTest, StatReportsServerEngineAndSettingsGroups) {
  auto general = stats("");
  EXPECT_FALSE(general["pid"].empty());
  EXPECT_FALSE(general["version"].empty());
  EXPECT_GE(std::stoul(general["curr_connections"]), 1u);
  EXPECT_GE(std::stoul(general["total_connections"]), 1u);
  EXPECT_EQ(general["rejected_connections"], "0");
  EXPECT_TRUE(general.count("curr_items"));
  EXPECT_EQ(general["version"], client_->call(simple(Opcode::Version)).value);

  auto settings = stats("settings");
  EXPECT_EQ(settings["port"], std::to_string(server_->port()));
  EXPECT_EQ(settings["max_item_size"], std::to_string(20 * 1024 * 1024));
  EXPECT_EQ(settings["max_connections"], "4096");

  // The background tasks (expiry and item pagers) run on the executor, reported as JSON.
  EXPECT_NE(stats("tasks")["tasks"].find("\"description\""), std::string::npos);
  EXPECT_NE(stats("workers")["workers"].find("\"nonio\""), std::string::npos);
}

TEST_F(CommandsTest, QuietCommandsAnswerOnlyHitsAndErrorsBeforeTheNoop) {
  std::vector<uint8_t> batch;
  auto add = [&batch](Request request, uint32_t opaque) {
    request.opaque = opaque;
    auto bytes = request.encode();
    batch.insert(batch.end(), bytes.begin(), bytes.end());
  };
  for (uint32_t i = 0; i < 100; ++i) add(store(Opcode::SetQ, "quiet-" + std::to_string(i), "v"), i);
  add(simple(Opcode::GetQ, "quiet-7"), 1000);          // hit: answered
  add(simple(Opcode::GetQ, "quiet-missing"), 1001);    // miss: silent
  add(store(Opcode::AddQ, "quiet-8", "again"), 1002);  // exists: answered with an error
  add(simple(Opcode::DeleteQ, "quiet-9"), 1003);       // success: silent
  add(simple(Opcode::GetKQ, "quiet-10"), 1004);        // hit with key
  add(simple(Opcode::Noop), 1005);
  ASSERT_TRUE(client_->send_bytes(batch));

  Response hit = client_->receive().value();
  EXPECT_EQ(hit.opaque, 1000u);
  EXPECT_EQ(hit.value, "v");
  Response exists = client_->receive().value();
  EXPECT_EQ(exists.opaque, 1002u);
  EXPECT_EQ(exists.status, Status::KeyEexists);
  Response keyed = client_->receive().value();
  EXPECT_EQ(keyed.opaque, 1004u);
  EXPECT_EQ(keyed.key, "quiet-10");
  Response noop = client_->receive().value();
  EXPECT_EQ(noop.opaque, 1005u);
  EXPECT_EQ(noop.opcode, Opcode::Noop);
  EXPECT_EQ(client_->call(simple(Opcode::Get, "quiet-9")).status, Status::KeyEnoent);
}

TEST_F(CommandsTest, KeyLongerThan250BytesIsInvalid) {
  EXPECT_EQ(client_->call(store(Opcode::Set, std::string(250, 'k'), "v")).status,
            Status::Success);
  EXPECT_EQ(client_->call(store(Opcode::Set, std::string(251, 'k'), "v")).status,
            Status::Einval);
}

TEST_F(CommandsTest, UnknownOpcodeIsAnsweredAndTheConnectionStays) {
  Request unknown;
  unknown.opcode = static_cast<Opcode>(0x50);
  EXPECT_EQ(client_->call(unknown).status, Status::UnknownCommand);
  EXPECT_EQ(client_->call(simple(Opcode::Noop)).status, Status::Success);
}

TEST_F(CommandsTest, QuitAnswersThenCloses) {
  Response bye = client_->call(simple(Opcode::Quit));
  EXPECT_EQ(bye.status, Status::Success);
  EXPECT_TRUE(client_->closed_by_peer());

  Client quiet(server_->port());
  ASSERT_TRUE(quiet.send(simple(Opcode::QuitQ)));
  EXPECT_TRUE(quiet.closed_by_peer());
}

TEST(FlushTest, FlushRemovesEveryItem) {
  TerndProcess server;
  Client client(server.port());
  ASSERT_EQ(client.call(store(Opcode::Set, "a", "1")).status, Status::Success);
  ASSERT_EQ(client.call(store(Opcode::Set, "b", "2")).status, Status::Success);
  EXPECT_EQ(client.call(simple(Opcode::Flush)).status, Status::Success);
  EXPECT_EQ(client.call(simple(Opcode::Get, "a")).status, Status::KeyEnoent);
  EXPECT_EQ(client.call(simple(Opcode::Get, "b")).status, Status::KeyEnoent);
}

}  // namespace
}  // namespace tern::e2e
