#pragma once
// The check a mutation's value passes before the document is touched: it must be the JSON the
// operation takes, and must not carry the document below kMaxDepth. The value is small next
// to the document, so simdjson's DOM parser validates it whole (structure, numbers, escapes,
// UTF-8).

#include <cstddef>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "protocol/status.h"

namespace tern::subdoc {

enum class ValueShape : uint8_t {
  One,           // exactly one JSON value (a member's value, a replaced element)
  Sequence,      // one or more comma-separated values (array elements: `1,"two",[3]`)
  OnePrimitive,  // one value that is neither an object nor an array
};

class MutationValueChecker {
 public:
  // `level` is where the value's top lies once inserted (the root is level 1): its deepest
  // part then lies at level + depth - 1, where a scalar or an empty container has depth 1.
  // Returns Success, SubdocValueCantinsert (empty, only whitespace, not JSON, not `shape`) or
  // SubdocValueEtoodeep (that deepest part would lie below kMaxDepth).
  protocol::Status check(std::string_view value, ValueShape shape, size_t level);

 private:
  simdjson::dom::parser parser_;
  std::string wrapped_;  // a Sequence inside brackets: the array it must make
};

}  // namespace tern::subdoc
