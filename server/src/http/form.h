#pragma once
// A management request's form body (application/x-www-form-urlencoded), as the SDKs send
// bucket and collection settings. Parsing is cpp-httplib's; this adds the checks every
// route needs: the content type, no field twice, and typed reads with Couchbase's messages.

#include <httplib.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace tern::http {

class Form {
 public:
  // The fields of `req`'s body; nullopt with `error` set when the body is not a form (another
  // content type with a non-empty body) or names a field twice. An empty body is an empty form.
  static std::optional<Form> parse(const httplib::Request& req, std::string& error);

  // parse(), answering a refused body itself: 400 {"errors":{"_":"<why>"}}, as Couchbase's
  // cluster manager refuses a malformed form.
  static std::optional<Form> parse_or_answer(const httplib::Request& req, httplib::Response& res);

  bool has(std::string_view field) const { return fields_.contains(std::string(field)); }
  // The field's text, or nullopt when absent.
  std::optional<std::string> text(std::string_view field) const;
  // The field as a whole number in [min, max]: nullopt when absent; sets `error` to
  // "<what> must be an integer between <min> and <max>" (naming nothing else) when present
  // but not such a number, and returns nullopt then too.
  std::optional<int64_t> integer(std::string_view field, int64_t min, int64_t max,
                                 std::string& error) const;
  // Field names the route did not read: what a route may refuse as unknown.
  const std::map<std::string, std::string>& fields() const { return fields_; }

 private:
  std::map<std::string, std::string> fields_;
};

}  // namespace tern::http
