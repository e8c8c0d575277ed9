#pragma once
// The "settings" STAT group: the configuration ternd runs with.

#include <cstdint>
#include <optional>

#include "commands/dispatcher.h"
#include "ternd/options.h"

namespace tern::ternd {

// The ports actually listened on (the options may say 0, "pick one"); nullopt: turned off.
struct BoundPorts {
  uint16_t kv = 0;
  std::optional<uint16_t> kv_tls;
  std::optional<uint16_t> mgmt;
  std::optional<uint16_t> mgmt_tls;
};

class SettingsStats final : public commands::StatProvider {
 public:
  SettingsStats(const Options& options, BoundPorts ports);
  bool collect(std::string_view group, metrics::Collector& collector) override;

 private:
  const Options options_;
  const BoundPorts ports_;
};

}  // namespace tern::ternd
