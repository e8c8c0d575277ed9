#pragma once
// The names Couchbase accepts for scopes and collections, when they are created (by the
// config file or over HTTP). Lookups by path are more lenient (collections_manifest.h).

#include <optional>
#include <string>
#include <string_view>

namespace tern::cluster {

// Nullopt for a good name, else the rule it breaks, worded to follow the name in a message:
// 1-251 characters of A-Z a-z 0-9 _ % -, not starting with '_' or '%' (the system's
// prefixes), except for "_default" itself.
std::optional<std::string> scope_or_collection_name_problem(std::string_view name);

}  // namespace tern::cluster
