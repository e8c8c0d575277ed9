// ternd's command line, run as a real process: --help and --version exit 0, and every bad
// value is refused at start with exit 64 (EX_USAGE) and a message naming the flag and what it
// accepts, rather than accepted and then corrupting size arithmetic. A --config file that
// cannot be read is a usage error too; one that can be read but is invalid stops start-up
// with exit 1 and the file's own error. --hash-password prints lines a config file accepts.
// A value at a limit is applied, not only accepted: STAT settings shows it, and so does what
// the server then does.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "bulk_requests.h"
#include "common/eventually.h"
#include "task_runs.h"
#include "ternd_process.h"
#include "test_client.h"

namespace tern::e2e {
namespace {

constexpr int kUsageError = 64;

struct Outcome {
  int exit_code = -1;
  std::string stdout_text;
  std::string stderr_text;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "ternd-options-" + std::to_string(getpid()) + "-" + name;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Runs ternd with `args`, and `input` on its standard input.
Outcome run_ternd(const std::string& args, const std::string& input = "") {
  const std::string out = temp_path("run");
  write_file(out + ".in", input);
  // A value wrongly accepted starts a server: `timeout` turns that into a failure, not a hang.
  const std::string command = "timeout 30 " + std::string(TERND_PATH) + " --port 0 " + args +
                              " <" + out + ".in >" + out + ".out 2>" + out + ".err";
  const int status = std::system(command.c_str());
  Outcome outcome{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out + ".out"),
                  read_file(out + ".err")};
  for (const char* suffix : {".in", ".out", ".err"}) std::filesystem::remove(out + suffix);
  return outcome;
}

// `args` must be refused as a usage error with a message containing `message`.
void expect_refused(const std::string& args, const std::string& message) {
  const Outcome outcome = run_ternd(args);
  EXPECT_EQ(outcome.exit_code, kUsageError) << args;
  EXPECT_NE(outcome.stderr_text.find(message), std::string::npos)
      << args << ": expected \"" << message << "\" in: " << outcome.stderr_text;
}

TEST(OptionsTest, BadNumbersNameTheFlagAndItsRange) {
  for (const char* value : {"99999", "-1", "abc", "1.5"}) {
    expect_refused(std::string("--port=") + value,
                   std::string("--port: must be a whole number 0-65535 (got '") + value + "')");
  }
  for (const char* value : {"0", "1025", "-3", "two"}) {
    expect_refused(std::string("--threads ") + value, "--threads: must be a whole number 1-1024");
  }
  for (const char* value : {"0", "1073741825", "-1", "99999999999999999999999"}) {
    expect_refused(std::string("--memory-mb ") + value,
                   "--memory-mb: must be a whole number 1-1073741824");
  }
  for (const char* value : {"0", "5000000000", "-1"}) {
    expect_refused(std::string("--max-item-size ") + value,
                   "--max-item-size: must be a whole number 1-1073741824");
  }
  for (const char* value : {"0", "1048577", "-1"}) {
    expect_refused(std::string("--max-connections ") + value,
                   "--max-connections: must be a whole number 1-1048576");
  }
  for (const char* value : {"0", "-1", "nan", "inf", "1e300", "soon"}) {
    expect_refused(std::string("--expiry-pager-interval ") + value,
                   "--expiry-pager-interval: must be a number 0.001-31536000");
  }
}

TEST(OptionsTest, BadAddressAndSwitchValuesNameTheFlag) {
  expect_refused("--listen localhost-ish", "--listen: must be an IPv4 or IPv6 address");
  expect_refused("--verbose=maybe", "--verbose: takes no value");
  expect_refused("--io poll", "--io: must be epoll or uring (got 'poll')");
}

TEST(OptionsTest, UnknownFlagsAndStrayArgumentsAreUsageErrors) {
  expect_refused("--no-such-flag", "--no-such-flag");
  expect_refused("stray", "stray");
  expect_refused("--port", "--port");
}

TEST(OptionsTest, HelpListsEveryFlagWithItsDefaultAndExitsZero) {
  const Outcome outcome = run_ternd("--help");
  EXPECT_EQ(outcome.exit_code, 0);
  for (const char* line : {"--port 0-65535", "(default: 11210)", "--listen ADDRESS",
                           "(default: 127.0.0.1)", "--threads 1-1024",
                           "(default: number of cores)", "--memory-mb 1-1073741824",
                           "(default: 1024)", "--max-item-size 1-1073741824",
                           "(default: 20971520)", "--max-connections 1-1048576",
                           "(default: 4096)", "--expiry-pager-interval 0.001-31536000",
                           "(default: 60)", "--verbose", "(default: off)", "--version",
                           "--config FILE", "(default: one bucket 'default', no login)",
                           "--hash-password", "--io epoll|uring", "--listen and --port override",
                           "64 for a usage error", "the --config file is invalid"}) {
    EXPECT_NE(outcome.stdout_text.find(line), std::string::npos)
        << "--help lacks \"" << line << "\":\n" << outcome.stdout_text;
  }
}

TEST(OptionsTest, VersionPrintsTheVersionAndExitsZero) {
  const Outcome outcome = run_ternd("--version");
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(outcome.stdout_text, "ternd 1.0.0-tern\n");
}

// The threads of `pid` that run an event loop: those named as the process itself, less its
// main thread. Every other thread names itself (the executor's, the scheduler, RocksDB's),
// or is the kernel's (io_uring's iou-wrk-*).
size_t event_loop_threads(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  const std::string own_name = read_file(proc + "/comm");
  size_t named_so = 0;
  for (const auto& task : std::filesystem::directory_iterator(proc + "/task")) {
    if (read_file(task.path().string() + "/comm") == own_name) ++named_so;
  }
  EXPECT_GE(named_so, 1u) << "no main thread in " << proc;
  return named_so - std::min<size_t>(named_so, 1);
}

// A request whose magic byte is not a request's: ternd logs a warning and closes.
void send_bad_magic(uint16_t port) {
  Request bad;
  bad.magic = 0x42;
  Client client(port);
  ASSERT_TRUE(client.send(bad));
  EXPECT_TRUE(client.closed_by_peer());
}

// STAT settings shows each of `expected` (name: value).
void expect_settings(Client& client, const std::map<std::string, std::string>& expected) {
  std::map<std::string, std::string> settings = client.stats("settings");
  for (const auto& [name, value] : expected) EXPECT_EQ(settings[name], value) << name;
}

// Each flag's value is applied, not only accepted: STAT settings shows it, and so does what
// the server does.
TEST(OptionsTest, ValuesAtTheLimitsStartTheServerAndTakeEffect) {
  // Not --threads 1024: that many threads would weigh on a busy machine for nothing. This 3
  // and the next test's 1 cannot both be the default (the number of cores): between them, a
  // --threads that is ignored shows.
  TerndProcess server({"--memory-mb", "1073741824", "--max-item-size", "1073741824",
                       "--max-connections", "1048576", "--expiry-pager-interval", "0.001",
                       "--verbose=no", "--threads", "3"});
  ASSERT_NE(server.port(), 0);
  Client client(server.port());
  expect_settings(client, {{"memory_mb", "1073741824"},
                           {"max_item_size", "1073741824"},
                           {"max_connections", "1048576"},
                           {"expiry_pager_interval", "0.001"},
                           {"verbose", "no"},
                           {"threads", "3"}});

  // The engine's quota in bytes is 2^50, not wrapped round.
  EXPECT_EQ(stat_number(client.stats(), "mem_quota"), 1073741824ull << 20);
  // A value past the default largest (20 MiB) is taken whole.
  const std::string past_default((20 << 20) + 1, 'v');
  EXPECT_EQ(client.call(store(Opcode::Set, "big", past_default)).status, Status::Success);
  EXPECT_EQ(client.call(simple(Opcode::Get, "big")).value.size(), past_default.size());
  EXPECT_EQ(event_loop_threads(server.pid()), 3u);
  // Every millisecond, not every minute (the default): the pager runs a hundred times well
  // within the bound, which only a broken server reaches.
  const auto ran_a_hundred_times = [&client] { return task_runs(client, "Expiry pager") >= 100; };
  EXPECT_TRUE(tern::testing::eventually(std::chrono::seconds(30), ran_a_hundred_times,
                                        std::chrono::milliseconds(50)))
      << task_runs(client, "Expiry pager") << " runs";

  // Without --verbose, no debug line: not the one each connection opened logs. The warning
  // logged after this connection opened bounds the wait for the log.
  send_bad_magic(server.port());
  ASSERT_TRUE(server.wait_for_log("bad magic byte 0x42")) << server.log();
  EXPECT_EQ(server.log().find("[debug]"), std::string::npos) << server.log();
}

// The smallest value of each limit, where an off-by-one shows: a 1-byte value is the largest
// taken, one connection the most served, 1 MiB the memory items may use, one event loop.
TEST(OptionsTest, ValuesAtTheLowerLimitsTakeEffect) {
  constexpr uint64_t kQuota = 1 << 20;
  TerndProcess server({"--memory-mb", "1", "--max-item-size", "1", "--max-connections", "1",
                       "--threads", "1", "--verbose"});
  ASSERT_NE(server.port(), 0);
  Client client(server.port());
  expect_settings(client, {{"memory_mb", "1"},
                           {"max_item_size", "1"},
                           {"max_connections", "1"},
                           {"threads", "1"},
                           {"verbose", "yes"}});

  EXPECT_EQ(client.call(store(Opcode::Set, "one", "1")).status, Status::Success);
  EXPECT_EQ(client.call(store(Opcode::Set, "two", "22")).status, Status::E2big);
  EXPECT_EQ(client.call(simple(Opcode::Get, "one")).value, "1");
  EXPECT_EQ(client.call(simple(Opcode::Get, "two")).status, Status::KeyEnoent);

  // Twice the quota in 1-byte values: every write succeeds by evicting older items, and the
  // memory items used never passed 1 MiB (mem_used_highwat is its peak).
  constexpr int kWrites = 2 * kQuota / 164;  // an item is charged its key, value and 164 bytes
  int failed = 0;
  for (int i = 0; i < kWrites; ++i) {
    if (client.call(store(Opcode::Set, "k" + std::to_string(i), "v")).status != Status::Success) {
      ++failed;
    }
  }
  EXPECT_EQ(failed, 0);
  std::map<std::string, std::string> stats = client.stats();
  EXPECT_EQ(stat_number(stats, "mem_quota"), kQuota);
  EXPECT_GT(stat_number(stats, "evictions"), 0u);
  EXPECT_LE(stat_number(stats, "mem_used_highwat"), kQuota);

  // One connection: the next is refused (the kernel accepts it, ternd closes it).
  Client refused(server.port());
  EXPECT_TRUE(refused.closed_by_peer());
  EXPECT_EQ(stat_number(client.stats(), "rejected_connections"), 1u);

  EXPECT_EQ(event_loop_threads(server.pid()), 1u);
  // --verbose: each connection opened is logged, at debug level.
  EXPECT_TRUE(server.wait_for_log("[debug] connection from")) << server.log();
}

TEST(OptionsTest, AConfigFileThatCannotBeReadIsAUsageError) {
  expect_refused("--config /no/such/dir/tern.toml",
                 "--config: cannot read '/no/such/dir/tern.toml': No such file or directory");
  expect_refused("--config " + ::testing::TempDir(), "is a directory, not a file");
  expect_refused("--config", "--config");
}

// The rest need main to act on --config and --hash-password.

TEST(OptionsTest, AnInvalidConfigFileStopsStartUpNamingFileLineAndProblem) {
  const std::string path = temp_path("invalid.toml");
  write_file(path, "[[bucket]]\nname = \"b\"\nmemory_quota_mb = 0\n");
  const Outcome outcome = run_ternd("--config " + path);
  EXPECT_EQ(outcome.exit_code, 1);
  const std::string message =
      path + ":3:19: bucket[0].memory_quota_mb: must be a whole number 1-1073741824 (got 0)";
  EXPECT_NE(outcome.stderr_text.find(message), std::string::npos) << outcome.stderr_text;
  std::filesystem::remove(path);
}

TEST(OptionsTest, TlsSettingsThatCannotWorkStopStartUpSayingWhy) {
  expect_refused("--tls-client-auth sometimes",
                 "--tls-client-auth: must be disabled, enabled or mandatory (got 'sometimes')");
  expect_refused("--tls-certificate /no/such.pem", "--tls-certificate: cannot read '/no/such.pem'");
  expect_refused("--tls-port 70000", "--tls-port: must be a whole number 0-65535 or none");

  const Outcome no_certificate = run_ternd("--mgmt-port none --tls-port 0");
  EXPECT_EQ(no_certificate.exit_code, 1);
  EXPECT_NE(no_certificate.stderr_text.find("a TLS port needs a certificate"), std::string::npos)
      << no_certificate.stderr_text;

  const std::string certs = temp_path("certs");
  ASSERT_EQ(std::system(("bash " TERN_TESTDATA_DIR "/../scripts/test-certs.sh " + certs).c_str()),
            0);
  const std::string ports = "--mgmt-port none --tls-port 0 --mgmt-tls-port 0 ";
  const Outcome no_key = run_ternd(ports + "--tls-certificate " + certs + "/server.pem");
  EXPECT_EQ(no_key.exit_code, 1);
  EXPECT_NE(no_key.stderr_text.find("needs its private key: --tls-private-key"), std::string::npos)
      << no_key.stderr_text;
  const Outcome mismatch = run_ternd(ports + "--tls-certificate " + certs +
                                     "/server.pem --tls-private-key " + certs + "/other.key");
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_NE(mismatch.stderr_text.find(certs + "/other.key"), std::string::npos)
      << mismatch.stderr_text;
  const Outcome no_client_ca =
      run_ternd(ports + "--tls-certificate " + certs + "/server.pem --tls-private-key " + certs +
                "/server.key --tls-client-auth mandatory");
  EXPECT_EQ(no_client_ca.exit_code, 1);
  EXPECT_NE(no_client_ca.stderr_text.find("needs the client certificates' CA: --tls-client-ca"),
            std::string::npos)
      << no_client_ca.stderr_text;
  std::filesystem::remove_all(certs);
}

TEST(OptionsTest, TheDevConfigStartsWithAWarningAndTheCommandLinePortWins) {
  // dev.toml says port 11210; TerndProcess passes --port 0, which must win.
  TerndProcess server({"--config", TERN_TESTDATA_DIR "/../server/config/dev.toml"});
  EXPECT_NE(server.port(), 0);
  EXPECT_NE(server.port(), 11210);
  EXPECT_TRUE(server.wait_for_log("user 'Administrator' has a clear-text password"))
      << server.log();
}

TEST(OptionsTest, HashPasswordPrintsLinesThatAConfigFileAccepts) {
  const Outcome outcome = run_ternd("--hash-password", "correct horse\n");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
  std::istringstream lines(outcome.stdout_text);
  std::string line;
  for (const char* key : {"scram_sha512 = { salt = \"", "scram_sha256 = { salt = \"",
                          "scram_sha1 = { salt = \""}) {
    ASSERT_TRUE(std::getline(lines, line)) << outcome.stdout_text;
    EXPECT_EQ(line.rfind(key, 0), 0u) << line;
    EXPECT_NE(line.find("iterations = 15000, stored_key = \""), std::string::npos) << line;
  }
  EXPECT_FALSE(std::getline(lines, line)) << "more than three lines: " << outcome.stdout_text;
  // Fresh salts every time.
  EXPECT_NE(run_ternd("--hash-password", "correct horse\n").stdout_text, outcome.stdout_text);

  const std::string path = temp_path("hashed.toml");
  write_file(path,
             "[[bucket]]\nname = \"b\"\nmemory_quota_mb = 16\n"
             "[[user]]\nname = \"app\"\nbuckets = [\"b\"]\n" +
                 outcome.stdout_text);
  TerndProcess server({"--config", path});
  std::filesystem::remove(path);  // read at start-up
  EXPECT_NE(server.port(), 0);
  EXPECT_EQ(server.log().find("clear-text"), std::string::npos) << server.log();
}

TEST(OptionsTest, HashPasswordRefusesAnEmptyOrMissingPassword) {
  for (const char* input : {"", "\n"}) {
    const Outcome outcome = run_ternd("--hash-password", input);
    EXPECT_EQ(outcome.exit_code, 1) << "input: '" << input << "'";
    EXPECT_EQ(outcome.stdout_text, "");
    EXPECT_NE(outcome.stderr_text.find("ternd --hash-password: "), std::string::npos)
        << outcome.stderr_text;
  }
}

}  // namespace
}  // namespace tern::e2e
