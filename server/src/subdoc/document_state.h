#pragma once
// What a JsonDocument keeps between calls: simdjson's parsers and every buffer an operation
// needs, each grown to the largest size it has met and then reused. Private to the
// JsonDocument's own files.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "subdoc/json_document.h"
#include "subdoc/mutation_value.h"

namespace tern::subdoc {

struct JsonDocument::State {
  // The loaded text, followed by the SIMDJSON_PADDING bytes simdjson may read past it.
  std::unique_ptr<char[]> buffer;
  size_t capacity = 0;  // of buffer
  size_t size = 0;      // of the text
  bool loaded = false;

  simdjson::ondemand::parser parser;
  simdjson::ondemand::document document;  // over buffer, rewound by each operation

  MutationValueChecker values;
  std::string created;    // parents a mutation creates: their keys and opening brackets
  std::string closing;    // and their closing brackets
  std::string number;     // a counter's delta when it creates the member

  std::string_view text() const { return {buffer.get(), size}; }
};

}  // namespace tern::subdoc
