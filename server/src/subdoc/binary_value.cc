#include "subdoc/binary_value.h"

#include "common/base64.h"

namespace tern::subdoc {

void encode_binary_value(std::string_view raw, std::string& out) {
  out.assign("\"").append(kBinaryValuePrefix);
  base64_append(raw, out);
  out.push_back('"');
}

bool decode_binary_value(std::string_view json, std::string& out) {
  if (json.size() < 2 || json.front() != '"' || json.back() != '"') return false;
  const std::string_view text = json.substr(1, json.size() - 2);
  if (!text.starts_with(kBinaryValuePrefix)) return false;
  return base64_decode(text.substr(kBinaryValuePrefix.size()), out);
}

bool binary_values_well_formed(std::string_view json) {
  for (size_t at = json.find(kBinaryValuePrefix); at != std::string_view::npos;
       at = json.find(kBinaryValuePrefix, at + 1)) {
    const size_t start = at + kBinaryValuePrefix.size();
    const size_t end = json.find('"', start);
    if (end == std::string_view::npos || !is_base64(json.substr(start, end - start))) {
      return false;
    }
  }
  return true;
}

}  // namespace tern::subdoc
