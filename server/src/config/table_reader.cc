#include "config/table_reader.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/config_error.h"

namespace tern::config {

namespace {

uint32_t clamp_index(toml::source_index index) {
  return static_cast<uint32_t>(std::min<uint64_t>(index, std::numeric_limits<uint32_t>::max()));
}

}  // namespace

void fail_at(std::string_view source_name, toml::source_position position, std::string path,
             std::string problem) {
  // A position toml++ does not know has zeros, which ConfigError leaves out.
  throw ConfigError(std::string(source_name), clamp_index(position.line),
                    clamp_index(position.column), std::move(path), std::move(problem));
}

void fail_at(std::string_view source_name, const toml::node* node, std::string path,
             std::string problem) {
  fail_at(source_name, node != nullptr ? node->source().begin : toml::source_position{},
          std::move(path), std::move(problem));
}

std::string_view type_phrase(toml::node_type type) {
  switch (type) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

TableReader::TableReader(const toml::table& table, std::string path, std::string_view source_name,
                         std::vector<std::string_view> accepted_keys)
    : table_(table),
      path_(std::move(path)),
      source_name_(source_name),
      accepted_keys_(std::move(accepted_keys)) {
  reject_unknown_keys();
}

std::string TableReader::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void TableReader::fail(std::string_view key, std::string problem) const {
  const toml::node* value = table_.get(key);
  fail_at(source_name_, value != nullptr ? value : &table_, path_of(key), std::move(problem));
}

const toml::node* TableReader::typed(std::string_view key, toml::node_type type,
                                     std::string_view wanted) const {
  // A lookup outside the schema is a bug in the reader, not in the file.
  assert(std::find(accepted_keys_.begin(), accepted_keys_.end(), key) != accepted_keys_.end());
  const toml::node* value = table_.get(key);
  if (value == nullptr) return nullptr;
  if (value->type() != type) {
    fail(key, fmt::format("must be {} (got {})", wanted, type_phrase(value->type())));
  }
  return value;
}

std::optional<std::string> TableReader::string(std::string_view key) const {
  const toml::node* value = typed(key, toml::node_type::string, "a string");
  if (value == nullptr) return std::nullopt;
  return value->as_string()->get();
}

std::string TableReader::required_string(std::string_view key) const {
  std::optional<std::string> value = string(key);
  if (!value) fail(key, "is required");
  return *std::move(value);
}

std::optional<bool> TableReader::boolean(std::string_view key) const {
  const toml::node* value = typed(key, toml::node_type::boolean, "true or false");
  if (value == nullptr) return std::nullopt;
  return value->as_boolean()->get();
}

std::optional<int64_t> TableReader::integer(std::string_view key, int64_t min, int64_t max) const {
  const std::string wanted = fmt::format("a whole number {}-{}", min, max);
  const toml::node* value = typed(key, toml::node_type::integer, wanted);
  if (value == nullptr) return std::nullopt;
  const int64_t number = value->as_integer()->get();
  if (number < min || number > max) fail(key, fmt::format("must be {} (got {})", wanted, number));
  return number;
}

std::vector<std::pair<std::string, const toml::node*>> TableReader::strings(
    std::string_view key) const {
  std::vector<std::pair<std::string, const toml::node*>> result;
  const toml::node* value = typed(key, toml::node_type::array, "an array of strings");
  if (value == nullptr) return result;
  const toml::array& array = *value->as_array();
  for (size_t i = 0; i < array.size(); ++i) {
    const toml::node& element = array[i];
    if (!element.is_string()) {
      fail_at(source_name_, &element, fmt::format("{}[{}]", path_of(key), i),
              fmt::format("must be a string (got {})", type_phrase(element.type())));
    }
    result.emplace_back(element.as_string()->get(), &element);
  }
  return result;
}

std::vector<const toml::table*> TableReader::tables(std::string_view key) const {
  std::vector<const toml::table*> result;
  const std::string wanted = fmt::format("an array of tables, each headed [[{}]]", path_of(key));
  const toml::node* value = typed(key, toml::node_type::array, wanted);
  if (value == nullptr) return result;
  const toml::array& array = *value->as_array();
  for (size_t i = 0; i < array.size(); ++i) {
    const toml::node& element = array[i];
    if (!element.is_table()) {
      fail_at(source_name_, &element, fmt::format("{}[{}]", path_of(key), i),
              fmt::format("must be a table (got {})", type_phrase(element.type())));
    }
    result.push_back(element.as_table());
  }
  return result;
}

const toml::table* TableReader::table(std::string_view key) const {
  const toml::node* value = typed(key, toml::node_type::table, "a table");
  return value == nullptr ? nullptr : value->as_table();
}

void TableReader::reject_unknown_keys() const {
  // toml++ keeps keys sorted by name; report the one that comes first in the file.
  const toml::key* first_unknown = nullptr;
  for (const auto& [key, value] : table_) {
    if (std::find(accepted_keys_.begin(), accepted_keys_.end(), key.str()) !=
        accepted_keys_.end()) {
      continue;
    }
    if (first_unknown == nullptr || key.source().begin.line < first_unknown->source().begin.line ||
        (key.source().begin.line == first_unknown->source().begin.line &&
         key.source().begin.column < first_unknown->source().begin.column)) {
      first_unknown = &key;
    }
  }
  if (first_unknown == nullptr) return;
  fail_at(source_name_, first_unknown->source().begin, path_of(first_unknown->str()),
          fmt::format("unknown key '{}' (this table accepts: {})", first_unknown->str(),
                      fmt::join(accepted_keys_, ", ")));
}

}  // namespace tern::config
