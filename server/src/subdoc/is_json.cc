// is_json(): the validation behind a stored value's JSON datatype bit. It runs on every store,
// so most non-JSON values (binary, plain text) are turned away by their first byte before
// simdjson's full validating parse (structure, numbers, escapes, UTF-8) is paid for.
#include <simdjson.h>

#include "subdoc/json_document.h"
#include "subdoc/json_text.h"

namespace tern::subdoc {
namespace {

// The bytes a JSON value can start with.
bool can_start_json(char c) {
  switch (c) {
    case '{': case '[': case '"': case '-': case 't': case 'f': case 'n':
      return true;
    default:
      return c >= '0' && c <= '9';
  }
}

// The DOM parser's buffers grow to about ten times the largest input it has parsed and stay.
// Past this size a parser of its own parses the value and frees them, so that one large
// store does not pin that memory on the thread for good.
constexpr size_t kReusedParserLimit = 1 << 20;

bool parses(simdjson::dom::parser& parser, std::string_view text) {
  // true: the parser copies the text into a padded buffer it keeps (text has no padding).
  return parser.parse(text.data(), text.size(), true).error() == simdjson::SUCCESS;
}

}  // namespace

bool is_json(std::string_view text) {
  size_t first = 0;
  while (first < text.size() && is_json_whitespace(text[first])) ++first;
  if (first == text.size() || !can_start_json(text[first])) return false;
  if (text.size() > kReusedParserLimit) {
    simdjson::dom::parser parser;
    return parses(parser, text);
  }
  thread_local simdjson::dom::parser parser;
  return parses(parser, text);
}

}  // namespace tern::subdoc
