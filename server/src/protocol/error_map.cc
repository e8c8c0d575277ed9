#include "protocol/error_map.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace tern::protocol {

namespace {

#include "protocol/error_map_version.inc"

// Names and descriptions are plain text in statuses.json; quote them for JSON.
void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  out += '"';
}

std::string build_error_map() {
  std::string json = "{\"version\":" + std::to_string(kErrorMapVersion) +
                     ",\"revision\":" + std::to_string(kErrorMapRevision) + ",\"errors\":{";
  bool first = true;
  // attrs arrive as JSON text already: the generator checked each is a plain [a-z-] word.
  const auto add = [&](uint16_t code, std::string_view name, std::string_view desc,
                       std::string_view attrs_json) {
    char key[8];
    std::snprintf(key, sizeof key, "%x", static_cast<unsigned>(code));
    if (!first) json += ',';
    first = false;
    append_json_string(json, key);
    json += ":{\"name\":";
    append_json_string(json, name);
    json += ",\"desc\":";
    append_json_string(json, desc);
    json += ",\"attrs\":";
    json += attrs_json;
    json += '}';
  };
#define TERN_STATUS(name, code, text, map_name, map_desc, map_attrs) \
  add(code, map_name, map_desc, map_attrs);
#include "protocol/status_table.inc"
#undef TERN_STATUS
  json += "}}";
  return json;
}

}  // namespace

std::string_view error_map_json() {
  static const std::string json = build_error_map();
  return json;
}

int error_map_version() { return kErrorMapVersion; }
int error_map_revision() { return kErrorMapRevision; }

}  // namespace tern::protocol
