#pragma once
// Where a statistic's owner hands its values, at a STAT or a scrape: a view of the one table
// (stats.def). StatView writes STAT pairs, PrometheusView the text exposition format. The
// owner says which statistic (its StatDef) and the value; the view decides whether and how
// to show it (a STAT-only statistic is skipped by Prometheus, a Prometheus-only one by STAT).
//
// Labels that vary at run time (bucket="default", opcode="GET") are held by the collector
// while a LabelScope lives; views that have no labels (STAT) ignore them.
//
// Not thread-safe: one collector serves one STAT or scrape on one thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/histogram.h"
#include "metrics/stat_def.h"

namespace tern::metrics {

class Collector {
 public:
  virtual ~Collector() = default;

  virtual void add(const StatDef& stat, uint64_t value) = 0;
  // A value that is text (a version, a state, JSON). Prometheus shows no text.
  virtual void add_text(const StatDef& stat, std::string_view value) = 0;
  virtual void add_histogram(const StatDef& stat, const HistogramSnapshot& histogram) = 0;

  // Whether this view shows the statistic at all: lets an owner skip work for one it does
  // not (a per-opcode walk for STAT, a JSON dump for Prometheus).
  virtual bool wants(const StatDef& stat) const = 0;

  // The labels in force, outermost first.
  using Labels = std::vector<std::pair<std::string_view, std::string>>;
  const Labels& labels() const { return labels_; }

 private:
  friend class LabelScope;
  Labels labels_;
};

// Adds a label to every value collected while it lives.
class LabelScope {
 public:
  LabelScope(Collector& collector, std::string_view name, std::string value)
      : collector_(collector) {
    collector_.labels_.emplace_back(name, std::move(value));
  }
  ~LabelScope() { collector_.labels_.pop_back(); }
  LabelScope(const LabelScope&) = delete;
  LabelScope& operator=(const LabelScope&) = delete;

 private:
  Collector& collector_;
};

}  // namespace tern::metrics
