#include "cluster/collection_names.h"

#include <algorithm>

namespace tern::cluster {

std::optional<std::string> scope_or_collection_name_problem(std::string_view name) {
  if (name.empty() || name.size() > 251) return "must be 1-251 characters long";
  // Not <cctype>: its answers depend on the locale and on the sign of char.
  const bool allowed = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '%' || c == '-';
  });
  if (!allowed) return "may contain only A-Z, a-z, 0-9, '_', '%' and '-'";
  if ((name.front() == '_' || name.front() == '%') && name != "_default") {
    return "must not start with '_' or '%' (reserved for the system)";
  }
  return std::nullopt;
}

}  // namespace tern::cluster
