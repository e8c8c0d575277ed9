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
  // Most values need no escape: copy them whole.
  size_t from = 0;
  for (size_t at = value.find_first_of("\\\"\n"); at != std::string_view::npos;
       at = value.find_first_of("\\\"\n", from)) {
    out.append(value.substr(from, at - from));
    out += value[at] == '\n' ? "\\n" : value[at] == '"' ? "\\\"" : "\\\\";
    from = at + 1;
  }
  out.append(value.substr(from));
}

PrometheusView::Family& PrometheusView::family(const StatDef& stat) {
  auto [it, added] = index_.emplace(stat.family, families_.size());
  if (added) families_.push_back(Family{.name = stat.family, .first = &stat, .samples = {}});
  return families_[it->second];
}

std::string PrometheusView::label_text(const StatDef& stat) const {
  std::string text;
  const auto label = [&text](std::string_view key, std::string_view value) {
    if (!text.empty()) text += ',';
    text += key;
    text += "=\"";
    append_label_value(text, value);
    text += '"';
  };
  for (const auto& [key, value] : labels()) label(key, value);
  for (size_t i = 0; i + 1 < stat.labels.size(); i += 2) {
    if (!stat.labels[i].empty()) label(stat.labels[i], stat.labels[i + 1]);
  }
  return text;
}

void PrometheusView::add(const StatDef& stat, uint64_t value) {
  if (!stat.in_prometheus()) return;
  Family& f = family(stat);
  const std::string labels = label_text(stat);
  f.samples += f.name;
  if (!labels.empty()) {
    f.samples += '{';
    f.samples += labels;
    f.samples += '}';
  }
  f.samples += ' ';
  append_value(f.samples, value, stat.unit);
  f.samples += '\n';
}

void PrometheusView::add_histogram(const StatDef& stat, const HistogramSnapshot& histogram) {
  if (!stat.in_prometheus()) return;
  Family& f = family(stat);
  std::string labels = label_text(stat);
  // The line's start, once: "name_bucket{labels," (le follows), and "{labels} " for the rest.
  std::string bucket_start = std::string(f.name) + "_bucket{" + labels;
  if (!labels.empty()) bucket_start += ',';
  bucket_start += "le=\"";
  const std::string rest_labels = labels.empty() ? " " : "{" + labels + "} ";
  // The histogram's bounds are in nanoseconds; the family's unit says how to show them.
  const std::array<std::string, kHistogramBuckets>& bounds = bound_texts(stat.unit);
  uint64_t cumulative = 0;
  for (size_t k = 0; k <= kHistogramBuckets; ++k) {
    cumulative += histogram.counts[k];
    f.samples += bucket_start;
    f.samples += k < kHistogramBuckets ? std::string_view(bounds[k]) : "+Inf";
    f.samples += "\"} ";
    fmt::format_to(std::back_inserter(f.samples), "{}\n", cumulative);
  }
  f.samples += f.name;
  f.samples += "_sum";
  f.samples += rest_labels;
  append_value(f.samples, histogram.sum_ns, stat.unit);
  f.samples += '\n';
  // The count is the buckets' total, so that it always equals le="+Inf".
  f.samples += f.name;
  f.samples += "_count";
  f.samples += rest_labels;
  fmt::format_to(std::back_inserter(f.samples), "{}\n", cumulative);
}

const std::array<std::string, kHistogramBuckets>& PrometheusView::bound_texts(Unit unit) {
  // Formatted once, for every unit.
  constexpr size_t kUnits = static_cast<size_t>(Unit::Nanoseconds) + 1;
  static const auto texts = [] {
    std::array<std::array<std::string, kHistogramBuckets>, kUnits> all;
    for (size_t u = 0; u < kUnits; ++u) {
      const double divisor = base_unit_divisor(static_cast<Unit>(u));
      for (size_t k = 0; k < kHistogramBuckets; ++k) {
        all[u][k] = fmt::format("{}", static_cast<double>(histogram_bound_ns(k)) / divisor);
      }
    }
    return all;
  }();
  return texts[static_cast<size_t>(unit)];
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
