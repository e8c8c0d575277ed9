// ternd's command line, run as a real process: --help and --version exit 0, and every bad
// value is refused at start with exit 64 (EX_USAGE) and a message naming the flag and what it
// accepts, rather than accepted and then corrupting size arithmetic.

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

Outcome run_ternd(const std::string& args) {
  const std::string out = ::testing::TempDir() + "ternd-options-" + std::to_string(getpid());
  // A value wrongly accepted starts a server: `timeout` turns that into a failure, not a hang.
  const std::string command = "timeout 30 " + std::string(TERND_PATH) + " --port 0 " + args +
                              " >" + out + ".out 2>" + out + ".err";
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
                           "64 for a usage error"}) {
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

}  // namespace
}  // namespace tern::e2e
