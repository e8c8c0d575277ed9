#include "ternd/settings_stats.h"

#include <fmt/format.h>

#include <string>

#include "metrics/stats.h"

namespace tern::ternd {

namespace {

// A port as its flag spells it: the number, or "none" when it is turned off.
std::string port_text(std::optional<uint16_t> port) {
  return port ? std::to_string(*port) : "none";
}

}  // namespace

SettingsStats::SettingsStats(const Options& options, BoundPorts ports)
    : options_(options), ports_(ports) {}

bool SettingsStats::collect(std::string_view group, metrics::Collector& collector) {
  if (group != "settings") return false;
  namespace stat = metrics::stat;
  collector.add(stat::settings_port, ports_.kv);
  collector.add_text(stat::settings_tls_port, port_text(ports_.kv_tls));
  collector.add_text(stat::settings_mgmt_port, port_text(ports_.mgmt));
  collector.add_text(stat::settings_mgmt_tls_port, port_text(ports_.mgmt_tls));
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
