#pragma once
// The one error a configuration file can raise. It names the file, where in the file (line
// and column when known, and the TOML path such as `bucket[0].scope[1].name`) and what is
// wrong, so that a start-up failure points straight at the line to fix.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tern::config {

class ConfigError : public std::runtime_error {
 public:
  // `line` and `column` count from 1; 0 means unknown (e.g. the file cannot be read).
  // `path` may be empty when the problem concerns the whole file.
  // what() reads "FILE:LINE:COLUMN: PATH: PROBLEM", leaving out the parts that are unknown.
  ConfigError(std::string source_name, uint32_t line, uint32_t column, std::string path,
              std::string problem);

  const std::string& source_name() const { return source_name_; }
  uint32_t line() const { return line_; }
  uint32_t column() const { return column_; }
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string source_name_;
  uint32_t line_;
  uint32_t column_;
  std::string path_;
  std::string problem_;
};

// "FILE:LINE:COLUMN: PATH: TEXT" without the unknown parts, as what() reads; also the form
// of FileConfig::warnings.
std::string located_message(std::string_view source_name, uint32_t line, uint32_t column,
                            std::string_view path, std::string_view text);

}  // namespace tern::config
