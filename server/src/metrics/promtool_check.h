#pragma once
// For tests: Prometheus's own checker, `promtool check metrics` (Debian's prometheus
// package), run on a text exposition. Header-only so that the unit tests and the end-to-end
// tests (which check a live ternd's /metrics) share it.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace tern::metrics {

inline constexpr const char* kPromtool = "/usr/bin/promtool";

inline bool promtool_installed() { return ::access(kPromtool, X_OK) == 0; }

// promtool's verdict on `text`: its exit status (0: accepted) and what it printed. `scratch`
// is a directory for the files it reads and writes (a test's temporary directory).
inline std::pair<int, std::string> promtool_check(const std::string& text,
                                                  const std::string& scratch) {
  static int calls = 0;
  const std::string input =
      scratch + "/metrics-" + std::to_string(::getpid()) + "-" + std::to_string(++calls) + ".prom";
  const std::string output = input + ".out";
  std::ofstream(input) << text;
  const std::string command =
      std::string(kPromtool) + " check metrics < " + input + " > " + output + " 2>&1";
  const int status = std::system(command.c_str());
  std::stringstream printed;
  printed << std::ifstream(output).rdbuf();
  std::remove(input.c_str());
  std::remove(output.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, printed.str()};
}

}  // namespace tern::metrics
