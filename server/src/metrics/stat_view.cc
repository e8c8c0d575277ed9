#include "metrics/stat_view.h"

#include <string>

namespace tern::metrics {

void StatView::add(const StatDef& stat, uint64_t value) {
  if (!stat.in_stat()) return;
  add_text(stat, std::to_string(value));
}

void StatView::add_text(const StatDef& stat, std::string_view value) {
  for (std::string_view name : stat.stat_names) {
    if (!name.empty()) emit_(name, value);
  }
}

}  // namespace tern::metrics
