#include "subdoc/path.h"

#include <charconv>

#include <simdjson.h>

namespace tern::subdoc {
namespace {

using protocol::Status;

class PathParser {
 public:
  PathParser(std::string_view text, Path& out) : text_(text), out_(out) {}

  Status parse() {
    out_.clear();
    if (text_.empty()) return Status::Success;
    // A path may start with a position (the document is an array) but never with a dot.
    if (peek() != '[' && !key()) return Status::SubdocPathEinval;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '[') {
        if (!index()) return Status::SubdocPathEinval;
      } else if (c == '.') {
        if (!key()) return Status::SubdocPathEinval;
      } else {
        return Status::SubdocPathEinval;  // e.g. "a[0]b"
      }
      if (out_.size() > kMaxPathComponents) return Status::SubdocPathE2big;
    }
    return out_.size() > kMaxPathComponents ? Status::SubdocPathE2big : Status::Success;
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  // A key up to the next '.' or '[', or a backtick-quoted one; never empty.
  bool key() {
    if (peek() == '`') return quoted_key();
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '.' && text_[pos_] != '[') {
      // A backtick inside a bare key, or a stray ']', is not a key the quoting rules could give.
      if (text_[pos_] == '`' || text_[pos_] == ']') return false;
      ++pos_;
    }
    if (pos_ == start) return false;
    out_.push_back(PathComponent::of_key(std::string(text_.substr(start, pos_ - start))));
    return true;
  }

  // `...` with `` standing for one backtick; what follows must be the end, '.' or '['.
  bool quoted_key() {
    ++pos_;  // the opening backtick
    std::string name;
    while (true) {
      if (pos_ >= text_.size()) return false;  // unclosed
      const char c = text_[pos_++];
      if (c != '`') {
        name.push_back(c);
      } else if (peek() == '`') {
        name.push_back('`');
        ++pos_;
      } else {
        break;
      }
    }
    if (name.empty()) return false;
    const char next = peek();
    if (next != '\0' && next != '.' && next != '[') return false;
    out_.push_back(PathComponent::of_key(std::move(name)));
    return true;
  }

  // After '[': decimal digits or -1, then ']'.
  bool index() {
    const size_t close = text_.find(']', pos_);
    if (close == std::string_view::npos || close == pos_) return false;
    const std::string_view digits = text_.substr(pos_, close - pos_);
    pos_ = close + 1;
    if (digits == "-1") {
      out_.push_back(PathComponent::of_index(kLastElement));
      return true;
    }
    int64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc() || end != digits.data() + digits.size() || value < 0) return false;
    // from_chars accepts a leading '-' and rejects '+': only plain digits reach here.
    out_.push_back(PathComponent::of_index(value));
    return true;
  }

  std::string_view text_;
  Path& out_;
  size_t pos_ = 0;
};

}  // namespace

protocol::Status parse_path(std::string_view text, Path& out) {
  if (text.size() > kMaxPathBytes) return protocol::Status::SubdocPathE2big;
  // Keys are written into documents that say they are JSON: they must be valid UTF-8.
  if (!simdjson::validate_utf8(text.data(), text.size())) return protocol::Status::SubdocPathEinval;
  return PathParser(text, out).parse();
}

}  // namespace tern::subdoc
