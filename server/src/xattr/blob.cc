#include "xattr/blob.h"


#include "protocol/datatype.h"  // the XATTR bit only: header-only, nothing to link

namespace tern::xattr {
namespace {

constexpr size_t kLengthWord = 4;

uint32_t load_length(const char* p) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

void append_length(uint32_t length, std::string& out) {
  const char word[kLengthWord] = {static_cast<char>(length >> 24), static_cast<char>(length >> 16),
                                  static_cast<char>(length >> 8), static_cast<char>(length)};
  out.append(word, kLengthWord);
}

// The bytes one attribute takes in a section: its length word, key, 0x00, value, 0x00.
size_t pair_size(const Attribute& attribute) {
  return kLengthWord + attribute.key.size() + 1 + attribute.value.size() + 1;
}

// Reads one pair's "key\0value\0" (its length word already consumed): exactly two
// terminators, the second one last, and a key that is not empty.
bool parse_pair(std::string_view pair, Attribute& out) {
  if (pair.empty() || pair.back() != '\0') return false;
  const size_t key_end = pair.find('\0');
  if (key_end == 0 || key_end == pair.size() - 1) return false;
  const std::string_view value = pair.substr(key_end + 1, pair.size() - key_end - 2);
  if (value.find('\0') != std::string_view::npos) return false;
  out = {pair.substr(0, key_end), value};
  return true;
}

}  // namespace

bool split(std::string_view value, uint8_t datatype, Split& out) {
  if ((datatype & protocol::datatype::kXattr) == 0) {
    out = {{}, value};
    return true;
  }
  if (value.size() < kLengthWord) return false;
  const uint64_t section = uint64_t{kLengthWord} + load_length(value.data());
  if (section > value.size()) return false;
  out = {value.substr(0, section), value.substr(section)};
  return true;
}

bool parse(std::string_view section, std::vector<Attribute>& out) {
  out.clear();
  if (section.empty()) return true;
  if (section.size() < kLengthWord || load_length(section.data()) != section.size() - kLengthWord) {
    return false;
  }
  std::string_view rest = section.substr(kLengthWord);
  while (!rest.empty()) {
    if (rest.size() < kLengthWord) return false;
    const uint64_t length = load_length(rest.data());
    if (length > rest.size() - kLengthWord) return false;
    Attribute attribute;
    if (!parse_pair(rest.substr(kLengthWord, length), attribute)) return false;
    out.push_back(attribute);
    rest.remove_prefix(kLengthWord + length);
  }
  return true;
}

void append_section(std::span<const Attribute> attributes, std::string& out) {
  if (attributes.empty()) return;
  size_t pairs = 0;
  for (const Attribute& attribute : attributes) pairs += pair_size(attribute);
  out.reserve(out.size() + kLengthWord + pairs);
  append_length(static_cast<uint32_t>(pairs), out);
  for (const Attribute& attribute : attributes) {
    append_length(static_cast<uint32_t>(pair_size(attribute) - kLengthWord), out);
    out.append(attribute.key);
    out.push_back('\0');
    out.append(attribute.value);
    out.push_back('\0');
  }
}

std::string system_section(std::string_view section) {
  std::vector<Attribute> attributes;
  if (!parse(section, attributes)) return {};
  std::erase_if(attributes, [](const Attribute& a) { return !is_system_key(a.key); });
  std::string out;
  append_section(attributes, out);
  return out;
}

}  // namespace tern::xattr
