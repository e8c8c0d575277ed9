#include "subdoc/json_document.h"

#include <algorithm>
#include <cstring>

#include "subdoc/document_state.h"
#include "subdoc/locator.h"

namespace tern::subdoc {

using protocol::Status;
using simdjson::ondemand::json_type;

JsonDocument::JsonDocument() : state_(std::make_unique<State>()) {}
JsonDocument::~JsonDocument() = default;

namespace {

// simdjson's On-Demand parser keeps about six bytes per byte of the largest document it has
// indexed (structural positions, a buffer for unescaping). After a document larger than this
// the next smaller one starts from fresh buffers, so that one large document (they may reach
// 20 MB) does not pin that memory on the thread for good.
constexpr size_t kKeptCapacity = size_t{1} << 20;

}  // namespace

Status JsonDocument::load(std::string_view json) {
  State& state = *state_;
  state.loaded = false;
  state.size = 0;
  if (json.size() <= kKeptCapacity && state.capacity > kKeptCapacity + simdjson::SIMDJSON_PADDING) {
    state.buffer.reset();
    state.capacity = 0;
    state.parser = simdjson::ondemand::parser{};
  }
  const size_t needed = json.size() + simdjson::SIMDJSON_PADDING;
  if (needed > state.capacity) {
    // Grow by half again, so that a document growing by small mutations is not recopied
    // into a new buffer each time.
    const size_t capacity = std::max(needed, state.capacity + state.capacity / 2);
    state.buffer = std::make_unique_for_overwrite<char[]>(capacity);
    state.capacity = capacity;
  }
  // std::copy, not memcpy: an empty view may have no data pointer at all.
  std::copy(json.begin(), json.end(), state.buffer.get());
  std::memset(state.buffer.get() + json.size(), 0, simdjson::SIMDJSON_PADDING);
  // Indexing (simdjson's stage 1) checks UTF-8 and that strings close; the grammar is checked
  // where an operation walks.
  if (state.parser.iterate(state.buffer.get(), json.size(), state.capacity).get(state.document)) {
    return Status::SubdocDocNotJson;
  }
  state.size = json.size();
  state.loaded = true;
  return Status::Success;
}

std::string_view JsonDocument::text() const { return state_->text(); }

Status JsonDocument::lookup(Lookup op, const Path& path, std::string_view& value,
                            std::string& scratch) const {
  value = {};
  State& state = *state_;
  if (!state.loaded) return Status::SubdocDocNotJson;
  if (op == Lookup::Get && path.empty()) return Status::SubdocPathEinval;
  Locator locator(state.document, state.text());
  Location where;
  if (const Status status = locator.locate(path, where); status != Status::Success) return status;
  if (!where.found) return Status::SubdocPathEnoent;

  switch (op) {
    case Lookup::Get:
      return locator.bytes(where, value);
    case Lookup::Exists:
      return Status::Success;
    case Lookup::Count: {
      if (where.scalar_root) return Status::SubdocPathMismatch;
      json_type type;
      if (where.value.type().get(type)) return Status::SubdocDocNotJson;
      size_t count = 0;
      if (type == json_type::object) {
        simdjson::ondemand::object object;
        if (where.value.get_object().get(object) || object.count_fields().get(count)) {
          return Status::SubdocDocNotJson;
        }
      } else if (type == json_type::array) {
        simdjson::ondemand::array array;
        if (where.value.get_array().get(array) || array.count_elements().get(count)) {
          return Status::SubdocDocNotJson;
        }
      } else {
        return Status::SubdocPathMismatch;
      }
      scratch = std::to_string(count);
      value = scratch;
      return Status::Success;
    }
  }
  return Status::SubdocPathEinval;
}

Status JsonDocument::members(std::vector<Member>& out) const {
  out.clear();
  State& state = *state_;
  if (!state.loaded) return Status::SubdocDocNotJson;
  Locator locator(state.document, state.text());
  Location root;
  if (const Status status = locator.locate({}, root); status != Status::Success) return status;
  json_type type;
  if (root.scalar_root || root.value.type().get(type) || type != json_type::object) {
    return Status::SubdocPathMismatch;
  }
  simdjson::ondemand::object object;
  if (root.value.get_object().get(object)) return Status::SubdocDocNotJson;
  // Each member's value is read as a located value is.
  for (auto member : object) {
    simdjson::ondemand::field field;
    if (std::move(member).get(field)) return Status::SubdocDocNotJson;
    Location value;
    value.found = true;
    value.begin = value.member_begin = field.value().raw_json_token().data();
    const std::string_view key = raw_key(field, value.begin);
    value.value = std::move(field.value());
    std::string_view bytes;
    if (const Status status = locator.bytes(value, bytes); status != Status::Success) {
      return status;
    }
    out.push_back({key, bytes});
  }
  return Status::Success;
}

}  // namespace tern::subdoc
