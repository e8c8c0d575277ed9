// Every statistic of the table, as the Prometheus view shows it, passes Prometheus's own
// checker (`promtool check metrics`, Debian's prometheus package): syntax, one HELP and TYPE
// per family, and its lint (counters end in _total, base units, no duplicate series).
#include <gtest/gtest.h>

#include <string>

#include "metrics/prometheus_view.h"
#include "metrics/promtool_check.h"
#include "metrics/stats.h"

namespace tern::metrics {
namespace {

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
  if (!promtool_installed()) GTEST_SKIP() << kPromtool << " is not installed";
  const std::string text = every_statistic();
  const auto [status, printed] = promtool_check(text, ::testing::TempDir());
  EXPECT_EQ(status, 0) << printed << "\n" << text;
  EXPECT_EQ(printed, "");
}

// The check above can fail: promtool refuses what breaks its rules.
TEST(PromtoolTest, PromtoolRefusesWhatBreaksItsRules) {
  if (!promtool_installed()) GTEST_SKIP() << kPromtool << " is not installed";
  const auto refused = [](const std::string& text) {
    return promtool_check(text, ::testing::TempDir()).first != 0;
  };
  EXPECT_TRUE(refused("# HELP kv_x x\n# TYPE kv_x counter\nkv_x 1\n"));  // no _total
  EXPECT_TRUE(refused("# TYPE kv_x gauge\nkv_x 1\n"));                   // no help
  // A family declared twice (its samples not kept together).
  EXPECT_TRUE(
      refused("# HELP kv_x x\n# TYPE kv_x gauge\nkv_x 1\n"
              "# HELP kv_x x\n# TYPE kv_x gauge\nkv_x{a=\"b\"} 1\n"));
  EXPECT_TRUE(refused("# HELP kv_x x\n# TYPE kv_x gauge\nkv_x{a=\"b} 1\n"));  // unescaped
}

}  // namespace
}  // namespace tern::metrics
