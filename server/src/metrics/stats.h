#pragma once
// The StatDef of every line of stats.def, as metrics::stat::<key>, and all of them in table
// order (metrics::stat::all).

#include <array>

#include "metrics/stat_def.h"

namespace tern::metrics::stat {

#define TERN_LABELS(...) \
  { __VA_ARGS__ }
#define TERN_DEFINE_STAT(key_, type_, unit_, family_, labels_, help_, ...) \
  inline constexpr StatDef key_{.key = #key_,                              \
                                .type = Type::type_,                       \
                                .unit = Unit::unit_,                       \
                                .family = family_,                         \
                                .labels = labels_,                         \
                                .help = help_,                             \
                                .stat_names = {__VA_ARGS__}};
#define TERN_ENGINE_COUNTER TERN_DEFINE_STAT
#define TERN_ENGINE_VALUE TERN_DEFINE_STAT
#define TERN_SERVER_COUNTER TERN_DEFINE_STAT
#define TERN_STAT TERN_DEFINE_STAT
#include "metrics/stats.def"
#undef TERN_DEFINE_STAT

#define TERN_LIST_STAT(key_, ...) &key_,
#define TERN_ENGINE_COUNTER TERN_LIST_STAT
#define TERN_ENGINE_VALUE TERN_LIST_STAT
#define TERN_SERVER_COUNTER TERN_LIST_STAT
#define TERN_STAT TERN_LIST_STAT
inline constexpr auto all = std::to_array<const StatDef*>({
#include "metrics/stats.def"
});
#undef TERN_LIST_STAT
#undef TERN_LABELS

}  // namespace tern::metrics::stat
