#pragma once
// Reads one TOML table of the configuration against the schema: it first checks that the
// table holds only the keys the schema accepts, so that a misspelt key is an error (rather
// than a silently ignored setting, or a confusing "x is required"), then offers typed
// lookups that name the key's TOML path and position in every error. Internal to config/:
// the section readers use it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace tern::config {

// Throw ConfigError at a position in `source_name`: a node's (none when it is null), or a
// key's.
[[noreturn]] void fail_at(std::string_view source_name, const toml::node* node, std::string path,
                          std::string problem);
[[noreturn]] void fail_at(std::string_view source_name, toml::source_position position,
                          std::string path, std::string problem);

// "a string", "an integer", ...: for "must be X (got Y)" messages.
std::string_view type_phrase(toml::node_type type);

class TableReader {
 public:
  // `path` is the table's TOML path ("" for the document, "bucket[0]", ...); the table and
  // the source name must outlive the reader. Throws ConfigError naming the first key (in file
  // order) that is not among `accepted_keys`, and listing those.
  TableReader(const toml::table& table, std::string path, std::string_view source_name,
              std::vector<std::string_view> accepted_keys);

  // Lookups of accepted keys. A missing key gives nullopt (or an empty list, or null); a
  // value of another type or out of range throws ConfigError.
  std::optional<std::string> string(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max) const;
  // An array of strings, each with its node for error positions.
  std::vector<std::pair<std::string, const toml::node*>> strings(std::string_view key) const;
  // An array of tables (`[[key]]`); the result is empty when the key is missing.
  std::vector<const toml::table*> tables(std::string_view key) const;
  // A table, inline (`key = { ... }`) or not (`[key]`).
  const toml::table* table(std::string_view key) const;

  // As string(), but a missing key throws ConfigError.
  std::string required_string(std::string_view key) const;

  // Throws ConfigError about `key` of this table, at its value's position (or the table's).
  [[noreturn]] void fail(std::string_view key, std::string problem) const;

  // "bucket[0].name" for key "name" of table "bucket[0]".
  std::string path_of(std::string_view key) const;
  const std::string& path() const { return path_; }
  std::string_view source_name() const { return source_name_; }
  const toml::table& node() const { return table_; }

 private:
  void reject_unknown_keys() const;
  // The key's value, which must have `type`; null when the key is missing.
  const toml::node* typed(std::string_view key, toml::node_type type,
                          std::string_view wanted) const;

  const toml::table& table_;
  std::string path_;
  std::string_view source_name_;
  std::vector<std::string_view> accepted_keys_;
};

}  // namespace tern::config
