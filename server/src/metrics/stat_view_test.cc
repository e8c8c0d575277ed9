#include "metrics/stat_view.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "metrics/stats.h"

namespace tern::metrics {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(StatViewTest, AValueGoesOutUnderEachStatNameInDecimal) {
  Pairs pairs;
  StatView view(
      [&pairs](std::string_view key, std::string_view value) { pairs.emplace_back(key, value); });
  view.add(stat::mem_used, 1234);
  view.add_text(stat::ep_warmup_state, "done");
  EXPECT_EQ(pairs, (Pairs{{"bytes", "1234"}, {"mem_used", "1234"}, {"ep_warmup_state", "done"}}));
}

TEST(StatViewTest, PrometheusOnlyStatisticsAndLabelsAreNotShown) {
  Pairs pairs;
  StatView view(
      [&pairs](std::string_view key, std::string_view value) { pairs.emplace_back(key, value); });
  LabelScope bucket(view, "bucket", "default");
  EXPECT_FALSE(view.wants(stat::cmd_duration));
  view.add(stat::task_runs, 5);
  view.add_histogram(stat::cmd_duration, HistogramSnapshot{});
  view.add(stat::get_hits, 2);
  EXPECT_EQ(pairs, (Pairs{{"get_hits", "2"}}));
}

}  // namespace
}  // namespace tern::metrics
