#pragma once
// What a statistic is, as the one table (metrics/stats.def) declares it: how STAT names it,
// how Prometheus names and labels it, its type and its unit. A statistic's value lives with
// whatever counts it (an engine shard, the server, a task); at a STAT or a scrape its owner
// hands the value to a Collector with the statistic's StatDef, and the collector's view
// decides how it is shown (metrics/collector.h).

#include <array>
#include <cstddef>
#include <string_view>

namespace tern::metrics {

// Prometheus metric types. Untyped is for a monotonic count that kv_engine names without the
// "_total" suffix Prometheus asks of a counter (kv_ops, kv_ep_bg_fetched): ternd keeps
// kv_engine's name, so that Couchbase's dashboards work, and promtool's lint stays clean.
enum class Type { Counter, Gauge, Untyped, Histogram };

// The unit a value is counted in. Prometheus wants base units: a value in nanoseconds,
// microseconds or milliseconds is shown in seconds (scaled), bytes as bytes.
enum class Unit { None, Bytes, Seconds, Milliseconds, Microseconds, Nanoseconds };

// What a value in `unit` is divided by to be in its base unit. (A division by an exact power
// of ten rounds once, so 17704 ns shows as 1.7704e-05, not 1.7704000000000002e-05.)
constexpr double base_unit_divisor(Unit unit) {
  switch (unit) {
    case Unit::Milliseconds:
      return 1e3;
    case Unit::Microseconds:
      return 1e6;
    case Unit::Nanoseconds:
      return 1e9;
    default:
      return 1.0;
  }
}

std::string_view type_name(Type type);  // "counter", "gauge", "untyped", "histogram"

struct StatDef {
  std::string_view key;  // unique among all statistics: the table's name for it
  Type type;
  Unit unit;
  // The Prometheus metric family, in full (kv_engine's where it has one); empty: STAT only.
  // Several statistics may share a family, told apart by their labels.
  std::string_view family;
  // Fixed labels as name, value pairs (name, value, name, value); empty names are unused.
  std::array<std::string_view, 4> labels;
  std::string_view help;
  // The STAT names it is reported under, in order (memcached's and Couchbase's may both be);
  // none: Prometheus only.
  std::array<std::string_view, 2> stat_names;

  constexpr bool in_prometheus() const { return !family.empty(); }
  constexpr bool in_stat() const { return !stat_names[0].empty(); }
};

}  // namespace tern::metrics
