#pragma once
// Finding what a sub-document path names in a document simdjson has indexed, with its
// On-Demand iterator. From the root, each component is looked for among the current
// container's children in document order: a key is compared with each member's key as
// written (unescaped only when the document escapes it), a position is counted off ([-1]
// counts the elements first). The children before the one looked for are skipped, not
// parsed, and nothing after it is read. What comes back is positions in the document's
// text: lookups answer views of them and mutations splice around them.
//
// Levels are counted as Couchbase counts them: the root is level 1 and each component goes
// one level down, so a path that reaches a value below kMaxDepth answers DocE2deep. Nesting
// inside the values the walk skips is not measured: that would mean parsing them.

#include <cstddef>
#include <string_view>

#include <simdjson.h>

#include "protocol/status.h"
#include "subdoc/path.h"

namespace tern::subdoc {

// An object or array in the text, brackets included.
struct Container {
  const char* open = nullptr;   // its '{' or '['
  const char* close = nullptr;  // its '}' or ']'
  size_t size = 0;              // its members or elements

  bool is_object() const { return *open == '{'; }
  bool is_empty() const { return size == 0; }
};

// What locate() found.
struct Location {
  bool found = false;

  // Found: the value the whole path names, not read yet (read it with Locator::bytes() or
  // the On-Demand API; either spends it). `begin` is its first byte, `member_begin` the
  // opening quote of its key when it is an object's member, else `begin` too.
  simdjson::ondemand::value value;
  bool scalar_root = false;  // the path is empty and the document a lone scalar: no `value`
  const char* begin = nullptr;
  const char* member_begin = nullptr;

  // Not found: path[0, matched) exists and names `parent`, which has no path[matched].
  size_t matched = 0;
  Container parent;
};

// The key of the member `field`, whose value starts at `value_begin`, as written between its
// quotes (escapes not undone).
std::string_view raw_key(const simdjson::ondemand::field& field, const char* value_begin);

class Locator {
 public:
  // `document` must have been iterated over `text`, which must lie in a padded buffer.
  Locator(simdjson::ondemand::document& document, std::string_view text)
      : document_(document), text_(text) {}

  // Walks `path` from the root (rewinding the iterator first). Success whether or not the
  // value is there (see Location); SubdocPathMismatch when a component asks a member of a
  // non-object or an element of a non-array, SubdocDocE2deep when the value would lie
  // below kMaxDepth, SubdocDocNotJson when the walk meets text that is not JSON (or an
  // earlier walk over this document did: simdjson's iterator then cannot walk again).
  protocol::Status locate(const Path& path, Location& out);

  // The exact bytes of a found value, whitespace around it excluded. Spends the value.
  protocol::Status bytes(Location& found, std::string_view& out);

  // The closing bracket of the container opened at `open`, once the On-Demand iterator has
  // gone through all of its children.
  const char* close_after_iteration(const char* open);

 private:
  struct Child;
  protocol::Status find_member(simdjson::ondemand::value& object, const char* open,
                               std::string_view key, Child& out);
  protocol::Status find_element(simdjson::ondemand::value& array, const char* open,
                                int64_t index, Child& out);

  const char* text_end() const { return text_.data() + text_.size(); }

  simdjson::ondemand::document& document_;
  std::string_view text_;
};

}  // namespace tern::subdoc
