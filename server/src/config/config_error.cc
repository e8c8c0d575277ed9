#include "config/config_error.h"

#include <utility>

namespace tern::config {

std::string located_message(std::string_view source_name, uint32_t line, uint32_t column,
                            std::string_view path, std::string_view text) {
  std::string message(source_name);
  if (line != 0) {
    message += ":" + std::to_string(line);
    if (column != 0) message += ":" + std::to_string(column);
  }
  message += ": ";
  if (!path.empty()) message.append(path).append(": ");
  return message.append(text);
}

ConfigError::ConfigError(std::string source_name, uint32_t line, uint32_t column, std::string path,
                         std::string problem)
    : std::runtime_error(located_message(source_name, line, column, path, problem)),
      source_name_(std::move(source_name)),
      line_(line),
      column_(column),
      path_(std::move(path)),
      problem_(std::move(problem)) {}

}  // namespace tern::config
