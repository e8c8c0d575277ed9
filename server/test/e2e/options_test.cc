// ternd's command line, run as a real process: --help and --version exit 0, and every bad
// value is refused at start with exit 64 (EX_USAGE) and a message naming the flag and what it
// accepts, rather than accepted and then corrupting size arithmetic. A --config file that
// cannot be read is a usage error too; one that can be read but is invalid stops start-up
// with exit 1 and the file's own error. --hash-password prints lines a config file accepts.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "ternd_process.h"

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
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out + ".out"),
          read_file(out + ".err")};
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

TEST(OptionsTest, ValuesAtTheLimitsStartTheServer) {
  // Not --threads 1024: that many threads would weigh on a busy machine for nothing.
  TerndProcess server({"--memory-mb", "1073741824", "--max-item-size", "1073741824",
                       "--max-connections", "1048576", "--expiry-pager-interval", "0.001",
                       "--verbose=no"});
  EXPECT_NE(server.port(), 0);
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
