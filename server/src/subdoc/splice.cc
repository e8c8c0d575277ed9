#include "subdoc/splice.h"

namespace tern::subdoc {

void splice(std::string_view text, const char* cut_begin, const char* cut_end,
            std::initializer_list<std::string_view> pieces, std::string& out) {
  const size_t prefix = static_cast<size_t>(cut_begin - text.data());
  const size_t suffix = static_cast<size_t>(text.data() + text.size() - cut_end);
  size_t size = prefix + suffix;
  for (std::string_view piece : pieces) size += piece.size();
  out.clear();
  out.reserve(size);
  out.append(text.data(), prefix);
  for (std::string_view piece : pieces) out.append(piece);
  out.append(cut_end, suffix);
}

}  // namespace tern::subdoc
