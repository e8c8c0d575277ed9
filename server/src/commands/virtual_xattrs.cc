#include "commands/virtual_xattrs.h"

#include <rapidjson/writer.h>

#include <cinttypes>
#include <cstdio>

#include "commands/subdoc_document.h"
#include "commands/subdoc_macros.h"
#include "protocol/datatype.h"

namespace tern::commands {

namespace {

// rapidjson's output stream, writing into a std::string that keeps its capacity.
struct StringOutput {
  using Ch = char;
  std::string& out;
  void Put(char c) { out.push_back(c); }
  void Flush() {}
};

using Writer = rapidjson::Writer<StringOutput>;

constexpr std::string_view kDocument = "$document";
constexpr std::string_view kXtoc = "$XTOC";
constexpr std::string_view kVbucket = "$vbucket";

void key(Writer& writer, std::string_view name) {
  writer.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}

void string(Writer& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

// "0x" and the number's hex digits, padded to `digits` as Couchbase writes them.
void hex(Writer& writer, uint64_t number, int digits) {
  char text[24];
  const int length = std::snprintf(text, sizeof text, "0x%0*" PRIx64, digits, number);
  string(writer, {text, static_cast<size_t>(length)});
}

void decimal_string(Writer& writer, uint64_t number) {
  char text[24];
  const int length = std::snprintf(text, sizeof text, "%" PRIu64, number);
  string(writer, {text, static_cast<size_t>(length)});
}

void write_document(Writer& writer, const VirtualDocumentMeta& meta, std::string_view body,
                    bool with_crc32c) {
  namespace datatype = protocol::datatype;
  writer.StartObject();
  key(writer, "CAS");
  hex(writer, meta.cas, 16);
  key(writer, "datatype");
  writer.StartArray();
  if ((meta.datatype & datatype::kJson) != 0) writer.String("json");
  if ((meta.datatype & datatype::kXattr) != 0) writer.String("xattr");
  if ((meta.datatype & (datatype::kJson | datatype::kXattr)) == 0) writer.String("raw");
  writer.EndArray();
  key(writer, "deleted");
  writer.Bool(meta.deleted);
  key(writer, "exptime");
  writer.Uint(meta.expiry);
  key(writer, "flags");
  writer.Uint(meta.flags);
  key(writer, "revid");
  decimal_string(writer, meta.rev_seqno);
  key(writer, "seqno");
  hex(writer, meta.seqno, 16);
  key(writer, "value_bytes");
  writer.Uint64(body.size());
  if (with_crc32c) {
    key(writer, "value_crc32c");
    hex(writer, crc32c(body), 8);
  }
  key(writer, "vbucket_uuid");
  hex(writer, meta.vbucket_uuid, 16);
  writer.EndObject();
}

}  // namespace

bool needs_value_crc32c(const subdoc::Path& path) {
  const auto is_key = [&](size_t i, std::string_view name) {
    return path[i].kind == subdoc::PathComponent::Kind::Key && path[i].key == name;
  };
  if (path.empty() || !is_key(0, kDocument)) return false;
  return path.size() == 1 || is_key(1, "value_crc32c");
}

bool is_known_virtual_xattr(std::string_view key) {
  return key == kDocument || key == kXtoc || key == kVbucket;
}

void write_virtual_xattrs(const VirtualDocumentMeta& meta, std::string_view body,
                          std::span<const xattr::Attribute> attributes,
                          uint64_t now_unix_seconds, bool with_crc32c, std::string& out) {
  out.clear();
  StringOutput stream{out};
  Writer writer(stream);
  writer.StartObject();
  key(writer, kDocument);
  write_document(writer, meta, body, with_crc32c);
  key(writer, kXtoc);
  writer.StartArray();
  for (const xattr::Attribute& attribute : attributes) string(writer, attribute.key);
  writer.EndArray();
  key(writer, kVbucket);
  writer.StartObject();
  key(writer, "HLC");
  writer.StartObject();
  key(writer, "now");
  decimal_string(writer, now_unix_seconds);
  key(writer, "mode");
  writer.String("real");
  writer.EndObject();
  writer.EndObject();
  writer.EndObject();
}

}  // namespace tern::commands
