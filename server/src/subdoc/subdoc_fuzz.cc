// libFuzzer target: the sub-document path parser and every sub-document operation on fuzzed
// JSON. The input is "path NUL value NUL document" (missing parts are empty); every lookup and
// every mutation (with and without create_parents) runs on the document with that path and
// value. Invariants checked besides ASan's and UBSan's (a broken one aborts):
// - a parsed path keeps the limits, and written back in canonical form parses to itself;
// - a valid JSON document loads;
// - a lookup's answer lies inside the document (Get) or is a decimal count (Count), and on a
//   valid document Get answers valid JSON, and Exists agrees with Get;
// - a mutation of a valid document that succeeds makes a valid document, leaves the loaded
//   one unchanged, and the value it wrote reads back at its path (the dictionary operations,
//   Replace and Counter);
// - binary values (binary_value.h): any bytes encode to valid JSON that decodes to them; a
//   value that decodes is well formed, and its bytes encode again to a value that decodes to
//   them (not always the same text: base64's last letter may carry bits that decoding drops).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/fuzz_check.h"
#include "protocol/status.h"
#include "subdoc/binary_value.h"
#include "subdoc/json_document.h"
#include "subdoc/json_text.h"
#include "subdoc/path.h"

namespace tern::subdoc {
namespace {

using protocol::Status;

// The canonical text of a path: bare keys unless they hold a byte the syntax reserves.
std::string path_text(const Path& path) {
  std::string text;
  for (const PathComponent& component : path) {
    if (component.kind == PathComponent::Kind::Index) {
      text += "[" + std::to_string(component.index) + "]";
      continue;
    }
    if (!text.empty()) text += '.';
    if (component.key.find_first_of(".[]`") == std::string::npos) {
      text += component.key;
      continue;
    }
    text += '`';
    for (char c : component.key) {
      text += c;
      if (c == '`') text += '`';
    }
    text += '`';
  }
  return text;
}

void check_path(std::string_view text, const Path& path) {
  TERN_FUZZ_CHECK(text.size() <= kMaxPathBytes && path.size() <= kMaxPathComponents);
  for (const PathComponent& component : path) {
    TERN_FUZZ_CHECK(component.kind == PathComponent::Kind::Key ? !component.key.empty()
                                                               : component.index >= kLastElement);
  }
  Path again;
  TERN_FUZZ_CHECK(parse_path(path_text(path), again) == Status::Success);
  TERN_FUZZ_CHECK(again == path);
}

bool is_decimal(std::string_view text) {
  if (text.empty()) return false;
  if (text.front() == '-') text.remove_prefix(1);
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// Every lookup on the loaded document.
void check_lookups(const JsonDocument& document, const Path& path, bool valid) {
  std::string scratch;
  std::string_view got;
  const Status get = document.lookup(Lookup::Get, path, got, scratch);
  if (get == Status::Success) {
    const std::string_view text = document.text();
    TERN_FUZZ_CHECK(got.data() >= text.data() &&
                    got.data() + got.size() <= text.data() + text.size());
    TERN_FUZZ_CHECK(!valid || is_json(got));
  }
  std::string_view nothing;
  const Status exists = document.lookup(Lookup::Exists, path, nothing, scratch);
  if (valid && !path.empty()) TERN_FUZZ_CHECK(exists == get);
  std::string_view count;
  if (document.lookup(Lookup::Count, path, count, scratch) == Status::Success) {
    TERN_FUZZ_CHECK(is_decimal(count) && count.front() != '-');
  }
}

// What a successful mutation wrote at the path, read back from its output.
void check_written(Mutation op, const Path& path, std::string_view value, std::string_view result,
                   const std::string& out) {
  std::string_view expected;
  switch (op) {
    case Mutation::DictAdd:
    case Mutation::DictUpsert:
    case Mutation::Replace:
      expected = trim_json_whitespace(value);
      break;
    case Mutation::Counter:
      expected = result;
      TERN_FUZZ_CHECK(is_decimal(result));
      break;
    default:
      return;
  }
  static JsonDocument written;
  TERN_FUZZ_CHECK(written.load(out) == Status::Success);
  std::string scratch;
  std::string_view got;
  TERN_FUZZ_CHECK(written.lookup(Lookup::Get, path, got, scratch) == Status::Success);
  TERN_FUZZ_CHECK(got == expected);
}

constexpr Mutation kMutations[] = {
    Mutation::DictAdd,     Mutation::DictUpsert,     Mutation::Remove,
    Mutation::Replace,     Mutation::ArrayPushLast,  Mutation::ArrayPushFirst,
    Mutation::ArrayInsert, Mutation::ArrayAddUnique, Mutation::Counter,
};

void check_binary_value(std::string_view value) {
  std::string encoded;
  std::string decoded;
  encode_binary_value(value, encoded);
  TERN_FUZZ_CHECK(is_json(encoded) && binary_values_well_formed(encoded));
  TERN_FUZZ_CHECK(decode_binary_value(encoded, decoded) && decoded == value);
  if (!decode_binary_value(value, decoded)) return;
  TERN_FUZZ_CHECK(binary_values_well_formed(value));
  encode_binary_value(decoded, encoded);
  std::string again;
  TERN_FUZZ_CHECK(decode_binary_value(encoded, again) && again == decoded);
}

void run(std::string_view path_bytes, std::string_view value, std::string_view doc) {
  check_binary_value(value);
  Path path;
  const Status parsed = parse_path(path_bytes, path);
  TERN_FUZZ_CHECK(parsed == Status::Success || parsed == Status::SubdocPathEinval ||
                  parsed == Status::SubdocPathE2big);
  if (parsed != Status::Success) return;
  check_path(path_bytes, path);

  // One document reused across inputs, as a worker thread reuses its own.
  static JsonDocument document;
  const bool valid = is_json(doc);
  const Status loaded = document.load(doc);
  TERN_FUZZ_CHECK(!valid || loaded == Status::Success);
  if (loaded != Status::Success) return;
  TERN_FUZZ_CHECK(document.text() == doc);
  check_lookups(document, path, valid);

  std::string out;
  std::string result;
  for (Mutation op : kMutations) {
    for (bool create_parents : {false, true}) {
      if (document.mutate(op, path, value, create_parents, out, result) != Status::Success) {
        TERN_FUZZ_CHECK(out.empty() && result.empty());
        continue;
      }
      TERN_FUZZ_CHECK(document.text() == doc);
      if (op == Mutation::Remove) TERN_FUZZ_CHECK(out.size() < doc.size());
      if (!valid) continue;
      TERN_FUZZ_CHECK(is_json(out));
      check_written(op, path, value, result, out);
    }
  }
}

}  // namespace
}  // namespace tern::subdoc

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view parts[3];
  for (size_t i = 0; i < 2; ++i) {
    const size_t end = input.find('\0');
    parts[i] = input.substr(0, end);
    input = end == std::string_view::npos ? std::string_view() : input.substr(end + 1);
  }
  parts[2] = input;
  tern::subdoc::run(parts[0], parts[1], parts[2]);
  return 0;
}
