#include "ternd/settings_stats.h"

#include <fmt/format.h>

#include <string>

#include "metrics/stats.h"

namespace tern::ternd {

SettingsStats::SettingsStats(const Options& options, uint16_t bound_port)
    : options_(options), bound_port_(bound_port) {}

bool SettingsStats::collect(std::string_view group, metrics::Collector& collector) {
  if (group != "settings") return false;
  namespace stat = metrics::stat;
  collector.add(stat::settings_port, bound_port_);
  collector.add_text(stat::settings_listen, options_.listen);
  collector.add(stat::settings_threads, options_.threads);
  collector.add(stat::settings_memory_mb, options_.memory_mb);
  collector.add(stat::settings_max_item_size, options_.max_item_size);
  collector.add(stat::settings_max_connections, options_.max_connections);
  collector.add_text(stat::settings_expiry_pager_interval,
                     fmt::format("{}", options_.expiry_pager_interval));
  collector.add_text(stat::settings_data_dir, options_.data_dir.value_or(""));
  collector.add_text(stat::settings_verbose, options_.verbose ? "yes" : "no");
  return true;
}

}  // namespace tern::ternd
