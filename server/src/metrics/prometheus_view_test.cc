#include "metrics/prometheus_view.h"

#include <gtest/gtest.h>

#include <string>

#include "metrics/stats.h"

namespace tern::metrics {
namespace {

TEST(PrometheusViewTest, AFamilyIsDeclaredOnceWithItsSamplesTogether) {
  PrometheusView view;
  {
    LabelScope bucket(view, "bucket", "a");
    view.add(stat::get_hits, 3);
    view.add(stat::curr_items, 7);
  }
  {
    LabelScope bucket(view, "bucket", "b");
    view.add(stat::get_hits, 4);
    view.add(stat::cmd_set, 1);
  }
  EXPECT_EQ(view.text(),
            "# HELP kv_ops Operations, by kind and result\n"
            "# TYPE kv_ops untyped\n"
            "kv_ops{bucket=\"a\",op=\"get\",result=\"hit\"} 3\n"
            "kv_ops{bucket=\"b\",op=\"get\",result=\"hit\"} 4\n"
            "kv_ops{bucket=\"b\",op=\"set\"} 1\n"
            "# HELP kv_curr_items Live items (tombstones are not items), resident or not\n"
            "# TYPE kv_curr_items gauge\n"
            "kv_curr_items{bucket=\"a\"} 7\n");
}

TEST(PrometheusViewTest, LabelValuesAreEscaped) {
  PrometheusView view;
  LabelScope bucket(view, "bucket", "a\"b\\c\nd");
  view.add(stat::curr_items, 1);
  EXPECT_NE(view.text().find("kv_curr_items{bucket=\"a\\\"b\\\\c\\nd\"} 1\n"), std::string::npos)
      << view.text();
}

TEST(PrometheusViewTest, UnlabelledSamplesHaveNoBraces) {
  PrometheusView view;
  view.add(stat::curr_connections, 2);
  EXPECT_NE(view.text().find("\nkv_curr_connections 2\n"), std::string::npos) << view.text();
}

TEST(PrometheusViewTest, ValuesBelowTheBaseUnitAreScaled) {
  PrometheusView view;
  view.add(stat::ep_warmup_time_ms, 1500);  // milliseconds
  view.add(stat::task_run_time, 250);       // microseconds
  EXPECT_NE(view.text().find("kv_ep_warmup_time_seconds 1.5\n"), std::string::npos);
  EXPECT_NE(view.text().find("kv_task_run_seconds_total 0.00025\n"), std::string::npos)
      << view.text();
}

TEST(PrometheusViewTest, StatOnlyStatisticsAndTextAreNotShown) {
  PrometheusView view;
  view.add(stat::cmd_get, 5);
  view.add_text(stat::version, "1.0");
  view.add(stat::pid, 42);
  EXPECT_EQ(view.text(), "");
  EXPECT_FALSE(view.wants(stat::tasks));
}

TEST(PrometheusViewTest, HistogramsAreCumulativeInSecondsWithSumAndCount) {
  LatencyHistogram histogram;
  histogram.record(200);   // <= 256 ns
  histogram.record(1000);  // <= 1024 ns
  histogram.record(1000);
  histogram.record(20'000'000'000);  // past the last bound: only in +Inf
  PrometheusView view;
  LabelScope opcode(view, "opcode", "GET");
  view.add_histogram(stat::cmd_duration, histogram.snapshot());
  const std::string text = view.text();
  EXPECT_NE(text.find("# TYPE kv_cmd_duration_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("kv_cmd_duration_seconds_bucket{opcode=\"GET\",le=\"2.56e-07\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kv_cmd_duration_seconds_bucket{opcode=\"GET\",le=\"5.12e-07\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("kv_cmd_duration_seconds_bucket{opcode=\"GET\",le=\"1.024e-06\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("kv_cmd_duration_seconds_bucket{opcode=\"GET\",le=\"+Inf\"} 4\n"),
            std::string::npos);
  EXPECT_NE(text.find("kv_cmd_duration_seconds_sum{opcode=\"GET\"} 20.0000022\n"),
            std::string::npos);
  EXPECT_NE(text.find("kv_cmd_duration_seconds_count{opcode=\"GET\"} 4\n"), std::string::npos);
}

}  // namespace
}  // namespace tern::metrics
