#include "http/answer.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace tern::http {

std::string json_string(std::string_view text) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return {buffer.GetString(), buffer.GetSize()};
}

void answer_json(httplib::Response& res, int status, std::string body) {
  res.status = status;
  res.set_content(std::move(body), "application/json");
}

void answer_field_error(httplib::Response& res, int status, std::string_view field,
                        std::string_view message) {
  answer_json(res, status,
              "{\"errors\":{" + json_string(field) + ":" + json_string(message) + "}}");
}

void answer_message(httplib::Response& res, int status, std::string_view message) {
  answer_json(res, status, json_string(message));
}

void answer_not_found(httplib::Response& res) {
  res.status = 404;
  res.set_content("Requested resource not found.\r\n", "text/plain");
}

}  // namespace tern::http
