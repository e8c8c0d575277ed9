// Every statistic of the table, as the Prometheus view shows it, passes Prometheus's own
// checker (`promtool check metrics`, Debian's prometheus package): syntax, one HELP and TYPE
// per family, and its lint (counters end in _total, base units, no duplicate series).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "metrics/prometheus_view.h"
#include "metrics/stats.h"

namespace tern::metrics {
namespace {

constexpr const char* kPromtool = "/usr/bin/promtool";

// promtool's verdict on `text`: its exit status and what it printed.
std::pair<int, std::string> promtool_check(const std::string& text) {
  const std::string dir = ::testing::TempDir();
  const std::string input = dir + "metrics-" + std::to_string(::getpid()) + ".prom";
  const std::string output = input + ".out";
  std::ofstream(input) << text;
  const std::string command =
      std::string(kPromtool) + " check metrics < " + input + " > " + output + " 2>&1";
  const int status = std::system(command.c_str());
  std::stringstream printed;
  printed << std::ifstream(output).rdbuf();
  std::remove(input.c_str());
  std::remove(output.c_str());
  return {WEXITSTATUS(status), printed.str()};
}

// Every Prometheus statistic of the table, for two buckets, with the run-time labels their
// owners add.
std::string every_statistic() {
  LatencyHistogram histogram;
  for (uint64_t ns = 100; ns < 50'000'000'000; ns *= 3) histogram.record(ns, 1);
  PrometheusView view;
  for (const char* bucket : {"default", "b\"q\\uote"}) {
    LabelScope label(view, "bucket", bucket);
    for (const StatDef* def : stat::all) {
      if (def->type == Type::Histogram) {
        LabelScope opcode(view, "opcode", "GET");
        view.add_histogram(*def, histogram.snapshot());
      } else if (def->key.starts_with("collection_ops")) {
        LabelScope scope(view, "scope", "_default");
        LabelScope collection(view, "collection", "_default");
        view.add(*def, 3);
      } else if (def->key == "cmd_results") {
        LabelScope opcode(view, "opcode", "GET");
        LabelScope result(view, "result", "success");
        view.add(*def, 3);
      } else {
        view.add(*def, 3);
      }
    }
  }
  return view.text();
}

TEST(PromtoolTest, EveryStatisticPassesPromtool) {
  if (::access(kPromtool, X_OK) != 0) GTEST_SKIP() << kPromtool << " is not installed";
  const std::string text = every_statistic();
  const auto [status, printed] = promtool_check(text);
  EXPECT_EQ(status, 0) << printed << "\n" << text;
  EXPECT_EQ(printed, "");
}

// The check above can fail: promtool refuses what breaks its rules.
TEST(PromtoolTest, PromtoolRefusesWhatBreaksItsRules) {
  if (::access(kPromtool, X_OK) != 0) GTEST_SKIP() << kPromtool << " is not installed";
  EXPECT_NE(promtool_check("# HELP kv_x x\n# TYPE kv_x counter\nkv_x 1\n").first, 0);
  EXPECT_NE(promtool_check("# TYPE kv_x gauge\nkv_x 1\n").first, 0);  // no help
  // A family declared twice (samples of one family not kept together).
  EXPECT_NE(promtool_check("# HELP kv_x x\n# TYPE kv_x gauge\nkv_x 1\n"
                           "# HELP kv_x x\n# TYPE kv_x gauge\nkv_x{a=\"b\"} 1\n")
                .first,
            0);
  EXPECT_NE(promtool_check("# HELP kv_x x\n# TYPE kv_x gauge\nkv_x{a=\"b} 1\n").first, 0);
}

}  // namespace
}  // namespace tern::metrics
