#include "ternd_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include <gtest/gtest.h>

extern char** environ;

namespace tern::e2e {

namespace {

// Generous: they only bound how long a broken server can hold up a test, and a sanitizer
// build on a busy machine starts and stops slowly.
constexpr auto kStartTimeout = std::chrono::seconds(30);
constexpr auto kExitTimeout = std::chrono::seconds(30);

// Waits for `pid` to exit for up to `timeout`; returns its status or -1.
int wait_for_exit(pid_t pid, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 || std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// The port of the "listening on HOST:PORT " line in `log`, or 0 until all of it has arrived.
// The port of the first line with `marker` ("ADDRESS:PORT" follows it), or 0.
uint16_t logged_port(std::string_view log, std::string_view kMarker) {
  const size_t marker = log.find(kMarker);
  if (marker == std::string_view::npos) return 0;
  const size_t address = marker + kMarker.size();
  const size_t end = log.find_first_of(" \n", address);
  if (end == std::string_view::npos) return 0;
  const size_t colon = log.rfind(':', end);
  if (colon == std::string_view::npos || colon < address) return 0;
  uint16_t port = 0;
  const auto [parsed_to, error] = std::from_chars(log.data() + colon + 1, log.data() + end, port);
  return error == std::errc() && parsed_to == log.data() + end ? port : 0;
}

}  // namespace

TerndProcess::TerndProcess(std::vector<std::string> args, std::vector<std::string> launcher) {
  const auto given = [&args](const char* flag) {
    return std::find(args.begin(), args.end(), flag) != args.end();
  };
  if (given("--config") && !given("--data-dir")) {
    std::string pattern = ::testing::TempDir() + "ternd-data-XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) {
      own_data_dir_ = pattern;
      args.insert(args.end(), {"--data-dir", own_data_dir_});
    } else {
      ADD_FAILURE() << "cannot create a data directory from " << pattern;
    }
  }
  // CI runs the suite once per I/O backend: TERN_TEST_IO names the one to serve on.
  const char* io = std::getenv("TERN_TEST_IO");
  if (io != nullptr && *io != '\0' && !given("--io")) args.insert(args.end(), {"--io", io});
  // The management port on a free port too, so that tests never meet on 8091.
  if (!given("--mgmt-port")) args.insert(args.end(), {"--mgmt-port", "0"});
  // Whether a port flag (which `args` now has) leaves the port on.
  const auto port_on = [&args](const char* flag) {
    const auto found = std::find(args.begin(), args.end(), flag);
    return found + 1 < args.end() && *(found + 1) != "none";
  };
  const bool mgmt_on = port_on("--mgmt-port");
  // With a certificate, the TLS ports are free ones too, never 11207 and 18091.
  const bool tls = given("--tls-certificate");
  if (tls && !given("--tls-port")) args.insert(args.end(), {"--tls-port", "0"});
  if (tls && !given("--mgmt-tls-port")) args.insert(args.end(), {"--mgmt-tls-port", "0"});
  const bool tls_on = tls && port_on("--tls-port");
  const bool mgmt_tls_on = tls && port_on("--mgmt-tls-port");
  args.insert(args.begin(), {TERND_PATH, "--port", "0"});
  args.insert(args.begin(), launcher.begin(), launcher.end());
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe failed";
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  int spawn_error = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  stderr_fd_ = pipe_fds[0];
  if (spawn_error != 0) {
    pid_ = -1;
    ADD_FAILURE() << "cannot start " << argv[0];
    return;
  }

  // Read stderr until the server says where it listens and that its buckets are warm (a
  // persistent bucket answers Etmpfail until then).
  auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  std::string seen;
  constexpr std::string_view kReady = "ternd ready";
  while ((port_ == 0 || (mgmt_on && mgmt_port_ == 0) || (tls_on && tls_port_ == 0) ||
          (mgmt_tls_on && mgmt_tls_port_ == 0) || seen.find(kReady) == std::string::npos) &&
         std::chrono::steady_clock::now() < deadline) {
    pollfd readable{stderr_fd_, POLLIN, 0};
    if (::poll(&readable, 1, 100) <= 0) continue;
    char chunk[4096];
    ssize_t n = ::read(stderr_fd_, chunk, sizeof chunk);
    if (n <= 0) break;
    seen.append(chunk, static_cast<size_t>(n));
    port_ = logged_port(seen, "listening on ");
    mgmt_port_ = logged_port(seen, "management port listening on ");
    tls_port_ = logged_port(seen, "TLS listening on ");
    mgmt_tls_port_ = logged_port(seen, "management TLS port listening on ");
  }
  log_ = seen;
  if (port_ == 0 || seen.find(kReady) == std::string::npos) {
    ADD_FAILURE() << "ternd did not report a port and its readiness; it wrote:\n" << seen;
    port_ = 0;
    return;
  }
  // A run meant for one backend must not pass on the other by way of the fallback.
  if (io != nullptr && *io != '\0' && !given("--io") &&
      seen.find(std::string(" threads on ") + io) == std::string::npos) {
    ADD_FAILURE() << "TERN_TEST_IO=" << io << " but ternd is not serving on it; it wrote:\n"
                  << seen;
  }
  drainer_ = std::thread([this] { drain_stderr(); });
}

TerndProcess::~TerndProcess() {
  // Every test ends with a clean shutdown: exit code 0 (which also means no sanitizer
  // report, in sanitizer builds) after whatever the test sent.
  if (pid_ > 0) {
    int status = stop(SIGTERM);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "ternd ended with status " << status << "; its log:\n"
        << log();
  }
  if (drainer_.joinable()) drainer_.join();
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
  if (!own_data_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(own_data_dir_, ignored);
  }
}

int TerndProcess::stop(int signal) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, signal);
  int status = wait_for_exit(pid_, kExitTimeout);
  if (status == -1) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
  return status;
}

std::string TerndProcess::log() const {
  std::lock_guard lock(log_mutex_);
  return log_;
}

bool TerndProcess::wait_for_log(const std::string& text) {
  std::unique_lock lock(log_mutex_);
  return log_grew_.wait_for(lock, kExitTimeout,
                            [&] { return log_.find(text) != std::string::npos; });
}

// Keeps the pipe empty so the server never blocks on logging; ends when the server exits.
void TerndProcess::drain_stderr() {
  char chunk[4096];
  ssize_t n;
  while ((n = ::read(stderr_fd_, chunk, sizeof chunk)) > 0) {
    std::lock_guard lock(log_mutex_);
    log_.append(chunk, static_cast<size_t>(n));
    log_grew_.notify_all();
  }
}

ConfigFile::ConfigFile(const std::string& text) {
  const char* tmp = ::getenv("TMPDIR");
  std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/tern-e2e-config-XXXXXX.toml";
  const int fd = ::mkstemps(name.data(), 5);
  EXPECT_GE(fd, 0) << "cannot create " << name;
  if (fd < 0) return;
  EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
  path_ = name;
}

ConfigFile::~ConfigFile() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

}  // namespace tern::e2e
