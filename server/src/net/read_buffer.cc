#include "net/read_buffer.h"

#include <cstring>

namespace tern::net {

std::span<uint8_t> ReadBuffer::prepare(size_t min_free) {
  if (bytes_.size() - end_ < min_free) {
    // Move the unconsumed tail to the front before growing: most of the time that suffices.
    size_t unconsumed = end_ - begin_;
    if (begin_ != 0) {
      std::memmove(bytes_.data(), bytes_.data() + begin_, unconsumed);
      begin_ = 0;
      end_ = unconsumed;
    }
    if (bytes_.size() - end_ < min_free) bytes_.resize(end_ + min_free);
  }
  return {bytes_.data() + end_, bytes_.size() - end_};
}

// A buffer grown for a large frame is released once drained so idle connections stay small.
constexpr size_t kRetainedBytes = 1 << 20;

void ReadBuffer::consume(size_t n) {
  begin_ += n;
  if (begin_ != end_) return;
  begin_ = end_ = 0;
  if (bytes_.size() > kRetainedBytes) std::vector<uint8_t>().swap(bytes_);
}

}  // namespace tern::net
