#include "http/form.h"

#include <fmt/format.h>

#include <charconv>

#include "http/answer.h"

namespace tern::http {

std::optional<Form> Form::parse(const httplib::Request& req, std::string& error) {
  Form form;
  if (req.body.empty()) return form;
  const std::string type = req.get_header_value("Content-Type");
  if (!type.starts_with("application/x-www-form-urlencoded")) {
    error = "Expected a form body (application/x-www-form-urlencoded)";
    return std::nullopt;
  }
  httplib::Params params;
  httplib::detail::parse_query_text(req.body, params);
  for (const auto& [name, value] : params) {
    if (name.empty()) {
      error = "Malformed form body";
      return std::nullopt;
    }
    if (!form.fields_.emplace(name, value).second) {
      error = fmt::format("Field {} is given more than once", name);
      return std::nullopt;
    }
  }
  return form;
}

std::optional<Form> Form::parse_or_answer(const httplib::Request& req, httplib::Response& res) {
  std::string error;
  std::optional<Form> form = parse(req, error);
  if (!form) answer_field_error(res, 400, "_", error);
  return form;
}

std::optional<std::string> Form::text(std::string_view field) const {
  const auto it = fields_.find(std::string(field));
  if (it == fields_.end()) return std::nullopt;
  return it->second;
}

std::optional<int64_t> Form::integer(std::string_view field, int64_t min, int64_t max,
                                     std::string& error) const {
  const std::optional<std::string> value = text(field);
  if (!value) return std::nullopt;
  int64_t number = 0;
  const char* end = value->data() + value->size();
  const auto [stop, failure] = std::from_chars(value->data(), end, number);
  if (failure != std::errc() || stop != end || number < min || number > max) {
    error = fmt::format("{} must be an integer between {} and {}", field, min, max);
    return std::nullopt;
  }
  return number;
}

}  // namespace tern::http
