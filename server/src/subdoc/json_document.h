#pragma once
// One JSON document and the sub-document operations on it. Loading indexes the document once
// (simdjson's On-Demand front end); each operation then walks from the root along its path,
// reading only what lies on the way, and finds the exact bytes of the value it addresses.
// A lookup answers a view of those bytes; a mutation copies the document with the changed
// bytes spliced in and every other byte as it was. Nothing here builds a tree of the whole
// document or serializes one.
//
// Not thread-safe. Keep one per thread and reuse it: its buffers grow to the largest document
// it has held and stay, so a steady load allocates nothing (after a document over 1 MB, the
// next smaller one lets them go, so that one large document does not pin its memory).

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/status.h"
#include "subdoc/path.h"

namespace tern::subdoc {

// Couchbase's nesting limit, in levels: the root is level 1, a member's or element's value
// one level below its container (scalars count). A path reaching below it answers DocE2deep,
// a value that would reach below it ValueEtoodeep.
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
  // value (a document that fails to load leaves the object empty). Indexing checks UTF-8 and
  // that strings close; the rest of the grammar is checked where operations walk (a full
  // validation would cost a full parse: stored JSON was validated when it was stored).
  protocol::Status load(std::string_view json);

  // The loaded document's text.
  std::string_view text() const;

  // Runs a lookup. On Success, `value` views the answer: for Get the value's bytes inside
  // text() (whitespace around it excluded, inside it kept), for Count decimal text held in
  // `scratch`, for Exists nothing. The empty path names the document: Exists answers Success
  // and Count counts the root's members or elements (kv_engine's GET_COUNT takes it).
  // Failures: SubdocPathEnoent (no such member or element; [-1] of an empty array),
  // SubdocPathMismatch (the path asks a member of a non-object, an element of a non-array,
  // or Count of a primitive), SubdocDocE2deep (the path reaches below level kMaxDepth, the
  // root being level 1), SubdocPathEinval (an empty path for Get), SubdocDocNotJson (the walk
  // meets text that is not JSON; once one operation has, every later one on this load
  // answers it too, wherever its path goes). Keys are compared with the document's keys unescaped; of
  // two equal keys the first counts.
  protocol::Status lookup(Lookup op, const Path& path, std::string_view& value,
                          std::string& scratch) const;

  // Applies a mutation. On Success `out` (cleared first) holds the new document: text()
  // with the changed part spliced in, and for Counter `result` holds the new number as
  // decimal text. The loaded document itself is not changed: load `out` to go on from it.
  // `create_parents` creates missing objects along the path (and, for the array pushes, the
  // array itself) instead of answering SubdocPathEnoent.
  // The value goes in byte for byte as given. Parents are created as objects, never as
  // array positions; created keys are written JSON-escaped.
  // Failures, besides lookup()'s: SubdocPathEexists (DictAdd's member is there;
  // ArrayAddUnique's value is, compared as written), SubdocValueCantinsert (the value is
  // empty or only whitespace, not JSON, not the one value DictAdd, DictUpsert and Replace
  // take, a malformed comma-separated list for the pushes and ArrayInsert, not a primitive for
  // ArrayAddUnique; or the counter's result overflows int64, as kv_engine answers),
  // SubdocValueEtoodeep (the value would reach below level kMaxDepth), SubdocNumErange (the
  // counter's current value does not fit in int64), SubdocDeltaEinval (the delta is empty,
  // zero, not a plain decimal integer or out of int64), SubdocPathMismatch also for an array
  // operation on a non-array, ArrayAddUnique on an array holding an object or array before an
  // equal element, Counter on anything but an integer; SubdocPathEinval (an empty path except
  // for ArrayPushLast, ArrayPushFirst and ArrayAddUnique on a root array, a path whose last
  // component does not suit the operation: ArrayInsert needs an index, [-1] not allowed, the
  // dictionary operations a key).
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
