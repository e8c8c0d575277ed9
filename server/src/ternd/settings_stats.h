#pragma once
// The "settings" STAT group: the configuration ternd runs with.

#include <cstdint>

#include "commands/dispatcher.h"
#include "ternd/options.h"

namespace tern::ternd {

class SettingsStats final : public commands::StatProvider {
 public:
  // `bound_port` is the port actually listened on (options.port may be 0).
  SettingsStats(const Options& options, uint16_t bound_port);
  bool collect(std::string_view group, metrics::Collector& collector) override;

 private:
  const Options options_;
  const uint16_t bound_port_;
};

}  // namespace tern::ternd
