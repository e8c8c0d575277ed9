#include "subdoc/mutation_value.h"

#include <algorithm>

#include "subdoc/json_document.h"
#include "subdoc/json_text.h"

namespace tern::subdoc {
namespace {

using protocol::Status;

// Levels from the element down to its deepest part, counting the element; stops counting
// once past `limit`, which is all the caller needs to know.
size_t depth(simdjson::dom::element element, size_t limit) {
  if (limit == 0) return 1;
  size_t deepest_child = 0;
  simdjson::dom::array array;
  simdjson::dom::object object;
  if (element.get(array) == simdjson::SUCCESS) {
    for (simdjson::dom::element child : array) {
      deepest_child = std::max(deepest_child, depth(child, limit - 1));
      if (deepest_child >= limit) break;
    }
  } else if (element.get(object) == simdjson::SUCCESS) {
    for (simdjson::dom::key_value_pair member : object) {
      deepest_child = std::max(deepest_child, depth(member.value, limit - 1));
      if (deepest_child >= limit) break;
    }
  }
  return 1 + deepest_child;
}

}  // namespace

Status MutationValueChecker::check(std::string_view value, ValueShape shape, size_t level) {
  // Whitespace alone would pass as the inside of "[ ]" and be inserted as nothing.
  if (is_only_json_whitespace(value)) return Status::SubdocValueCantinsert;
  std::string_view parsed = value;
  if (shape == ValueShape::Sequence) {
    wrapped_.assign("[").append(value).append("]");
    parsed = wrapped_;
  }
  simdjson::dom::element root;
  const simdjson::error_code error = parser_.parse(parsed.data(), parsed.size(), true).get(root);
  if (error == simdjson::DEPTH_ERROR) return Status::SubdocValueEtoodeep;
  if (error) return Status::SubdocValueCantinsert;
  if (shape == ValueShape::OnePrimitive && (root.is_array() || root.is_object())) {
    return Status::SubdocValueCantinsert;
  }
  // A Sequence's elements sit one level below the brackets we added around them.
  const size_t top = shape == ValueShape::Sequence ? level - 1 : level;
  if (top > kMaxDepth) return Status::SubdocValueEtoodeep;
  const size_t room = kMaxDepth - top + 1;  // the deepest value that still fits
  return depth(root, room) > room ? Status::SubdocValueEtoodeep : Status::Success;
}

}  // namespace tern::subdoc
