// The one table of statistics (stats.def) keeps the rules its two views rely on.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

#include "metrics/stats.h"

namespace tern::metrics {
namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

TEST(StatsTableTest, KeysAreUniqueAndEveryStatisticIsShownSomewhereWithHelp) {
  std::set<std::string_view> keys;
  for (const StatDef* def : stat::all) {
    EXPECT_TRUE(keys.insert(def->key).second) << def->key;
    EXPECT_TRUE(def->in_stat() || def->in_prometheus()) << def->key;
    EXPECT_FALSE(def->help.empty()) << def->key;
  }
}

TEST(StatsTableTest, AFamilySharesOneTypeUnitAndHelp) {
  std::map<std::string_view, const StatDef*> families;
  for (const StatDef* def : stat::all) {
    if (!def->in_prometheus()) continue;
    auto [it, added] = families.emplace(def->family, def);
    if (added) continue;
    EXPECT_EQ(it->second->type, def->type) << def->key;
    EXPECT_EQ(it->second->unit, def->unit) << def->key;
    EXPECT_EQ(it->second->help, def->help) << def->key;
  }
}

// What promtool's lint asks of names: counters end in _total, base units as suffixes.
TEST(StatsTableTest, PrometheusNamesFollowTheNamingRules) {
  const std::regex name("kv_[a-z0-9_]+");
  for (const StatDef* def : stat::all) {
    if (!def->in_prometheus()) continue;
    const std::string family(def->family);
    EXPECT_TRUE(std::regex_match(family, name)) << family;
    std::string_view base = def->family;
    if (def->type == Type::Counter) {
      EXPECT_TRUE(ends_with(base, "_total")) << family;
      base.remove_suffix(ends_with(base, "_total") ? 6 : 0);
    } else {
      EXPECT_FALSE(ends_with(base, "_total")) << family << ": only counters end in _total";
    }
    if (def->unit == Unit::Bytes) {
      EXPECT_TRUE(ends_with(base, "_bytes")) << family;
    }
    if (def->unit == Unit::Seconds || base_unit_divisor(def->unit) != 1.0) {
      EXPECT_TRUE(ends_with(base, "_seconds")) << family;
    }
  }
}

}  // namespace
}  // namespace tern::metrics
