#pragma once
// The STAT view of the table: each value goes out under each of its statistic's STAT names,
// as decimal text, in the order the owner collects them. Labels, histograms and
// Prometheus-only statistics are not shown.

#include <functional>
#include <string_view>

#include "metrics/collector.h"

namespace tern::metrics {

class StatView final : public Collector {
 public:
  // Receives one STAT key/value pair.
  using Emit = std::function<void(std::string_view key, std::string_view value)>;
  explicit StatView(Emit emit) : emit_(std::move(emit)) {}

  void add(const StatDef& stat, uint64_t value) override;
  void add_text(const StatDef& stat, std::string_view value) override;
  void add_histogram(const StatDef&, const HistogramSnapshot&) override {}
  bool wants(const StatDef& stat) const override { return stat.in_stat(); }

 private:
  Emit emit_;
};

}  // namespace tern::metrics
