#pragma once
// How every sub-document mutation builds its new document: the old text up to a cut, the new
// bytes, and the old text after the cut, copied once into a buffer the caller reuses.

#include <initializer_list>
#include <string>
#include <string_view>

namespace tern::subdoc {

// out = text[begin of text, cut_begin) + each of `pieces` + text[cut_end, end of text).
// cut_begin <= cut_end, both inside text (an empty cut inserts, an empty piece list removes).
void splice(std::string_view text, const char* cut_begin, const char* cut_end,
            std::initializer_list<std::string_view> pieces, std::string& out);

}  // namespace tern::subdoc
