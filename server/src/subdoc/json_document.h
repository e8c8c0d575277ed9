#pragma once
// One JSON document and the sub-document operations on it. Loading indexes the document once
// (simdjson's On-Demand front end); each operation then walks from the root along its path,
// reading only what lies on the way, and finds the exact bytes of the value it addresses.
// A lookup answers a view of those bytes; a mutation copies the document with the changed
// bytes spliced in and every other byte as it was. Nothing here builds a tree of the whole
// document or serializes one.
//
// Not thread-safe. Keep one per thread and reuse it: its buffers grow to the largest document
// it has held and stay, so a steady load allocates nothing.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/status.h"
#include "subdoc/path.h"

namespace tern::subdoc {

// Couchbase's nesting limit: a document deeper than this answers DocE2deep, a value that
// would make it deeper ValueEtoodeep.
inline constexpr size_t kMaxDepth = 32;

enum class Lookup : uint8_t {
  Get,     // the value's JSON text
  Exists,  // nothing: the status says it
  Count,   // the number of members of an object or elements of an array, as decimal text
};

enum class Mutation : uint8_t {
  DictAdd,         // add a member; PathEexists if it is there
  DictUpsert,      // add or replace a member
  Remove,          // remove a member or element (value ignored)
  Replace,         // replace a value that exists (member or element)
  ArrayPushLast,   // append one or more comma-separated values to an array
  ArrayPushFirst,  // prepend them
  ArrayInsert,     // insert them before the element the path's last [n] names (n may equal
                   // the array's size: then they are appended)
  ArrayAddUnique,  // append one primitive value unless an equal one is there (PathEexists)
  Counter,         // add a signed 64-bit delta (decimal text) to an integer; creates it
};

class JsonDocument {
 public:
  JsonDocument();
  ~JsonDocument();
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;

  // Copies `json` in and indexes it. Success, or SubdocDocNotJson when it is not one JSON
  // value (a document that fails to load leaves the object empty).
  protocol::Status load(std::string_view json);

  // The loaded document's text.
  std::string_view text() const;

  // Runs a lookup. On Success, `value` views the answer: for Get the value's bytes inside
  // text(), for Count decimal text held in `scratch`, for Exists nothing.
  // Failures: SubdocPathEnoent (no such member or element), SubdocPathMismatch (the path
  // asks a member of a non-object, an element of a non-array, or Count of a primitive),
  // SubdocDocE2deep (the walk meets nesting deeper than kMaxDepth), SubdocPathEinval (an
  // empty path for Get or Count).
  protocol::Status lookup(Lookup op, const Path& path, std::string_view& value,
                          std::string& scratch) const;

  // Applies a mutation. On Success `out` (cleared first) holds the new document: text()
  // with the changed part spliced in, and for Counter `result` holds the new number as
  // decimal text. The loaded document itself is not changed: load `out` to go on from it.
  // `create_parents` creates missing objects along the path (and, for the array pushes, the
  // array itself) instead of answering SubdocPathEnoent.
  // Failures, besides lookup()'s: SubdocPathEexists, SubdocValueCantinsert (the value is
  // not JSON, not the one value the operation takes, or not a primitive for ArrayAddUnique),
  // SubdocValueEtoodeep, SubdocNumErange (the counter's current value or the result does not
  // fit in int64), SubdocDeltaEinval (the delta is zero, not an integer or out of range),
  // SubdocPathEinval (an empty path, a path whose last component does not suit the operation:
  // ArrayInsert needs an index, [-1] for it too, the dictionary operations a key).
  protocol::Status mutate(Mutation op, const Path& path, std::string_view value,
                          bool create_parents, std::string& out, std::string& result) const;

  // The members of the loaded document, which must be an object (else SubdocPathMismatch),
  // in document order: each key as written between its quotes (escapes not undone) and the
  // member's value text, both views into text(). The sub-document commands keep a
  // document's extended attributes as one such object while they change them.
  struct Member {
    std::string_view key;
    std::string_view value;
  };
  protocol::Status members(std::vector<Member>& out) const;

  struct State;  // simdjson's parser and the padded copy of the document

 private:
  std::unique_ptr<State> state_;
};

// Whether `text` is exactly one valid JSON value (optionally surrounded by whitespace): the
// test for giving a stored value the JSON datatype bit.
bool is_json(std::string_view text);

}  // namespace tern::subdoc
