// JsonDocument::mutate(). Every mutation is one Locator::locate() of its path and one splice()
// of the text around what it found: the value's bytes, or, when the path ends in something
// missing, the closing bracket of the deepest container that exists.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "subdoc/counter.h"
#include "subdoc/document_state.h"
#include "subdoc/json_document.h"
#include "subdoc/json_text.h"
#include "subdoc/locator.h"
#include "subdoc/splice.h"

namespace tern::subdoc {
namespace {

using protocol::Status;
using simdjson::ondemand::json_type;

// The rules a path must follow for the operation, before the document is looked at.
Status check_path(Mutation op, const Path& path) {
  if (path.empty()) {
    // Only the array operations may name the document itself (a root array).
    const bool array_op = op == Mutation::ArrayPushLast || op == Mutation::ArrayPushFirst ||
                          op == Mutation::ArrayAddUnique;
    return array_op ? Status::Success : Status::SubdocPathEinval;
  }
  const PathComponent& last = path.back();
  switch (op) {
    case Mutation::DictAdd:
    case Mutation::DictUpsert:
      return last.kind == PathComponent::Kind::Key ? Status::Success : Status::SubdocPathEinval;
    case Mutation::ArrayInsert:
      return last.kind == PathComponent::Kind::Index && last.index != kLastElement
                 ? Status::Success
                 : Status::SubdocPathEinval;
    default:
      return Status::Success;
  }
}

// The value each operation takes, and the level its top lies at once inserted: a member's
// value or an inserted element takes the path's place (level path.size() + 1), a pushed
// element goes inside the array the path names (one level further down).
Status check_value(MutationValueChecker& values, Mutation op, const Path& path,
                   std::string_view value, int64_t& delta) {
  const size_t in_place = path.size() + 1;
  switch (op) {
    case Mutation::DictAdd:
    case Mutation::DictUpsert:
    case Mutation::Replace:
      return values.check(value, ValueShape::One, in_place);
    case Mutation::ArrayInsert:
      return values.check(value, ValueShape::Sequence, in_place);
    case Mutation::ArrayPushLast:
    case Mutation::ArrayPushFirst:
      return values.check(value, ValueShape::Sequence, in_place + 1);
    case Mutation::ArrayAddUnique:
      return values.check(value, ValueShape::OnePrimitive, in_place + 1);
    case Mutation::Counter:
      return parse_delta(value, delta);
    case Mutation::Remove:
      return Status::Success;
  }
  return Status::SubdocPathEinval;
}

// One mutation of one loaded document into `out`.
class Mutator {
 public:
  Mutator(JsonDocument::State& state, const Path& path, std::string_view value,
          bool create_parents, std::string& out)
      : state_(state),
        text_(state.text()),
        locator_(state.document, text_),
        path_(path),
        value_(value),
        create_parents_(create_parents),
        out_(out) {}

  Status run(Mutation op, int64_t delta, std::string& result) {
    Location where;
    if (const Status status = locator_.locate(path_, where); status != Status::Success) {
      return status;
    }
    switch (op) {
      case Mutation::DictAdd:
        return where.found ? Status::SubdocPathEexists : add_member(where, value_, false);
      case Mutation::DictUpsert:
        return where.found ? replace(where, value_) : add_member(where, value_, false);
      case Mutation::Replace:
        return where.found ? replace(where, value_) : Status::SubdocPathEnoent;
      case Mutation::Remove:
        return where.found ? remove(where) : Status::SubdocPathEnoent;
      case Mutation::ArrayPushLast:
      case Mutation::ArrayPushFirst:
        return where.found ? push(where, op == Mutation::ArrayPushFirst)
                           : add_member(where, value_, true);
      case Mutation::ArrayInsert:
        return insert(where);
      case Mutation::ArrayAddUnique:
        return where.found ? add_unique(where) : add_member(where, value_, true);
      case Mutation::Counter:
        return counter(where, delta, result);
    }
    return Status::SubdocPathEinval;
  }

 private:
  const char* text_end() const { return text_.data() + text_.size(); }

  Status replace(Location& where, std::string_view bytes) {
    std::string_view old;
    if (const Status status = locator_.bytes(where, old); status != Status::Success) {
      return status;
    }
    splice(text_, old.data(), old.data() + old.size(), {bytes}, out_);
    return Status::Success;
  }

  // Takes the member (key included) or element out with the comma that joins it to a
  // neighbour: the one after it, or, for the last, the one before it.
  Status remove(Location& where) {
    std::string_view old;
    if (const Status status = locator_.bytes(where, old); status != Status::Success) {
      return status;
    }
    const char* begin = where.member_begin;
    const char* end = old.data() + old.size();
    const char* after = skip_whitespace(end, text_end());
    if (after < text_end() && *after == ',') {
      splice(text_, begin, after + 1, {}, out_);
    } else if (const char* before = last_before(text_.data(), begin); *before == ',') {
      splice(text_, before, end, {}, out_);
    } else {
      splice(text_, begin, end, {}, out_);
    }
    return Status::Success;
  }

  // path[where.matched] is missing from where.parent: adds it there as a member holding the
  // value, first creating, when asked to, the objects for the path's further keys (and, for
  // the array operations, the array the value goes in).
  Status add_member(const Location& where, std::string_view bytes, bool in_new_array) {
    const size_t first = where.matched;
    const size_t last = path_.size() - 1;
    // Without create_parents only the path's last key may be missing, and never an array.
    if (!create_parents_ && (first != last || in_new_array)) return Status::SubdocPathEnoent;
    // Positions cannot be created: an array has no element n to create.
    if (!where.parent.is_object()) return Status::SubdocPathEnoent;
    for (size_t i = first; i <= last; ++i) {
      if (path_[i].kind != PathComponent::Kind::Key) return Status::SubdocPathEnoent;
    }
    std::string& created = state_.created;
    created.clear();
    if (!where.parent.is_empty()) created.push_back(',');
    for (size_t i = first; i <= last; ++i) {
      if (i > first) created.push_back('{');
      append_quoted(created, path_[i].key);
      created.push_back(':');
    }
    std::string& closing = state_.closing;
    closing.clear();
    if (in_new_array) {
      created.push_back('[');
      closing.push_back(']');
    }
    closing.append(last - first, '}');
    const char* close = where.parent.close;
    splice(text_, close, close, {created, bytes, closing}, out_);
    return Status::Success;
  }

  Status push(Location& where, bool at_front) {
    Container array;
    if (const Status status = found_array(where, array); status != Status::Success) {
      return status;
    }
    if (at_front && !array.is_empty()) {
      const char* first = skip_whitespace(array.open + 1, array.close);
      splice(text_, first, first, {value_, ","}, out_);
      return Status::Success;
    }
    return append(array);
  }

  // ArrayInsert: before the element the path names, or after the last one when the path's
  // position is the array's size.
  Status insert(const Location& where) {
    if (where.found) {
      splice(text_, where.begin, where.begin, {value_, ","}, out_);
      return Status::Success;
    }
    const bool only_position_missing = where.matched == path_.size() - 1;
    if (!only_position_missing || path_.back().index != static_cast<int64_t>(where.parent.size)) {
      return Status::SubdocPathEnoent;
    }
    return append(where.parent);
  }

  // Appends unless an equal element is there. Elements are compared as written: "a" and
  // "\u0061", or 1 and 1.0, differ (as they do for Couchbase).
  Status add_unique(Location& where) {
    if (where.scalar_root) return Status::SubdocPathMismatch;
    json_type type;
    if (where.value.type().get(type)) return Status::SubdocDocNotJson;
    if (type != json_type::array) return Status::SubdocPathMismatch;
    simdjson::ondemand::array elements;
    if (where.value.get_array().get(elements)) return Status::SubdocDocNotJson;
    const std::string_view wanted = trim_json_whitespace(value_);
    size_t size = 0;
    for (auto element : elements) {
      simdjson::ondemand::value item;
      json_type item_type;
      if (std::move(element).get(item) || item.type().get(item_type)) {
        return Status::SubdocDocNotJson;
      }
      // Uniqueness is only defined among primitives.
      if (item_type == json_type::array || item_type == json_type::object) {
        return Status::SubdocPathMismatch;
      }
      if (trim_json_whitespace(item.raw_json_token()) == wanted) return Status::SubdocPathEexists;
      ++size;
    }
    return append({where.begin, locator_.close_after_iteration(where.begin), size});
  }

  Status counter(Location& where, int64_t delta, std::string& result) {
    if (!where.found) {
      // The new number lies at level path.size() + 1, as a member's value does (an existing
      // one that deep is DocE2deep: the walk does not reach it).
      if (path_.size() + 1 > kMaxDepth) return Status::SubdocValueEtoodeep;
      std::string& number = state_.number;
      number = std::to_string(delta);
      const Status status = add_member(where, number, false);
      if (status == Status::Success) result = number;
      return status;
    }
    json_type type;
    if (where.value.type().get(type)) return Status::SubdocDocNotJson;
    if (type != json_type::number) return Status::SubdocPathMismatch;
    std::string_view old;
    if (const Status status = locator_.bytes(where, old); status != Status::Success) {
      return status;
    }
    int64_t current = 0;
    int64_t sum = 0;
    if (const Status status = parse_counter(old, current); status != Status::Success) {
      return status;
    }
    if (const Status status = add_delta(current, delta, sum); status != Status::Success) {
      return status;
    }
    result = std::to_string(sum);
    splice(text_, old.data(), old.data() + old.size(), {result}, out_);
    return Status::Success;
  }

  // The found value as a container, which must be an array.
  Status found_array(Location& where, Container& out) {
    if (where.scalar_root) return Status::SubdocPathMismatch;
    json_type type;
    if (where.value.type().get(type)) return Status::SubdocDocNotJson;
    if (type != json_type::array) return Status::SubdocPathMismatch;
    std::string_view bytes;
    if (const Status status = locator_.bytes(where, bytes); status != Status::Success) {
      return status;
    }
    out.open = bytes.data();
    out.close = bytes.data() + bytes.size() - 1;
    // Only emptiness matters to the callers.
    out.size = skip_whitespace(out.open + 1, out.close) == out.close ? 0 : 1;
    return Status::Success;
  }

  // The value's elements after the array's last one.
  Status append(const Container& array) {
    if (array.is_empty()) {
      // Whatever whitespace the empty array held goes: "[ ]" becomes "[v]".
      splice(text_, array.open + 1, array.close, {value_}, out_);
    } else {
      splice(text_, array.close, array.close, {",", value_}, out_);
    }
    return Status::Success;
  }

  // A key as a JSON string, escaped by rapidjson's writer.
  static void append_quoted(std::string& out, std::string_view key) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    writer.String(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    out.append(buffer.GetString(), buffer.GetSize());
  }

  JsonDocument::State& state_;
  std::string_view text_;
  Locator locator_;
  const Path& path_;
  std::string_view value_;
  bool create_parents_;
  std::string& out_;
};

}  // namespace

Status JsonDocument::mutate(Mutation op, const Path& path, std::string_view value,
                            bool create_parents, std::string& out, std::string& result) const {
  out.clear();
  result.clear();
  State& state = *state_;
  if (!state.loaded) return Status::SubdocDocNotJson;
  Status status = check_path(op, path);
  int64_t delta = 0;
  if (status == Status::Success) status = check_value(state.values, op, path, value, delta);
  if (status == Status::Success) {
    status = Mutator(state, path, value, create_parents, out).run(op, delta, result);
  }
  if (status != Status::Success) {
    out.clear();
    result.clear();
  }
  return status;
}

}  // namespace tern::subdoc
