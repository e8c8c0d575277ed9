#pragma once
// The Prometheus view of the table: the text exposition format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/). Values are grouped by
// metric family, each family once with its # HELP and # TYPE lines, whatever order the
// owners collect in (every bucket's kv_ops together). Each sample's labels are the
// collector's (bucket="..."), then the statistic's own (op="get"); label values and help
// text are escaped. Values in a unit below the base unit are shown scaled (nanoseconds as
// seconds). Histograms go out as cumulative _bucket{le="..."} lines, _sum and _count.
// STAT-only statistics and text values are not shown.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "metrics/collector.h"

namespace tern::metrics {

// The Content-Type of the format.
inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4";

class PrometheusView final : public Collector {
 public:
  void add(const StatDef& stat, uint64_t value) override;
  void add_text(const StatDef&, std::string_view) override {}
  void add_histogram(const StatDef& stat, const HistogramSnapshot& histogram) override;
  bool wants(const StatDef& stat) const override { return stat.in_prometheus(); }

  // The exposition of everything collected so far.
  std::string text() const;

 private:
  struct Family {
    std::string_view name;
    const StatDef* first;  // its help and type
    std::string samples;
  };
  Family& family(const StatDef& stat);
  // The sample's labels, escaped: the collector's, then the statistic's (no braces).
  std::string label_text(const StatDef& stat) const;
  // The upper bounds of a histogram's buckets as shown in `unit`'s base unit.
  static const std::array<std::string, kHistogramBuckets>& bound_texts(Unit unit);

  std::vector<Family> families_;
  std::unordered_map<std::string_view, size_t> index_;
};

// Escapes a label value: backslash, double quote and newline.
void append_label_value(std::string& out, std::string_view value);

}  // namespace tern::metrics
