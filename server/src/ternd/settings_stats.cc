#include "ternd/settings_stats.h"

#include <string>

#include <fmt/format.h>

namespace tern::ternd {

SettingsStats::SettingsStats(const Options& options, uint16_t bound_port)
    : options_(options), bound_port_(bound_port) {}

bool SettingsStats::emit_stats(std::string_view group, const commands::StatEmitter& emit) {
  if (group != "settings") return false;
  emit("port", std::to_string(bound_port_));
  emit("listen", options_.listen);
  emit("threads", std::to_string(options_.threads));
  emit("memory_mb", std::to_string(options_.memory_mb));
  emit("max_item_size", std::to_string(options_.max_item_size));
  emit("max_connections", std::to_string(options_.max_connections));
  emit("expiry_pager_interval", fmt::format("{}", options_.expiry_pager_interval));
  emit("data_dir", options_.data_dir.value_or(""));
  emit("verbose", options_.verbose ? "yes" : "no");
  return true;
}

}  // namespace tern::ternd
