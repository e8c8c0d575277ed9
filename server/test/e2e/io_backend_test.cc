// --io: ternd serves on the backend asked for, and falls back to epoll, saying so once, when
// the kernel refuses io_uring. (The whole e2e suite also runs on each backend: CMakeLists.)

#include <gtest/gtest.h>

#include <string>

#include "test_client.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

size_t count_of(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

// A SET and the GET that reads it back, on a fresh connection.
void expect_round_trip(uint16_t port) {
  Client client(port);
  EXPECT_EQ(client.call(store(Opcode::Set, "io-backend", "value")).status, Status::Success);
  const Response got = client.call(simple(Opcode::Get, "io-backend"));
  EXPECT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.value, "value");
}

TEST(IoBackendTest, EachBackendServesWhenAskedFor) {
  for (const char* backend : {"epoll", "uring"}) {
    TerndProcess server({"--io", backend});
    EXPECT_NE(server.log().find(std::string(" threads on ") + backend), std::string::npos)
        << server.log();
    expect_round_trip(server.port());
  }
}

TEST(IoBackendTest, ARefusedIoUringFallsBackToEpollWithOneWarning) {
  TerndProcess server({"--io", "uring", "--threads", "2"}, {DENY_IO_URING_PATH});
  const std::string log = server.log();
  EXPECT_EQ(count_of(log, "io_uring is not available"), 1u) << log;
  EXPECT_NE(log.find("Operation not permitted"), std::string::npos) << log;
  EXPECT_NE(log.find(" threads on epoll"), std::string::npos) << log;
  expect_round_trip(server.port());
}

}  // namespace
}  // namespace tern::e2e
