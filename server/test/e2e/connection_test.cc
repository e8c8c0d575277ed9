// The network layer's rules, end to end: framing errors, size limits, partial and pipelined
// input, connection limits and shutdown.

#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <random>
#include <thread>

#include "protocol/codec.h"
#include "test_client.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

std::vector<uint8_t> header_with(uint8_t magic, uint8_t opcode, uint16_t key_length,
                                 uint8_t extras_length, uint32_t body_length) {
  std::vector<uint8_t> header(protocol::kHeaderSize, 0);
  header[0] = magic;
  header[1] = opcode;
  protocol::store_be16(&header[2], key_length);
  header[4] = extras_length;
  protocol::store_be32(&header[8], body_length);
  return header;
}

std::string stat_value(Client& client, const std::string& name) {
  std::string value;
  EXPECT_TRUE(client.send(simple(Opcode::Stat)));
  while (auto response = client.receive()) {
    if (response->key.empty()) break;
    if (response->key == name) value = response->value;
  }
  return value;
}

// The resident memory of a process, in KiB, from /proc.
size_t resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6));
  }
  ADD_FAILURE() << "no VmRSS for pid " << pid;
  return 0;
}

TEST(ConnectionTest, BadMagicClosesTheConnectionAndIsLogged) {
  TerndProcess server;
  Client client(server.port());
  ASSERT_TRUE(client.send_bytes(header_with(0x42, 0x00, 0, 0, 0)));
  EXPECT_TRUE(client.closed_by_peer());
  EXPECT_TRUE(server.wait_for_log("bad magic byte 0x42")) << server.log();

  Client next(server.port());
  EXPECT_EQ(next.call(simple(Opcode::Noop)).status, Status::Success);
}

TEST(ConnectionTest, LengthsBeyondTheBodyAnswerEinvalThenClose) {
  TerndProcess server;
  Client client(server.port());
  // 8 bytes of extras and a 10-byte key cannot fit in a 4-byte body.
  auto header = header_with(0x80, static_cast<uint8_t>(Opcode::Set), 10, 8, 4);
  header[12] = 0x77;  // opaque
  ASSERT_TRUE(client.send_bytes(header));
  auto response = client.receive();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, Status::Einval);
  EXPECT_EQ(response->opaque, 0x77000000u);
  EXPECT_TRUE(client.closed_by_peer());
}

TEST(ConnectionTest, OversizedValueIsRefusedAndTheConnectionKeepsWorking) {
  TerndProcess server({"--max-item-size", "1024"});
  Client client(server.port());
  EXPECT_EQ(client.call(store(Opcode::Set, "limit", std::string(1024, 'a'))).status,
            Status::Success);
  EXPECT_EQ(client.call(store(Opcode::Set, "limit", std::string(1025, 'b'))).status,
            Status::E2big);
  // A body far beyond the socket buffers is discarded as it streams in.
  Request huge = store(Opcode::SetQ, "limit", std::string(8 << 20, 'c'));
  huge.opaque = 99;
  EXPECT_EQ(client.call(huge).opaque, 99u);
  EXPECT_EQ(client.call(simple(Opcode::Get, "limit")).value, std::string(1024, 'a'));
}

// A header costs the server what has arrived, not what it announces: bare headers claiming
// large values must not make it reserve their size up front (a 24-byte DoS per connection).
TEST(ConnectionTest, AnnouncedBodiesAreNotReservedBeforeTheyArrive) {
  constexpr size_t kConnections = 16;
  constexpr uint32_t kAnnounced = 8 << 20;
  TerndProcess server({"--threads", "1", "--max-item-size", std::to_string(kAnnounced)});
  Client probe(server.port());
  ASSERT_EQ(probe.call(simple(Opcode::Noop)).status, Status::Success);
  const size_t before = resident_kib(server.pid());

  std::vector<std::unique_ptr<Client>> clients;
  for (size_t i = 0; i < kConnections; ++i) {
    clients.push_back(std::make_unique<Client>(server.port()));
    ASSERT_TRUE(clients.back()->send_bytes(
        header_with(0x80, static_cast<uint8_t>(Opcode::Set), 1, 8, 9 + kAnnounced)));
  }
  // One event loop: by the time a newer connection is answered, the headers have been read.
  Client last(server.port());
  ASSERT_EQ(last.call(simple(Opcode::Noop)).status, Status::Success);

  const size_t after = resident_kib(server.pid());
  EXPECT_LT(after - std::min(before, after), kConnections * (kAnnounced / 1024) / 4);
}

TEST(ConnectionTest, LargeValuesRoundTrip) {
  TerndProcess server;
  Client client(server.port());
  std::string value(5 << 20, 'v');
  value[12345] = 'x';
  ASSERT_EQ(client.call(store(Opcode::Set, "big", value)).status, Status::Success);
  EXPECT_EQ(client.call(simple(Opcode::Get, "big")).value, value);
}

TEST(ConnectionTest, RequestSplitIntoSingleBytesIsReassembled) {
  TerndProcess server;
  Client client(server.port());
  auto bytes = store(Opcode::Set, "split", "pieces").encode();
  for (uint8_t byte : bytes) ASSERT_TRUE(client.send_bytes({&byte, 1}));
  EXPECT_EQ(client.receive().value().status, Status::Success);
  EXPECT_EQ(client.call(simple(Opcode::Get, "split")).value, "pieces");
}

// `count` GETs of `key` back to back in one buffer, with opaques 0 to count - 1.
std::vector<uint8_t> pipelined_gets(const std::string& key, uint32_t count) {
  std::vector<uint8_t> batch;
  for (uint32_t i = 0; i < count; ++i) {
    Request get = simple(Opcode::Get, key);
    get.opaque = i;
    auto bytes = get.encode();
    batch.insert(batch.end(), bytes.begin(), bytes.end());
  }
  return batch;
}

TEST(ConnectionTest, PipelinedAnswersLargerThanTheOutputLimitAllArriveInOrder) {
  TerndProcess server;
  Client client(server.port());
  std::string value(600 * 1024, 'p');
  ASSERT_EQ(client.call(store(Opcode::Set, "wide", value)).status, Status::Success);
  std::vector<uint8_t> batch = pipelined_gets("wide", 20);
  ASSERT_TRUE(client.send_bytes(batch));
  for (uint32_t i = 0; i < 20; ++i) {
    auto response = client.receive();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->opaque, i);
    EXPECT_EQ(response->value.size(), value.size());
  }
}

TEST(ConnectionTest, ConnectionsPastTheLimitAreRefused) {
  TerndProcess server({"--max-connections", "2"});
  Client first(server.port());
  Client second(server.port());
  ASSERT_EQ(first.call(simple(Opcode::Noop)).status, Status::Success);
  ASSERT_EQ(second.call(simple(Opcode::Noop)).status, Status::Success);

  Client refused(server.port());
  ASSERT_TRUE(refused.connected());  // accepted by the kernel, then closed by the server
  EXPECT_TRUE(refused.closed_by_peer());
  EXPECT_EQ(stat_value(first, "rejected_connections"), "1");
  EXPECT_EQ(stat_value(first, "curr_connections"), "2");
}

TEST(ConnectionTest, RandomBytesNeverTakeTheServerDown) {
  TerndProcess server({"--max-item-size", "4096"});
  std::mt19937 random(20261121);
  for (int round = 0; round < 300; ++round) {
    Client client(server.port());
    std::vector<uint8_t> bytes(1 + random() % 400);
    for (auto& byte : bytes) byte = static_cast<uint8_t>(random());
    if (round % 2 == 0) bytes[0] = 0x80;  // past the magic check half the time
    if (round % 4 == 0 && bytes.size() > 8) bytes[8] = bytes[9] = bytes[10] = 0;  // small body
    client.send_bytes(bytes);
  }
  Client check(server.port());
  EXPECT_EQ(check.call(simple(Opcode::Noop)).status, Status::Success);
}

TEST(ConnectionTest, SigtermStopsTheServerWithExitCodeZero) {
  TerndProcess server;
  Client client(server.port());
  ASSERT_EQ(client.call(store(Opcode::Set, "k", "v")).status, Status::Success);
  int status = server.stop(SIGTERM);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(client.closed_by_peer());
}

TEST(ConnectionTest, SigintStopsTheServerWithExitCodeZero) {
  TerndProcess server;
  int status = server.stop(SIGINT);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Ending a connection (QUIT, or a stream it cannot trust) must not cost the answers queued
// before it, even while the peer is still sending: a plain close with unread input resets
// the connection and the kernel drops what it had not yet sent.
TEST(ConnectionTest, AnswersBeforeQuitArriveWhileThePeerKeepsSending) {
  TerndProcess server;
  Client client(server.port());
  std::string value(600 * 1024, 'p');
  ASSERT_EQ(client.call(store(Opcode::Set, "wide", value)).status, Status::Success);
  std::vector<uint8_t> batch = pipelined_gets("wide", 20);
  auto quit = simple(Opcode::Quit).encode();
  batch.insert(batch.end(), quit.begin(), quit.end());
  batch.resize(batch.size() + (4 << 20), 0x80);
  std::thread sender([&] { client.send_bytes(batch); });
  uint32_t got = 0;
  while (auto response = client.receive()) {
    if (response->opcode == Opcode::Quit) {
      ++got;
      break;
    }
    EXPECT_EQ(response->opaque, got);
    ++got;
  }
  sender.join();
  EXPECT_EQ(got, 21u);
}

}  // namespace
}  // namespace tern::e2e
