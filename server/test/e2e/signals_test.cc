// Stopping ternd by signal: however many signals follow the first, it finishes its teardown
// and exits 0, as a script or an impatient Ctrl-C expects.

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "test_client.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

using namespace std::chrono_literals;

// Stores `count` small items, pipelined as quiet SETs, and waits until the server has
// handled them all.
void fill(uint16_t port, int count) {
  Client client(port);
  constexpr int kBatch = 5000;
  for (int first = 0; first < count; first += kBatch) {
    std::vector<uint8_t> batch;
    for (int i = first; i < std::min(count, first + kBatch); ++i) {
      const auto bytes = store(Opcode::SetQ, "item-" + std::to_string(i), std::string(64, 'v')).encode();
      batch.insert(batch.end(), bytes.begin(), bytes.end());
    }
    ASSERT_TRUE(client.send_bytes(batch));
  }
  // Quiet SETs answer only on failure, so the first answer must be the NOOP's.
  EXPECT_EQ(client.call(simple(Opcode::Noop)).opcode, Opcode::Noop);
}

TEST(SignalsTest, SigtermsDuringTeardownStillEndInACleanExit) {
  TerndProcess server;
  // Freeing many items makes the teardown long enough for the signals below to land in it;
  // with an empty server they would mostly arrive too late to show a fault.
  fill(server.port(), 200000);

  // Through a pidfd, so that no signal reaches another process that reuses the pid once
  // the test has reaped ternd; sending ends then, with ESRCH.
  // (Raw system calls: glibc 2.36's <sys/pidfd.h> lacks extern "C", so C++ cannot link it.)
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, server.pid(), 0));
  ASSERT_GE(pidfd, 0);
  std::thread more_signals([pidfd] {
    while (::syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, nullptr, 0) == 0) std::this_thread::sleep_for(200us);
  });
  const int status = server.stop(SIGTERM);
  more_signals.join();
  ::close(pidfd);

  ASSERT_NE(status, -1) << "ternd did not exit; its log:\n" << server.log();
  EXPECT_TRUE(WIFEXITED(status)) << "ternd was ended by signal " << WTERMSIG(status)
                                 << "; its log:\n" << server.log();
  EXPECT_EQ(WEXITSTATUS(status), 0) << server.log();
}

}  // namespace
}  // namespace tern::e2e
