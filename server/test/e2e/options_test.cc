// ternd's command line: out-of-range values are refused at start with a message naming the
// flag, rather than accepted and then corrupting size arithmetic.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace tern::e2e {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string stderr_text;
};

Outcome run_ternd(const std::string& args) {
  const std::string log = ::testing::TempDir() + "ternd-options-" + std::to_string(getpid());
  // A value wrongly accepted starts a server: `timeout` turns that into a failure, not a hang.
  const std::string command =
      "timeout 5 " + std::string(TERND_PATH) + " --port 0 " + args + " 2>" + log;
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

TEST(OptionsTest, OutOfRangeValuesAreRefusedWithTheFlagNamed) {
  for (const char* args : {"--memory-mb 0", "--memory-mb 99999999999999",
                           "--max-item-size 0", "--max-item-size 5000000000",
                           "--threads 0", "--max-connections 0", "--expiry-pager-interval 0"}) {
    const Outcome outcome = run_ternd(args);
    EXPECT_NE(outcome.exit_code, 0) << args;
    const std::string flag = std::string(args).substr(0, std::string(args).find(' '));
    EXPECT_NE(outcome.stderr_text.find(flag), std::string::npos)
        << args << ": the error does not name the flag: " << outcome.stderr_text;
  }
}

TEST(OptionsTest, UnknownFlagIsRefused) {
  const Outcome outcome = run_ternd("--no-such-flag");
  EXPECT_NE(outcome.exit_code, 0);
  EXPECT_NE(outcome.stderr_text.find("--no-such-flag"), std::string::npos) << outcome.stderr_text;
}

}  // namespace
}  // namespace tern::e2e
