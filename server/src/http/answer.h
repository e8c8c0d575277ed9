#pragma once
// How the management port answers, in the shapes Couchbase's cluster manager uses and the
// SDKs parse: JSON bodies, {"errors":{field: message}} for a refused form, a bare message
// string elsewhere.

#include <httplib.h>

#include <string>
#include <string_view>

namespace tern::http {

// `status` with a JSON body, Content-Type application/json.
void answer_json(httplib::Response& res, int status, std::string body);

// `status` with {"errors":{"<field>":"<message>"}}: how Couchbase refuses a form field.
void answer_field_error(httplib::Response& res, int status, std::string_view field,
                        std::string_view message);

// `status` with the message as a JSON string ("..."), as Couchbase's collection routes do.
void answer_message(httplib::Response& res, int status, std::string_view message);

// 404 with Couchbase's text for an unknown resource.
void answer_not_found(httplib::Response& res);

// `text` as a JSON string literal, quotes included.
std::string json_string(std::string_view text);

}  // namespace tern::http
