#pragma once
// Couchbase's names for a bucket's minimum durability level (durabilityMinLevel), indexed by
// the level's number on the wire (frame info 0x01): "none" is 0, "persistToMajority" 3.

#include <array>
#include <optional>
#include <string_view>

namespace tern::config {

inline constexpr std::array<std::string_view, 4> kDurabilityLevelNames = {
    "none", "majority", "majorityAndPersistActive", "persistToMajority"};

// The wire number of a level's name, or nullopt for a name Couchbase does not have.
inline std::optional<uint8_t> durability_level_number(std::string_view name) {
  for (size_t i = 0; i < kDurabilityLevelNames.size(); ++i) {
    if (kDurabilityLevelNames[i] == name) return static_cast<uint8_t>(i);
  }
  return std::nullopt;
}

}  // namespace tern::config
