#include "subdoc/locator.h"

#include <algorithm>
#include <utility>

#include "subdoc/json_document.h"
#include "subdoc/json_text.h"

namespace tern::subdoc {
namespace {

using protocol::Status;
using simdjson::ondemand::json_type;

// Whether the member's key is `wanted`. Most keys have no escapes: their bytes are the key.
Status key_equals(simdjson::ondemand::field& field, std::string_view raw, std::string_view wanted,
                  bool& equal) {
  if (raw.find('\\') == std::string_view::npos) {
    equal = raw == wanted;
    return Status::Success;
  }
  std::string_view unescaped;
  if (field.unescaped_key().get(unescaped)) return Status::SubdocDocNotJson;
  equal = unescaped == wanted;
  return Status::Success;
}

}  // namespace

std::string_view raw_key(const simdjson::ondemand::field& field, const char* value_begin) {
  // simdjson points just past the opening quote; the closing one is the last token before
  // the ':' that precedes the value.
  const char* key = field.key().raw();
  const char* colon = last_before(key, value_begin);
  const char* closing_quote = last_before(key, colon);
  return {key, static_cast<size_t>(closing_quote - key)};
}

// A container's child as find_member()/find_element() report it.
struct Locator::Child {
  bool found = false;
  simdjson::ondemand::value value;
  const char* begin = nullptr;
  const char* member_begin = nullptr;
  Container container;  // when not found: the container searched, to its closing bracket
};

Status Locator::locate(const Path& path, Location& out) {
  out = Location{};
  // A walk that met text that is not JSON abandons simdjson's iterator (it forgets its
  // parser, and rewinding would dereference null): the document is known not to be JSON.
  if (!document_.is_alive()) return Status::SubdocDocNotJson;
  document_.rewind();
  json_type type;
  if (document_.type().get(type)) return Status::SubdocDocNotJson;
  const char* root = skip_whitespace(text_.data(), text_end());
  if (type != json_type::object && type != json_type::array) {
    if (!path.empty()) return Status::SubdocPathMismatch;
    out.found = true;
    out.scalar_root = true;
    out.begin = out.member_begin = root;
    return Status::Success;
  }

  simdjson::ondemand::value current;
  if (document_.get_value().get(current)) return Status::SubdocDocNotJson;
  const char* begin = root;
  const char* member_begin = root;
  for (size_t i = 0; i < path.size(); ++i) {
    const PathComponent& component = path[i];
    json_type current_type;
    if (current.type().get(current_type)) return Status::SubdocDocNotJson;
    const bool wants_member = component.kind == PathComponent::Kind::Key;
    if (current_type != (wants_member ? json_type::object : json_type::array)) {
      return Status::SubdocPathMismatch;
    }
    Child child;
    const Status status = wants_member ? find_member(current, begin, component.key, child)
                                       : find_element(current, begin, component.index, child);
    if (status != Status::Success) return status;
    if (!child.found) {
      out.matched = i;
      out.parent = child.container;
      return Status::Success;
    }
    // The root is level 1, so path[i] names a value at level i + 2.
    if (i + 2 > kMaxDepth) return Status::SubdocDocE2deep;
    current = std::move(child.value);
    begin = child.begin;
    member_begin = child.member_begin;
  }
  out.found = true;
  out.value = std::move(current);
  out.begin = begin;
  out.member_begin = member_begin;
  return Status::Success;
}

Status Locator::find_member(simdjson::ondemand::value& value, const char* open,
                            std::string_view key, Child& out) {
  simdjson::ondemand::object object;
  if (value.get_object().get(object)) return Status::SubdocDocNotJson;
  size_t size = 0;
  for (auto member : object) {
    simdjson::ondemand::field field;
    if (std::move(member).get(field)) return Status::SubdocDocNotJson;
    const char* value_begin = field.value().raw_json_token().data();
    const std::string_view raw = raw_key(field, value_begin);
    bool equal = false;
    if (const Status status = key_equals(field, raw, key, equal); status != Status::Success) {
      return status;
    }
    if (equal) {
      out.found = true;
      out.value = std::move(field.value());
      out.begin = value_begin;
      out.member_begin = raw.data() - 1;
      return Status::Success;
    }
    ++size;  // the loop skips the member's value unread
  }
  out.container = {open, close_after_iteration(open), size};
  return Status::Success;
}

Status Locator::find_element(simdjson::ondemand::value& value, const char* open, int64_t index,
                             Child& out) {
  simdjson::ondemand::array array;
  if (value.get_array().get(array)) return Status::SubdocDocNotJson;
  if (index == kLastElement) {
    // On-Demand only goes forward: count first, then walk to the last one.
    size_t count = 0;
    if (array.count_elements().get(count)) return Status::SubdocDocNotJson;
    if (count == 0) {
      out.container = {open, skip_whitespace(open + 1, text_end()), 0};
      return Status::Success;
    }
    index = static_cast<int64_t>(count - 1);
  }
  size_t size = 0;
  for (auto element : array) {
    simdjson::ondemand::value item;
    if (std::move(element).get(item)) return Status::SubdocDocNotJson;
    if (static_cast<int64_t>(size) == index) {
      out.found = true;
      out.begin = out.member_begin = item.raw_json_token().data();
      out.value = std::move(item);
      return Status::Success;
    }
    ++size;
  }
  out.container = {open, close_after_iteration(open), size};
  return Status::Success;
}

Status Locator::bytes(Location& found, std::string_view& out) {
  if (found.scalar_root) {
    out = trim_json_whitespace(text_);
    return Status::Success;
  }
  json_type type;
  if (found.value.type().get(type)) return Status::SubdocDocNotJson;
  std::string_view raw;
  if (type == json_type::object) {
    simdjson::ondemand::object object;
    if (found.value.get_object().get(object) || object.raw_json().get(raw)) {
      return Status::SubdocDocNotJson;
    }
  } else if (type == json_type::array) {
    simdjson::ondemand::array array;
    if (found.value.get_array().get(array) || array.raw_json().get(raw)) {
      return Status::SubdocDocNotJson;
    }
  } else {
    raw = found.value.raw_json_token();
  }
  // simdjson's views run to the next token (or past the end of the text, for the root).
  const char* end = std::min(raw.data() + raw.size(), text_end());
  while (end > found.begin && is_json_whitespace(end[-1])) --end;
  out = {found.begin, static_cast<size_t>(end - found.begin)};
  return Status::Success;
}

const char* Locator::close_after_iteration(const char* open) {
  // The iterator now stands on the token after the closing bracket, or at the end.
  const char* after = text_end();
  if (auto where = document_.current_location(); !where.error()) after = where.value_unsafe();
  return last_before(open, after);
}

}  // namespace tern::subdoc
