#include "metrics/prometheus_view.h"

#include <fmt/format.h>

namespace tern::metrics {

namespace {

// A sample value: integers exactly, scaled values as the shortest text that reads back.
void append_value(std::string& out, uint64_t value, Unit unit) {
  const double divisor = base_unit_divisor(unit);
  if (divisor == 1.0) {
    fmt::format_to(std::back_inserter(out), "{}", value);
  } else {
    fmt::format_to(std::back_inserter(out), "{}", static_cast<double>(value) / divisor);
  }
}

// Help text escapes backslash and newline only.
void append_help(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

}  // namespace

std::string_view type_name(Type type) {
  switch (type) {
    case Type::Counter:
      return "counter";
    case Type::Gauge:
      return "gauge";
    case Type::Untyped:
      return "untyped";
    case Type::Histogram:
      return "histogram";
  }
  return "untyped";
}

void append_label_value(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

PrometheusView::Family& PrometheusView::family(const StatDef& stat) {
  auto [it, added] = index_.emplace(stat.family, families_.size());
  if (added) families_.push_back(Family{.name = stat.family, .first = &stat, .samples = {}});
  return families_[it->second];
}

void PrometheusView::append_series(std::string& out, std::string_view name, std::string_view suffix,
                                   const StatDef& stat, std::string_view le) const {
  out += name;
  out += suffix;
  bool any = false;
  const auto label = [&out, &any](std::string_view key, std::string_view value) {
    out += any ? ',' : '{';
    any = true;
    out += key;
    out += "=\"";
    append_label_value(out, value);
    out += '"';
  };
  for (const auto& [key, value] : labels()) label(key, value);
  for (size_t i = 0; i + 1 < stat.labels.size(); i += 2) {
    if (!stat.labels[i].empty()) label(stat.labels[i], stat.labels[i + 1]);
  }
  if (!le.empty()) label("le", le);
  if (any) out += '}';
  out += ' ';
}

void PrometheusView::add(const StatDef& stat, uint64_t value) {
  if (!stat.in_prometheus()) return;
  Family& f = family(stat);
  append_series(f.samples, f.name, "", stat, "");
  append_value(f.samples, value, stat.unit);
  f.samples += '\n';
}

void PrometheusView::add_histogram(const StatDef& stat, const HistogramSnapshot& histogram) {
  if (!stat.in_prometheus()) return;
  Family& f = family(stat);
  // The histogram's bounds are in nanoseconds; the family's unit says how to show them.
  const double divisor = base_unit_divisor(stat.unit);
  uint64_t cumulative = 0;
  for (size_t k = 0; k < kHistogramBuckets; ++k) {
    cumulative += histogram.counts[k];
    const std::string le = fmt::format("{}", static_cast<double>(histogram_bound_ns(k)) / divisor);
    append_series(f.samples, f.name, "_bucket", stat, le);
    fmt::format_to(std::back_inserter(f.samples), "{}\n", cumulative);
  }
  cumulative += histogram.counts[kHistogramBuckets];
  append_series(f.samples, f.name, "_bucket", stat, "+Inf");
  fmt::format_to(std::back_inserter(f.samples), "{}\n", cumulative);
  append_series(f.samples, f.name, "_sum", stat, "");
  append_value(f.samples, histogram.sum_ns, stat.unit);
  f.samples += '\n';
  // The count is the buckets' total, so that it always equals le="+Inf".
  append_series(f.samples, f.name, "_count", stat, "");
  fmt::format_to(std::back_inserter(f.samples), "{}\n", cumulative);
}

std::string PrometheusView::text() const {
  size_t size = 0;
  for (const Family& f : families_) size += f.samples.size() + 2 * f.name.size() + 64;
  std::string out;
  out.reserve(size);
  for (const Family& f : families_) {
    out += "# HELP ";
    out += f.name;
    out += ' ';
    append_help(out, f.first->help);
    out += "\n# TYPE ";
    out += f.name;
    out += ' ';
    out += type_name(f.first->type);
    out += '\n';
    out += f.samples;
  }
  return out;
}

}  // namespace tern::metrics
